// gym/openenv/episode: one OpenEnv session's episodes over the env API's own sessions (EnvSessions: the same makeEnv,
// budgets, rewards and idle expiry as POST /v1/envs) — reset picks a question (an id, a split's index, a seed's draw or
// a fresh draw) and opens an env, closing the one before; step plays one action: the assistant's text as the env
// API's step does, or one named tool call written in the env's protocol (answer ends the episode as `gym mcp`'s
// answer tool does); reward and done are the env API's step reward and terminated || truncated, and the env is
// closed the moment the episode ends. What leaves here is what a policy may see: the gold signals (signal/* metrics)
// and the gold answer (logs.gold) never do. Knows no transport: the HTTP and WebSocket faces wrap it.
import { randomInt } from 'node:crypto'
import { HttpError } from '../../infra/http/errors'
import { Rng } from '../../infra/rng'
import type { Qa, Split } from '../../world'
import { mergeOverrides, type EnvSessions } from '../env-sessions'
import { resolveGymOptions, type GymOptions } from '../make-env'
import { toolSchemas, type FunctionSchema } from '../protocol/tools'
import type { ProtocolName } from '../protocol/types'
import { statusOf } from '../server'
import type { AssistantAction, ChatMessage, StepResult } from '../types'
import type { GymWorld } from '../world-view'
import { ANSWER_TOOL, type Action, type ResetParams } from './wire'

type Json = Record<string, unknown>

/** A reset or step answer: OpenEnv's {observation, reward, done} (serialization.py:136-171). */
export interface Answer {
  observation: Json
  reward: number | null
  done: boolean
}

export interface EpisodeHost {
  world: GymWorld
  sessions: EnvSessions
  /** The server's env defaults (a reset's options go over them, as a create's do). */
  envDefaults: GymOptions
  /** A split's questions in GET /v1/qa order (the server's cached lists). */
  qaList(split?: Split): Qa[]
}

/** Diagnostic log keys a policy may read; every other one (logs.gold: the gold answer) stays on the server. */
const VISIBLE_LOGS = new Set(['malformed', 'error', 'stop', 'answer', 'search_error', 'access_error'])

/** The step metrics without the gold signals: signal/* are computed from the question's gold documents and evidence. */
export function visibleMetrics(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(m)) if (!k.startsWith('signal/') && !k.includes('gold')) out[k] = v
  return out
}

function visibleLogs(l: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(l)) if (VISIBLE_LOGS.has(k)) out[k] = v
  return out
}

const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string', description: 'The final answer: a name, a number, a date, or yes/no.' } }, required: ['answer'] }

/** The tools as MCP's Tool (mcp_types.py:183-199): the env's search/access and the answer that ends the episode. */
export function mcpTools(schemas: FunctionSchema[]): { name: string; description: string; input_schema: Json }[] {
  return [
    ...schemas.map((s) => ({ name: s.function.name as string, description: s.function.description, input_schema: s.function.parameters as unknown as Json })),
    { name: ANSWER_TOOL, description: 'Give the final answer; the env scores it and the episode ends.', input_schema: ANSWER_SCHEMA },
  ]
}

/** One named tool call as the turn the env's protocol reads (the text protocols' own tags, or OpenAI tool_calls). */
export function toolCallAction(protocol: ProtocolName, name: string, args: Json, id: string): AssistantAction {
  if (name === ANSWER_TOOL) {
    const a = args.answer
    return { text: `<answer>${typeof a === 'string' ? a : typeof a === 'number' || typeof a === 'boolean' ? String(a) : ''}</answer>` }
  }
  if (protocol === 'openai') return { text: '', tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }
  if (protocol === 'search-r1') {
    // The tags carry one string: a call the tags cannot write becomes a turn the env refuses as malformed (as a model's would be).
    if (name === 'search') return { text: `<search>${typeof args.query === 'string' ? args.query : ''}</search>` }
    if (name === 'access') {
      const page = typeof args.page === 'number' && args.page > 1 ? `#page=${args.page}` : ''
      return { text: `<access>${typeof args.url === 'string' ? args.url : ''}${page}</access>` }
    }
    return { text: `<${name.replace(/[^a-z_-]/gi, '')}></${name.replace(/[^a-z_-]/gi, '')}>` }
  }
  return { text: `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>` }
}

const messagesText = (ms: ChatMessage[]) => ms.map((m) => m.content).join('\n\n')

export class OpenEnvEpisode {
  private envId?: string
  private qa?: Qa
  private label?: string
  private options?: GymOptions
  private steps = 0
  private total = 0
  private calls = 0
  private last?: { terminated: boolean; truncated: boolean; stopReason: string | null }

  constructor(
    private readonly host: EpisodeHost,
    /** The session's id (HTTP: what the client passes back; WebSocket: for the record). */
    readonly sessionId: string,
  ) {}

  get done(): boolean {
    return this.last !== undefined
  }

  /** An env is open (reset happened and the episode has not ended). */
  get open(): boolean {
    return this.envId !== undefined
  }

  async reset(p: ResetParams): Promise<Answer> {
    const qa = this.pick(p)
    const overrides = (p.options ?? {}) as Json
    let options: GymOptions
    try {
      options = resolveGymOptions(mergeOverrides(this.host.envDefaults, overrides))
    } catch (e) {
      throw asHttp(e)
    }
    await this.close()
    let created
    try {
      created = await this.host.sessions.create(qa, overrides)
    } catch (e) {
      throw asHttp(e)
    }
    this.envId = created.envId
    this.qa = qa
    this.options = options
    this.label = p.episode_id ?? undefined
    this.steps = 0
    this.total = 0
    this.last = undefined
    const messages = created.observation
    return {
      observation: {
        session_id: this.sessionId,
        episode_id: this.episodeId,
        question: qa.question,
        qa: { id: qa.id, type: qa.type, hops: qa.hops, split: qa.split, question: qa.question },
        tool_schemas: created.tools,
        messages,
        text: messagesText(messages),
        terminated: false,
        truncated: false,
        stop_reason: null,
        step_count: 0,
        metrics: {},
        logs: {},
      },
      reward: null,
      done: false,
    }
  }

  async step(a: Action): Promise<Answer> {
    if (a.kind === 'list_tools') {
      const o = this.options ?? this.host.envDefaults
      return { observation: { tools: mcpTools(toolSchemas(o.access ? ['search', 'access'] : ['search'])) }, reward: null, done: this.done }
    }
    if (this.last) throw new HttpError(409, 'episode.done', `the episode has ended (${this.last.stopReason ?? 'done'}); reset for a new one`)
    if (this.envId === undefined || !this.options) throw new HttpError(409, 'episode.not_started', 'no episode in this session yet: reset first')
    let action: AssistantAction
    if (a.kind === 'tool') action = toolCallAction(this.options.protocol, a.name, a.arguments, `oe_${++this.calls}`)
    else {
      action = { text: a.text }
      if (a.tool_calls)
        action.tool_calls = a.tool_calls.map((tc, i) => {
          const args = tc.function.arguments
          return { id: tc.id ?? `oe_tc_${this.steps}_${i}`, type: 'function' as const, function: { name: tc.function.name, arguments: typeof args === 'string' ? args : args ? JSON.stringify(args) : '' } }
        })
      if (a.num_tokens !== undefined) action.numTokens = a.num_tokens
    }
    let r: StepResult
    try {
      r = JSON.parse(await this.host.sessions.step(this.envId, action)) as StepResult
    } catch (e) {
      const h = asHttp(e)
      if (h.code === 'env.not_found' || h.code === 'env.expired') {
        this.envId = undefined
        throw new HttpError(404, 'session.expired', "this episode's env is gone (closed after being idle, or its worker restarted); reset for a new one")
      }
      throw h
    }
    this.steps++
    this.total += r.reward
    const done = r.terminated || r.truncated
    if (done) {
      this.last = { terminated: r.terminated, truncated: r.truncated, stopReason: r.stopReason ?? null }
      await this.close()
    }
    const text = messagesText(r.observation)
    const observation: Json = {
      messages: r.observation,
      text,
      terminated: r.terminated,
      truncated: r.truncated,
      stop_reason: r.stopReason ?? null,
      step_count: this.steps,
      metrics: visibleMetrics(r.metrics),
      logs: visibleLogs(r.logs),
    }
    if (a.kind === 'tool') Object.assign(observation, { tool_name: a.name, result: text, error: null })
    return { observation, reward: r.reward, done }
  }

  /** SearchGymState: the question (no answer), steps, the return so far and how the episode ended. */
  state(): Json {
    const q = this.qa
    return {
      episode_id: q ? this.episodeId : null,
      step_count: this.steps,
      session_id: this.sessionId,
      qa_id: q?.id ?? null,
      question: q?.question ?? null,
      split: q?.split ?? null,
      type: q?.type ?? null,
      hops: q?.hops ?? null,
      done: this.done,
      terminated: this.last?.terminated ?? false,
      truncated: this.last?.truncated ?? false,
      stop_reason: this.last?.stopReason ?? null,
      reward: this.total,
    }
  }

  /** Close the open env, if any (idempotent; an env already gone is fine). */
  async close(): Promise<void> {
    const id = this.envId
    this.envId = undefined
    if (id === undefined) return
    try {
      await this.host.sessions.close(id)
    } catch {
      // expired or its worker restarted: nothing left to close
    }
  }

  private get episodeId(): string {
    return this.label ?? this.sessionId
  }

  private pick(p: ResetParams): Qa {
    const has = (v: unknown) => v !== undefined && v !== null
    if (has(p.qa_id)) {
      if (has(p.split) || has(p.index) || has(p.seed)) throw new HttpError(422, 'request.bad_body', 'give qa_id, or split with index or seed, not both')
      const qa = this.host.world.qa(p.qa_id!)
      if (!qa) throw new HttpError(404, 'qa.not_found', `no question with id ${JSON.stringify(p.qa_id!.slice(0, 100))}`)
      return qa
    }
    if (has(p.index) && has(p.seed)) throw new HttpError(422, 'request.bad_body', 'give index or seed, not both')
    const split: Split = p.split ?? 'train'
    const list = this.host.qaList(split)
    if (list.length === 0) throw new HttpError(404, 'qa.not_found', `split ${split} has no questions`)
    if (has(p.index)) {
      if (p.index! >= list.length) throw new HttpError(404, 'qa.not_found', `split ${split} has ${list.length} questions; index ${p.index} is out of range`)
      return list[p.index!]
    }
    // A seed names its question (Gymnasium's reset(seed)); without one, a fresh draw, as an unseeded reset is.
    const i = has(p.seed) ? new Rng(p.seed!).int(0, list.length - 1) : randomInt(list.length)
    return list[i]
  }
}

/** Any error of the env sessions as an HttpError (option errors 400, env.limit 429, a bug 500 with nothing of it shown). */
export function asHttp(e: unknown): HttpError {
  if (e instanceof HttpError) return e
  const s = statusOf(e)
  if (s.status === 500) process.stderr.write(`searchgym gym server (openenv): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  return new HttpError(s.status, s.code, s.message)
}

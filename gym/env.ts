// gym/env: SearchEnv, the single-use async environment for one question — system prompt + question, then per
// assistant turn: parse (protocol), run search/access on a GymWorld, observe, or score the answer (reward spec).
// Budgets, statistics and faults are wrappers (gym/wrappers); this file never throws out of step().
import type { Qa } from '../world'
import { getProtocol, toolSchemas } from './protocol'
import type { FunctionSchema } from './protocol/tools'
import type { GymToolCall, ParsedTurn, Protocol, ProtocolContext, ToolName } from './protocol/types'
import { capObservation } from './observation-cap'
import { documentPages, renderPage } from './pages'
import { computeReward, type RewardSpec } from './reward'
import { StepCredit } from './reward-steps'
import { StepSignals } from './step-signals'
import { ToolFaultError } from './tool-errors'
import type { AssistantAction, ChatMessage, Env, Observation, StepResult, StopReason } from './types'
import type { GymWorld } from './world-view'
import type { GymOptions } from './make-env'

/** An Env that also exposes what wrappers and servers need. */
export interface GymEnv extends Env {
  readonly qa: Qa
  /** OpenAI function schemas of the enabled tools (for `tools=` in chat-completions requests). */
  readonly tools: FunctionSchema[]
  readonly done: boolean
  /** End the episode from outside (budgets): truncated, scored as "no answer". Idempotent. */
  finish(reason: StopReason, note?: string): Promise<StepResult>
}

export class SearchEnv implements GymEnv {
  readonly qa: Qa
  readonly tools: FunctionSchema[]
  private readonly world: GymWorld
  private readonly protocol: Protocol
  private readonly spec: RewardSpec
  private readonly topK: number
  private readonly cap: number
  private readonly ctx: ProtocolContext
  private started = false
  private finished = false
  private stop?: StopReason
  private turn = 0
  private malformed = 0
  private validSearches = 0
  /** undefined: step signals off (GymOptions.stepSignals false). */
  private readonly signals: StepSignals | undefined
  private readonly byTitle: boolean
  private readonly leadSpace: boolean
  /** Title → URL of every search result shown in this episode (for accessByTitle). */
  private readonly shownTitles = new Map<string, string>()
  private readonly credit: StepCredit

  /** `o` as resolveGymOptions returns it (defaults filled, ranges and the step-signals rule checked there, once);
   *  budgets, faults and the episode index are the wrappers' (makeResolvedEnv), not read here. */
  constructor(world: GymWorld, qa: Qa, o: GymOptions) {
    this.world = world
    this.qa = qa
    this.protocol = getProtocol(o.protocol)
    this.spec = o.reward
    this.topK = o.topK
    this.cap = o.observationCap
    this.byTitle = o.accessByTitle
    this.leadSpace = o.leadSpace
    const tools: ToolName[] = o.access ? ['search', 'access'] : ['search']
    this.tools = toolSchemas(tools)
    this.ctx = { tools, maxCallsPerTurn: o.maxCallsPerTurn, turn: 0, maxArgChars: o.maxArgChars, prompt: o.prompt }
    this.signals = o.stepSignals ? new StepSignals(qa) : undefined
    this.credit = new StepCredit({ process: this.spec.terms.includes('process'), cost: this.spec.terms.includes('cost') }, this.signals?.goldCount ?? 0)
  }

  get done(): boolean {
    return this.finished
  }

  async initialObservation(): Promise<Observation> {
    this.started = true
    return [{ role: 'system', content: systemPromptOf(this.protocol, this.ctx) }, this.protocol.questionMessage(this.qa.question)]
  }

  async step(action: AssistantAction | string): Promise<StepResult> {
    if (this.finished)
      return {
        observation: [],
        reward: 0,
        terminated: this.stop === 'answer',
        truncated: this.stop !== 'answer',
        stopReason: this.stop,
        metrics: { after_done: 1 },
        logs: { error: 'the episode has already ended; create a new env for a new episode' },
      }
    try {
      return await this.stepUnsafe(action)
    } catch (e) {
      // A bug or an engine failure outside tool calls: end the episode, do not throw into the trainer.
      const r = this.end('error', undefined)
      r.logs.error = e instanceof Error ? e.message : String(e)
      return r
    }
  }

  private async stepUnsafe(action: AssistantAction | string): Promise<StepResult> {
    if (!this.started) this.started = true
    this.turn++
    this.ctx.turn = this.turn
    const a: AssistantAction = typeof action === 'string' ? { text: action } : action ?? { text: '' }
    const parsed: ParsedTurn = this.protocol.parse(a, this.ctx)
    const metrics: Record<string, number> = { turn: this.turn }
    this.signals?.begin()
    if (parsed.kind === 'answer') return this.end('answer', parsed.answer)
    if (parsed.kind === 'malformed') {
      this.malformed++
      metrics.malformed = 1
      metrics[`malformed/${parsed.error}`] = 1
      return {
        observation: this.protocol.corrective(parsed, this.ctx),
        reward: this.stepCredit(metrics, 0),
        terminated: false,
        truncated: false,
        metrics,
        logs: { malformed: `${parsed.error}: ${parsed.message}` },
      }
    }
    const observation: ChatMessage[] = []
    const logs: Record<string, string> = {}
    for (const call of parsed.calls) observation.push(await this.runTool(call, metrics, logs))
    return { observation, reward: this.stepCredit(metrics, parsed.calls.length), terminated: false, truncated: false, metrics, logs }
  }

  /** This turn's step signals into `signal/*` metrics and its step-term credit (0 unless the spec has one). */
  private stepCredit(metrics: Record<string, number>, toolCalls: number): number {
    if (!this.signals) return 0
    const s = this.signals.report(metrics)
    if (!this.credit.active) return 0
    const c = this.credit.step(this.turn, s, toolCalls)
    for (const [k, v] of Object.entries(c.terms)) metrics[`step_reward/${k}`] = v
    metrics['reward/step'] = c.reward
    return c.reward
  }

  private async runTool(call: GymToolCall, m: Record<string, number>, logs: Record<string, string>): Promise<ChatMessage> {
    const inc = (k: string, v = 1) => (m[k] = (m[k] ?? 0) + v)
    const t0 = performance.now()
    let text: string
    const what = call.name
    inc(`${what}_calls`)
    try {
      if (call.name === 'search') {
        const results = await this.world.search(call.query, this.topK)
        this.signals?.search(call.query, results)
        if (this.byTitle) for (const r of results) if (!this.shownTitles.has(r.title)) this.shownTitles.set(r.title, r.url)
        if (results.length === 0) inc('search_empty')
        inc('search_ok')
        this.validSearches++
        text = this.protocol.renderSearch(results, call.query)
      } else {
        // accessByTitle: a search result's exact title stands for its URL (a model that cannot spell URLs can still open pages).
        const url = this.byTitle && !/^https?:\/\//.test(call.url) ? (this.shownTitles.get(call.url.trim()) ?? call.url) : call.url
        if (url !== call.url) inc('access_by_title')
        const page = await this.world.access(url)
        this.signals?.access(url)
        if (page === undefined) {
          inc('access_not_found')
          text = `No such page: ${JSON.stringify(call.url.slice(0, 300))}. Open URLs exactly as they appear in search results.`
        } else {
          // Paged access: a document longer than the cap is served in pages that each fit it (gym/pages).
          const pages = documentPages(page.title, page.url, page.text, this.cap)
          const p = call.page ?? 1
          if (p > pages.length) {
            inc('access_bad_page')
            text = `No page ${p}: ${page.url} has ${pages.length} page${pages.length === 1 ? '' : 's'}.`
          } else {
            inc('access_ok')
            if (pages.length > 1) inc('access_paged')
            text = renderPage(page.title, page.url, pages[p - 1], p, pages.length)
          }
        }
      }
    } catch (e) {
      inc(`${what}_errors`)
      if (e instanceof ToolFaultError) {
        inc(`${what}_${e.kind}`)
        text = `${what === 'search' ? 'Search' : 'Access'} failed: ${e.message}. You may try again.`
      } else {
        text = `${what === 'search' ? 'Search' : 'Access'} failed because of an internal error. You may try again.`
      }
      logs[`${what}_error`] = e instanceof Error ? e.message : String(e)
    }
    inc('tool_latency_ms', performance.now() - t0)
    const capped = capObservation(text, this.cap, what === 'access' ? 'Page' : 'Output')
    if (capped.truncated) inc('obs_truncated')
    const shown = this.leadSpace ? leadSpaced(capped.text) : capped.text
    inc('obs_chars', shown.length)
    this.signals?.observe(shown)
    return this.protocol.toolResult(call, shown)
  }

  async finish(reason: StopReason, note?: string): Promise<StepResult> {
    if (this.finished) return this.step('')
    const r = this.end(reason, undefined)
    if (note) r.logs.stop = note
    return r
  }

  private end(reason: StopReason, answer: string | undefined): StepResult {
    this.finished = true
    this.stop = reason
    // The ending turn's own step credit (an answer turn: no tool calls, no new signals; budgets: nothing new).
    this.signals?.begin()
    const stepMetrics: Record<string, number> = {}
    const stepReward = this.stepCredit(stepMetrics, 0)
    const { reward: terminal, metrics } = computeReward(this.spec, {
      answer,
      golds: [this.qa.answer, ...this.qa.aliases],
      malformedTurns: this.malformed,
      validSearches: this.validSearches,
      stepTotals: this.credit.totals(),
    })
    Object.assign(metrics, stepMetrics)
    if (this.credit.active) metrics['reward/terminal'] = terminal
    const reward = terminal + stepReward
    metrics.turn = this.turn
    const logs: Record<string, string> = { gold: this.qa.answer }
    if (answer !== undefined) logs.answer = answer
    return { observation: [], reward, terminated: reason === 'answer', truncated: reason !== 'answer', stopReason: reason, metrics, logs }
  }
}

/** A protocol's system prompt depends on its ProtocolContext only: one rendering per protocol and context, not one
 *  per episode (the oracle check opens ~50,000 episodes per world). */
const PROMPTS = new WeakMap<Protocol, Map<string, string>>()
function systemPromptOf(protocol: Protocol, ctx: ProtocolContext): string {
  let m = PROMPTS.get(protocol)
  if (!m) PROMPTS.set(protocol, (m = new Map()))
  // The whole context is the key (a setting added later is part of it without touching this).
  const key = JSON.stringify(ctx)
  let p = m.get(key)
  if (p === undefined) m.set(key, (p = protocol.systemPrompt(ctx)))
  return p
}

/** A tool result with every line, and the text after a snippet's leading ellipsis, starting with a space (the
 *  `leadSpace` option): byte-level BPE tokenizers attach a word's leading space to it, so a name that starts a line
 *  would otherwise be spelled with other tokens than the same name inside a sentence or in the answer turn. */
export function leadSpaced(text: string): string {
  return text.replace(/(^|\n|…)(?=[^\s…])/g, '$1 ')
}

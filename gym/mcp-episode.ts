// gym/mcp-episode: one MCP session's episode — the env API's own env (LocalEnvSessions: makeEnv, budgets, reward)
// for one question, driven by the MCP tools: search/access become one OpenAI-style tool call each (one assistant turn),
// answer becomes the turn `<answer>…</answer>`. Every step is the env's StepResult as the env API's /step answers it,
// so an episode played here scores exactly as one played over HTTP. Knows nothing of MCP's SDK or of transports.
import { GymError } from '../infra/errors'
import type { Qa } from '../world'
import { mergeOverrides, type LocalEnvSessions } from './env-sessions'
import { resolveGymOptions, type GymOptions } from './make-env'
import type { AssistantAction, StepResult } from './types'

/** What an MCP tool answers: the env's step result plus the observation text the agent reads. */
export interface McpStep extends StepResult {
  /** The tool message (or corrective note) of this step, as text; '' when the episode ended on this step. */
  text: string
}

/** The env option the MCP server fixes: tool calls arrive structured, so the env parses them as OpenAI tool_calls. */
export const MCP_PROTOCOL = 'openai'

/** An MCP server's env options (the env API's create `options`, over the gym's defaults as `gym serve` merges them),
 *  resolved and checked before any work; the protocol is MCP's own. */
export function resolveMcpOptions(options: Record<string, unknown>, name = 'gym'): GymOptions {
  if (Object.hasOwn(options, 'protocol')) throw new GymError('cli.bad_flag', `${name} may not set "protocol": MCP tool calls are structured (the env reads them as OpenAI tool_calls)`)
  return resolveGymOptions(mergeOverrides(resolveGymOptions({}), { ...options, protocol: MCP_PROTOCOL }))
}

export class McpEpisode {
  private envId?: string
  private calls = 0
  /** The step that ended the episode (undefined while it runs). */
  last?: McpStep

  constructor(
    private readonly sessions: LocalEnvSessions,
    readonly qa: Qa,
    private readonly options: Record<string, unknown>,
  ) {}

  /** Create the env (the slot is taken here); its id in the registry, which expires it when idle like the env API's. */
  async start(): Promise<void> {
    const created = await this.sessions.create(this.qa, { ...this.options, protocol: MCP_PROTOCOL })
    this.envId = created.envId
  }

  get done(): boolean {
    return this.last !== undefined
  }

  search(query: string): Promise<McpStep> {
    return this.call('search', { query })
  }

  access(url: string, page?: number): Promise<McpStep> {
    return this.call('access', page === undefined ? { url } : { url, page })
  }

  /** The final answer: the env scores it (the env API's reward spec), and the episode ends. */
  answer(answer: string): Promise<McpStep> {
    return this.step({ text: `<answer>${answer}</answer>` })
  }

  /** Release the env's slot (idempotent). */
  async close(): Promise<void> {
    const id = this.envId
    this.envId = undefined
    if (id === undefined) return
    try {
      await this.sessions.close(id)
    } catch {
      // already expired or closed by the registry
    }
  }

  private call(name: 'search' | 'access', args: Record<string, unknown>): Promise<McpStep> {
    this.calls++
    return this.step({ text: '', tool_calls: [{ id: `mcp_${this.calls}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
  }

  private async step(action: AssistantAction): Promise<McpStep> {
    if (this.envId === undefined && this.last === undefined) throw new GymError('mcp.not_started', 'the episode has not started')
    if (this.last) {
      // As the env answers a step after the end (no env is kept open for it): nothing happens, no reward.
      return { ...this.last, text: `The episode has ended (${this.last.stopReason ?? 'done'}); reward ${this.last.reward}. Start a new MCP session for a new episode.`, observation: [], reward: 0, metrics: { after_done: 1 }, logs: { error: 'the episode has already ended' } }
    }
    const r = JSON.parse(await this.sessions.step(this.envId!, action)) as StepResult
    const text = r.observation.map((m) => m.content).join('\n\n')
    const out: McpStep = { ...r, text }
    if (r.terminated || r.truncated) {
      this.last = out
      await this.close()
    }
    return out
  }
}

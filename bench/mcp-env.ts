// bench/mcp-env: `bench run --via mcp` — an Env that plays one question through the gym's MCP server (`searchgym gym mcp
// DIR --qa ID`, a child process per question over stdio, driven by the official SDK client) as an agent harness would:
// the policy's turn is parsed with the run's protocol, each tool call becomes an MCP tools/call, an <answer> the answer
// tool. Rewards, metrics, budgets and the end of the episode are the server's (its env is the env API's). A malformed
// turn never reaches the server (an MCP client sends only well-formed calls): it gets the protocol's corrective note
// here and counts as a turn of the run's maxTurns. Knows nothing of policies or run folders; the SDK loads only here.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Readable } from 'node:stream'
import { getProtocol, type AssistantAction, type ChatMessage, type Env, type GymOptions, type GymOptionsJson, type Observation, type ParsedTurn, type StepResult, type StopReason } from '../gym'
import { BenchError, oneLine } from '../infra/errors'
import type { Qa } from '../world'

/** How to start `searchgym` (the CLI that runs this, as a child: node + its entry script). */
export interface SearchgymCommand {
  command: string
  args: string[]
}

export interface McpEnvOptions {
  cli: SearchgymCommand
  /** The world folder and the question's id in it (a pool's question: its member world and local id). */
  home: (qa: Qa) => { dir: string; qaId: string }
  /** The run's env options as given (--gym-options / --max-turns), passed as the server's --options; no protocol. */
  options: GymOptionsJson | null
}

/** An Env that must be closed (its child process); closing twice is fine. */
export interface ClosableEnv extends Env {
  close(): Promise<void>
}

interface StepContent {
  reward: number
  terminated: boolean
  truncated: boolean
  stopReason?: string
  metrics: Record<string, number>
  logs: Record<string, string>
}

interface ToolReply {
  content?: { type: string; text?: string }[]
  structuredContent?: StepContent
  isError?: boolean
}

const textOf = (r: ToolReply) => (r.content ?? []).map((c) => c.text ?? '').join('\n')

/** A factory of MCP-played envs for runBench's makeEnv: a child `gym mcp` per question, connected before it returns. */
export function mcpEnvFactory(o: McpEnvOptions): (qa: Qa, gym: GymOptions) => Promise<ClosableEnv> {
  return async (qa, gym) => {
    const { dir, qaId } = o.home(qa)
    const args = [...o.cli.args, 'gym', 'mcp', dir, '--qa', qaId, ...(o.options ? ['--options', JSON.stringify(o.options)] : [])]
    const transport = new StdioClientTransport({ command: o.cli.command, args, env: { ...(process.env as Record<string, string>), SEARCHGYM_QUIET: '1' }, stderr: 'pipe' })
    let stderr = ''
    ;(transport.stderr as Readable | null)?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
    const client = new Client({ name: 'searchgym-bench', version: '0.1.0' })
    try {
      await client.connect(transport)
    } catch (e) {
      await client.close().catch(() => {})
      const why = stderr.trim().split('\n').pop() ?? oneLine(e)
      throw new BenchError('bench.mcp', `gym mcp ${dir} --qa ${qaId} did not start: ${why}`, { cause: e })
    }
    return new McpClientEnv(client, gym)
  }
}

class McpClientEnv implements ClosableEnv {
  private readonly protocol
  private readonly ctx
  private turns = 0
  private malformed = 0
  private ended = false

  constructor(
    private readonly client: Client,
    private readonly gym: GymOptions,
  ) {
    this.protocol = getProtocol(gym.protocol)
    this.ctx = { tools: gym.access ? (['search', 'access'] as const) : (['search'] as const), maxCallsPerTurn: gym.maxCallsPerTurn, turn: 0, maxArgChars: gym.maxArgChars, prompt: gym.prompt }
  }

  /** The run protocol's system prompt (the harness's) and the question as the server gives it (its resource). */
  async initialObservation(): Promise<Observation> {
    const res = await this.client.readResource({ uri: 'searchgym://question' })
    const first = res.contents[0]
    const question = first && 'text' in first ? String(first.text) : ''
    if (!question) throw new BenchError('bench.mcp', 'the MCP server gave no question (resource searchgym://question)')
    return [{ role: 'system', content: this.protocol.systemPrompt(this.ctx) }, this.protocol.questionMessage(question)]
  }

  async step(action: AssistantAction | string): Promise<StepResult> {
    if (this.ended) return { observation: [], reward: 0, terminated: false, truncated: true, metrics: { after_done: 1 }, logs: { error: 'the episode has already ended' } }
    this.turns++
    this.ctx.turn = this.turns
    const a: AssistantAction = typeof action === 'string' ? { text: action } : action
    const parsed: ParsedTurn = this.protocol.parse(a, this.ctx)
    if (parsed.kind === 'answer') return this.finalStep(await this.call('answer', { answer: parsed.answer }))
    if (parsed.kind === 'malformed') {
      this.malformed++
      const r: StepResult = { observation: this.protocol.corrective(parsed, this.ctx), reward: 0, terminated: false, truncated: false, metrics: { turn: this.turns, malformed: 1, [`malformed/${parsed.error}`]: 1 }, logs: { malformed: `${parsed.error}: ${parsed.message}` } }
      return this.turnLimit(r)
    }
    const observation: ChatMessage[] = []
    const metrics: Record<string, number> = {}
    const logs: Record<string, string> = {}
    let reward = 0
    for (const call of parsed.calls) {
      const args = call.name === 'search' ? { query: call.query } : { url: call.url, ...(call.page !== undefined ? { page: call.page } : {}) }
      const r = await this.call(call.name, args)
      const s = r.structuredContent!
      reward += s.reward
      for (const [k, v] of Object.entries(s.metrics)) metrics[k] = k === 'turn' ? v : (metrics[k] ?? 0) + v
      Object.assign(logs, s.logs)
      // The server ended the episode (a budget): its final step, with the counts of this turn's earlier calls.
      if (s.terminated || s.truncated) return this.finalStep(r, { reward: reward - s.reward, metrics })
      observation.push(this.protocol.toolResult(call, textOf(r)))
    }
    return this.turnLimit({ observation, reward, terminated: false, truncated: false, metrics: { ...metrics, turn: this.turns }, logs })
  }

  async close(): Promise<void> {
    this.ended = true
    await this.client.close().catch(() => {})
  }

  private async call(name: string, args: Record<string, unknown>): Promise<ToolReply> {
    const r = (await this.client.callTool({ name, arguments: args })) as ToolReply
    if (!r.structuredContent) throw new BenchError('bench.mcp', `the MCP tool ${name} answered without a step result: ${textOf(r).slice(0, 200)}`)
    return r
  }

  /** The server's final step as the env's (no observation); `before`: what earlier calls of the same turn added. */
  private async finalStep(r: ToolReply, before?: { reward: number; metrics: Record<string, number> }): Promise<StepResult> {
    const s = r.structuredContent!
    const metrics = { ...s.metrics }
    if (before) for (const [k, v] of Object.entries(before.metrics)) if (k !== 'turn') metrics[k] = (metrics[k] ?? 0) + v
    metrics.turn = this.turns
    if (this.malformed > 0) metrics.malformed_turns = this.malformed
    await this.close()
    return { observation: [], reward: s.reward + (before?.reward ?? 0), terminated: s.terminated, truncated: s.truncated, ...(s.stopReason ? { stopReason: s.stopReason as StopReason } : {}), metrics, logs: { ...s.logs } }
  }

  /** The run's maxTurns counts the malformed turns the server never saw: reaching it with one of them ends the episode
   *  here, as no answer (reward 0). Without malformed turns the server's own budget has already ended it. */
  private async turnLimit(r: StepResult): Promise<StepResult> {
    if (this.malformed === 0 || this.turns < this.gym.budgets.maxTurns) return r
    await this.close()
    return { observation: [], reward: r.reward, terminated: false, truncated: true, stopReason: 'max_turns', metrics: { ...r.metrics, [`budget/max_turns`]: 1, malformed_turns: this.malformed }, logs: { ...r.logs, stop: `no answer after ${this.gym.budgets.maxTurns} assistant turns (${this.malformed} of them malformed, answered by the MCP client)` } }
  }
}

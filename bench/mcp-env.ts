// bench/mcp-env: `bench run --via mcp` — envs that play each question through the gym's MCP server as an agent harness
// would: one `searchgym gym mcp DIR --http --port 0` child per world folder for the whole run (loopback, a random
// token), an MCP session per question (its endpoint URL names the question: ?qa=ID), driven by the official SDK client.
// The policy's turn is parsed with the run's protocol; each tool call becomes an MCP tools/call, an <answer> the answer
// tool. Rewards, metrics, budgets and the end of the episode are the server's (its env is the env API's). A malformed
// turn never reaches the server (an MCP client sends only well-formed calls): it gets the protocol's corrective note
// here and counts as a turn of the run's maxTurns. Knows nothing of policies or run folders; the SDK loads only here.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { getProtocol, type AssistantAction, type ChatMessage, type Env, type GymOptions, type GymOptionsJson, type Observation, type ParsedTurn, type StepResult, type StopReason } from '../gym'
import { BenchError } from '../infra/errors'
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
  /** Sessions open at once (the run's concurrency). */
  maxSessions: number
  /** How long a server may take to start (default 120 s). */
  startMs?: number
}

/** An Env that must be closed (its MCP session); closing twice is fine. */
export interface ClosableEnv extends Env {
  close(): Promise<void>
}

export interface McpEnvs {
  /** runBench's makeEnv: a connected MCP session for the question (its world's server started on first use). */
  makeEnv(qa: Qa, gym: GymOptions): Promise<ClosableEnv>
  /** Stop every server started (by its process). */
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
  /** The step's gold signals while the episode runs (gym/mcp-server keeps them out of structuredContent). */
  _meta?: { 'searchgym/signals'?: Record<string, number> }
}

const textOf = (r: ToolReply) => (r.content ?? []).map((c) => c.text ?? '').join('\n')

interface McpChild {
  url: string
  proc: ChildProcess
}

/** Servers still running: a run that exits without closing them (an error thrown past it, process.exit) takes them with it. */
const RUNNING = new Set<ChildProcess>()
process.once('exit', () => {
  for (const p of RUNNING) p.kill('SIGKILL')
})

/** `gym mcp DIR --http --port 0` as a child; resolves with its endpoint once it listens. */
function startServer(o: McpEnvOptions, dir: string, token: string): Promise<McpChild> {
  const args = [...o.cli.args, 'gym', 'mcp', dir, '--http', '--port', '0', '--set', `maxSessions=${o.maxSessions}`, '--set', `idleSeconds=${7 * 24 * 3600}`, ...(o.options ? ['--set', `gym=${JSON.stringify(o.options)}`] : [])]
  // The token through the environment, not the command line (which other users of the machine can read).
  const proc = spawn(o.cli.command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SEARCHGYM_TOKEN: token, SEARCHGYM_QUIET: '1' } })
  RUNNING.add(proc)
  proc.once('exit', () => RUNNING.delete(proc))
  return new Promise((resolve, reject) => {
    let err = ''
    const fail = (why: string) => {
      clearTimeout(timer)
      proc.kill('SIGKILL')
      reject(new BenchError('bench.mcp', `gym mcp ${dir} --http did not start: ${why}`))
    }
    const timer = setTimeout(() => fail(`no endpoint within ${(o.startMs ?? 120_000) / 1000} s`), o.startMs ?? 120_000)
    proc.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-8000)
      const m = / on (http:\/\/\S+\/mcp)/.exec(err)
      if (m) {
        clearTimeout(timer)
        proc.stderr!.removeAllListeners('data')
        proc.stderr!.resume()
        resolve({ url: m[1], proc })
      }
    })
    proc.once('error', (e) => fail(e.message))
    proc.once('exit', (code) => fail(`exit ${code}: ${err.trim().split('\n').pop() ?? ''}`))
  })
}

/** Envs played through `gym mcp --http` servers: one per world folder for the whole run, a session per question. */
export function mcpEnvs(o: McpEnvOptions): McpEnvs {
  const token = randomBytes(24).toString('hex')
  const servers = new Map<string, Promise<McpChild>>()
  const serverFor = (dir: string) => {
    let s = servers.get(dir)
    if (!s) servers.set(dir, (s = startServer(o, dir, token)))
    return s
  }
  return {
    async makeEnv(qa, gym) {
      const { dir, qaId } = o.home(qa)
      const { url } = await serverFor(dir)
      const transport = new StreamableHTTPClientTransport(new URL(`${url}?qa=${encodeURIComponent(qaId)}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
      const client = new Client({ name: 'searchgym-bench', version: '0.1.0' })
      try {
        await client.connect(transport)
      } catch (e) {
        throw new BenchError('bench.mcp', `gym mcp ${dir}: no MCP session for question ${qaId}: ${(e as Error).message}`, { cause: e })
      }
      return new McpClientEnv(client, transport, gym)
    },
    async close() {
      const started = await Promise.allSettled([...servers.values()])
      servers.clear()
      await Promise.all(
        started.map((r) =>
          r.status === 'fulfilled' && r.value.proc.exitCode === null && r.value.proc.signalCode === null
            ? new Promise<void>((done) => {
                r.value.proc.once('exit', () => done())
                r.value.proc.kill('SIGTERM')
              })
            : undefined,
        ),
      )
    },
  }
}

class McpClientEnv implements ClosableEnv {
  private readonly protocol
  private readonly ctx
  private turns = 0
  private malformed = 0
  private ended = false
  private closed = false

  constructor(
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
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
      // The harness's own record: the step's metrics with its gold signals (sent beside them while the episode runs).
      for (const [k, v] of Object.entries({ ...(r._meta?.['searchgym/signals'] ?? {}), ...s.metrics })) metrics[k] = k === 'turn' ? v : (metrics[k] ?? 0) + v
      Object.assign(logs, s.logs)
      // The server ended the episode (a budget): its final step, with the counts of this turn's earlier calls.
      if (s.terminated || s.truncated) return this.finalStep(r, { reward: reward - s.reward, metrics })
      observation.push(this.protocol.toolResult(call, textOf(r)))
    }
    return this.turnLimit({ observation, reward, terminated: false, truncated: false, metrics: { ...metrics, turn: this.turns }, logs })
  }

  /** End the MCP session (the server frees its env), then the client. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.ended = true
    await this.transport.terminateSession().catch(() => {})
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

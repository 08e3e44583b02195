// tests/gym-mcp: the real `searchgym gym mcp` driven by the MCP SDK's own client, over stdio and over streamable HTTP on
// loopback — the tools and their schemas, the question as a prompt and a resource, an oracle episode scored 1.0, a wrong
// answer 0, a budget overrun truncated; over HTTP a request without the token, with a foreign Host or Origin refused;
// bad flags and a bad world refused in one line before any work; over HTTP a session plays the question its endpoint
// URL names. The episode's score is the env API's: the same
// actions played over `gym serve`'s env routes (in process) end with the same reward and metrics.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { ORACLE_MAX_QUERIES_PER_PAGE, worldOracleKnowledge, type OracleKnowledge } from '../agent'
import { oraclePlan } from '../agent/oracle/oracle-plan'
import { openGymWorld, startGymServer } from '../gym'
import { openWorld, readQa, type Qa } from '../world'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TOKEN = 'mcp-test-token'
/** Room for the oracle's walk (it retries searches), far under the default's 16 turns x the tiny world's hops. */
const OPTIONS = JSON.stringify({ budgets: { maxTurns: 40 } })

interface ToolResult {
  content: { type: string; text?: string }[]
  structuredContent?: { reward: number; terminated: boolean; truncated: boolean; stopReason?: string; metrics: Record<string, number>; logs: Record<string, string> }
  isError?: boolean
}

const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n')

let dir: string
let qa: Qa
let knowledge: OracleKnowledge
const closeLater: (() => void)[] = []

beforeAll(async () => {
  dir = (await sharedTinyWorld()).dir
  const w = openWorld(dir)
  // A short question (the oracle's walk stays well inside 40 turns).
  qa = readQa(w.db).find((q) => q.split === 'train' && q.hops <= 2)!
  knowledge = worldOracleKnowledge(w)
  closeLater.push(() => w.close())
}, 300_000)
afterAll(() => closeLater.forEach((f) => f()))

/** Play the oracle's walk through the client's tools; returns every action (as the env API's step body) and the last result. */
async function playOracle(client: Client): Promise<{ actions: unknown[]; last: ToolResult }> {
  const gen = oraclePlan(qa, knowledge, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE })
  const actions: unknown[] = []
  let r = gen.next('')
  for (let turn = 0; turn < 40; turn++) {
    if (r.done) {
      actions.push({ text: `<answer>${r.value}</answer>` })
      return { actions, last: (await client.callTool({ name: 'answer', arguments: { answer: r.value } })) as ToolResult }
    }
    const call = r.value
    actions.push({ text: '', tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] })
    const res = (await client.callTool({ name: call.name, arguments: call.arguments })) as ToolResult
    expect(res.structuredContent?.terminated).toBe(false)
    r = gen.next(textOf(res))
  }
  throw new Error('the oracle did not answer within 40 turns')
}

function stdioClient(extra: string[]): { client: Client; connect: () => Promise<void> } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'gym', 'mcp', dir, '--qa', qa.id, ...extra],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), SEARCHGYM_QUIET: '1' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'searchgym-test', version: '0.0.0' })
  return { client, connect: () => client.connect(transport) }
}

async function checkTools(client: Client) {
  const { tools } = await client.listTools()
  const by = new Map(tools.map((t) => [t.name, t]))
  expect([...by.keys()].sort()).toEqual(['access', 'answer', 'search'])
  expect(by.get('search')!.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] })
  expect(by.get('access')!.inputSchema).toMatchObject({ type: 'object', properties: { url: { type: 'string' }, page: { type: 'integer' } }, required: ['url'] })
  expect(by.get('answer')!.inputSchema).toMatchObject({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] })
  for (const t of tools) expect(t.outputSchema).toMatchObject({ type: 'object', properties: { reward: { type: 'number' }, truncated: { type: 'boolean' } } })
  const prompt = await client.getPrompt({ name: 'question' })
  expect(JSON.stringify(prompt.messages)).toContain(JSON.stringify(qa.question).slice(1, -1))
  const res = await client.readResource({ uri: 'searchgym://question' })
  expect(res.contents[0]).toMatchObject({ uri: 'searchgym://question', text: qa.question })
}

/** The same actions over the env API (gym serve's routes, in process): its final step result. */
async function envApiFinal(actions: unknown[]): Promise<{ reward: number; metrics: Record<string, number>; stopReason?: string }> {
  const world = await openGymWorld(dir)
  const s = await startGymServer(world, { port: 0 })
  try {
    const post = async (path: string, body: unknown) => (await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
    const created = (await post('/v1/envs', { qaId: qa.id, options: { protocol: 'openai', budgets: { maxTurns: 40 } } })) as { envId: string }
    let last: { reward: number; metrics: Record<string, number>; stopReason?: string } | undefined
    for (const action of actions) last = (await post(`/v1/envs/${created.envId}/step`, { action })) as typeof last
    return last!
  } finally {
    await s.close()
    await world.close()
  }
}

describe('gym mcp over stdio', () => {
  test('tools with schemas, the question; an oracle episode scores 1.0, as the env API scores it; then the episode is over', async () => {
    const { client, connect } = stdioClient(['--options', OPTIONS])
    await connect()
    try {
      await checkTools(client)
      const { actions, last } = await playOracle(client)
      expect(last.structuredContent).toMatchObject({ reward: 1, terminated: true, truncated: false, stopReason: 'answer' })
      expect(last.structuredContent!.metrics.f1).toBe(1)
      expect(textOf(last)).toMatch(/episode has ended: answered; reward 1/)
      const api = await envApiFinal(actions)
      expect(api.reward).toBe(last.structuredContent!.reward)
      expect(api.stopReason).toBe('answer')
      for (const k of ['f1', 'em', 'turn']) expect(last.structuredContent!.metrics[k]).toBe(api.metrics[k])
      const after = (await client.callTool({ name: 'search', arguments: { query: 'anything' } })) as ToolResult
      expect(after.isError).toBe(true)
      expect(after.structuredContent!.reward).toBe(0)
    } finally {
      await client.close()
    }
  }, 60_000)

  test('a wrong answer scores 0; a budget overrun is truncated', async () => {
    const wrong = stdioClient([])
    const tight = stdioClient(['--options', JSON.stringify({ budgets: { maxTurns: 2 } })])
    await Promise.all([wrong.connect(), tight.connect()])
    try {
      const w = (await wrong.client.callTool({ name: 'answer', arguments: { answer: 'certainly not the gold answer xyzzy' } })) as ToolResult
      expect(w.structuredContent).toMatchObject({ reward: 0, terminated: true, truncated: false })
      expect(w.structuredContent!.metrics.f1).toBe(0)
      const first = (await tight.client.callTool({ name: 'search', arguments: { query: qa.question } })) as ToolResult
      expect(first.structuredContent).toMatchObject({ terminated: false, truncated: false })
      const second = (await tight.client.callTool({ name: 'search', arguments: { query: qa.question } })) as ToolResult
      expect(second.structuredContent).toMatchObject({ reward: 0, terminated: false, truncated: true, stopReason: 'max_turns' })
      expect(textOf(second)).toMatch(/cut \(max_turns/)
    } finally {
      await Promise.all([wrong.client.close(), tight.client.close()])
    }
  }, 60_000)
})

/** The status of a POST sent with exactly these headers (node:http: fetch may not set Host). */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: 'POST', path: u.pathname + u.search, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** `gym mcp DIR --http --port 0 ARGS` as a child process; resolves with its /mcp URL once it listens. */
function startHttp(args: string[]): Promise<{ url: string; proc: ChildProcess; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, 'gym', 'mcp', dir, '--qa', qa.id, '--http', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`gym mcp --http did not start: ${err}`))
    }, 60_000)
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve({ url: m[1], proc: p, stop: () => new Promise<void>((done) => (p.exitCode !== null ? done() : (p.once('close', () => done()), p.kill('SIGTERM')))) })
      }
    })
    p.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gym mcp --http exited with ${code}: ${err}`))
    })
  })
}

describe('gym mcp over streamable HTTP', () => {
  test('a session per episode: the oracle 1.0, a wrong answer 0, a budget overrun truncated; no token, a foreign Host or Origin refused', async () => {
    const server = await startHttp(['--token', TOKEN, '--options', OPTIONS])
    const session = async () => {
      const client = new Client({ name: 'searchgym-test', version: '0.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
      return client
    }
    try {
      const [oracle, wrong, long] = await Promise.all([session(), session(), session()])
      await checkTools(oracle)
      const { last } = await playOracle(oracle)
      expect(last.structuredContent).toMatchObject({ reward: 1, terminated: true, stopReason: 'answer' })
      const w = (await wrong.callTool({ name: 'answer', arguments: { answer: 'certainly not the gold answer xyzzy' } })) as ToolResult
      expect(w.structuredContent).toMatchObject({ reward: 0, terminated: true })
      let r: ToolResult | undefined
      for (let i = 0; i < 40; i++) r = (await long.callTool({ name: 'search', arguments: { query: `query ${i}` } })) as ToolResult
      expect(r!.structuredContent).toMatchObject({ reward: 0, truncated: true, stopReason: 'max_turns' })
      await Promise.all([oracle.close(), wrong.close(), long.close()])

      // The SDK's client without the token: refused at connect.
      const anon = new Client({ name: 'searchgym-test', version: '0.0.0' })
      await expect(anon.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow(/401|unauthorized|token/i)
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
      const post = (headers: Record<string, string>) => rawPost(server.url, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers }, init)
      expect(await post({ authorization: 'Bearer wrong' })).toBe(401)
      expect(await post({ host: 'evil.example' })).toBe(421)
      expect(await post({ origin: 'http://evil.example' })).toBe(403)
      expect(await post({ 'content-type': 'text/plain' })).toBe(415)
      expect(await post({})).toBe(200)
    } finally {
      await server.stop()
    }
  }, 60_000)
})

test('one HTTP server, many questions: a session plays the question its endpoint URL names (?qa=ID, ?split=S&index=N)', async () => {
  const server = await startHttp([])
  try {
    const w = openWorld(dir)
    const gw = await openGymWorld(dir)
    const bench1 = gw.listQa('bench')[1]
    await gw.close()
    const other = readQa(w.db).find((q) => q.id !== qa.id && q.split === 'train')!
    w.close()
    const question = async (query: string) => {
      const client = new Client({ name: 'searchgym-test', version: '0.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}${query}`)))
      const res = await client.readResource({ uri: 'searchgym://question' })
      await client.close()
      return (res.contents[0] as { text: string }).text
    }
    expect(await question('')).toBe(qa.question)
    expect(await question(`?qa=${encodeURIComponent(other.id)}`)).toBe(other.question)
    expect(await question('?split=bench&index=1')).toBe(bench1.question)
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    expect(await rawPost(`${server.url}?qa=no-such-question`, headers, init)).toBe(404)
    expect(await rawPost(`${server.url}?split=bench&index=100000`, headers, init)).toBe(404)
  } finally {
    await server.stop()
  }
}, 60_000)

test('bad flags and a bad world are one-line errors before any work', async () => {
  const [opts, world, proto] = await Promise.all([
    runCli(['gym', 'mcp', dir, '--set', 'gym={not json']),
    runCli(['gym', 'mcp', `${dir}-missing`]),
    runCli(['gym', 'mcp', dir, '--set', 'gym={"protocol":"hermes"}']),
  ])
  for (const r of [opts, world, proto]) {
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  }
  expect(opts.stderr).toMatch(/gym \(--set\) must be a JSON object/)
  expect(proto.stderr).toMatch(/may not set "protocol"/)
}, 60_000)

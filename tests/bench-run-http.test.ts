// tests/bench-run-http: the bench harness over real HTTP through the official openai client against the replay
// fixture server — tool_calls and text protocol, 429/5xx retries, timeouts, malformed model output.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OpenAiPolicy } from '../agent/policy/openai'
import { runBench } from '../bench/run'
import type { BenchRunConfig, TrajectoryRecord } from '../bench/types'
import { scoreAnswer } from '../gym'
import { fixtureWorld, makeFixtureWorldData } from './fixtures/bench-fixture-world'
import { fixtureSolver, scriptedResponder, startReplayServer, type ReplayServer } from './fixtures/replay-server'

const dirs: string[] = []
const servers: ReplayServer[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'bench-http-'))
  dirs.push(d)
  return d
}

function config(over: Partial<BenchRunConfig>): BenchRunConfig {
  return {
    world: 'fixture', worldId: 'fixture-world-v1', split: 'bench', policy: 'openai', model: 'replay', baseURL: '', apiKeyEnv: 'OPENAI_API_KEY',
    protocol: 'openai', limit: null, concurrency: 4, seed: 7, timeoutMs: 2000, maxRetries: 3, temperature: null, maxTokens: null,
    ragDocs: 3, prices: null, judge: null, gym: { budgets: { maxTurns: 12 } }, bootstrap: 200, ...over,
  }
}

function records(out: string): TrajectoryRecord[] {
  return readFileSync(join(out, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TrajectoryRecord)
}

async function serve(...args: Parameters<typeof scriptedResponder>): Promise<ReplayServer> {
  const s = await startReplayServer(scriptedResponder(...args))
  servers.push(s)
  return s
}

describe.each(['openai', 'hermes'] as const)('protocol %s', (protocol) => {
  it('solves every fixture question through the official client and records turns, tools and tokens', async () => {
    const server = await serve(fixtureSolver(protocol))
    const out = tmp()
    const cfg = config({ protocol: protocol, baseURL: server.url })
    const policy = new OpenAiPolicy({ baseURL: server.url, model: 'replay', protocol, seed: 7, baseBackoffMs: 1, maxBackoffMs: 5 })
    const res = await runBench(out, cfg, { world: fixtureWorld('fx', makeFixtureWorldData(8)), policyFor: () => policy, scorer: scoreAnswer, quiet: true })
    expect(res.ran).toBe(8)
    expect(res.summary.overall.em.mean).toBe(1)
    expect(res.summary.tools.searchPerQuestion).toBe(1)
    expect(res.summary.tools.accessPerQuestion).toBe(1)
    expect(res.summary.tools.turnsPerQuestion).toBe(3)
    expect(res.summary.tools.formatValidRate).toBe(1)
    const recs = records(out)
    expect(recs).toHaveLength(8)
    const r = recs[0]
    expect(r.turns).toHaveLength(3)
    expect(r.turns[0].promptTokens).toBeGreaterThan(0)
    expect(r.tokens.completion).toBeGreaterThan(0)
    if (protocol === 'openai') {
      expect(r.turns[0].tool_calls?.[0].function.name).toBe('search')
      // native tools were offered and tool results went back as `tool` messages
      expect(server.requests[0].tools).toHaveLength(2)
      expect(server.requests.some((q) => q.messages.some((m) => m.role === 'tool' && m.tool_call_id))).toBe(true)
    } else {
      expect(r.turns[0].text).toContain('<tool_call>')
      expect(server.requests.every((q) => q.tools === undefined)).toBe(true)
      expect(server.requests.every((q) => q.messages.every((m) => m.role !== 'tool'))).toBe(true)
      expect(server.requests.some((q) => q.messages.some((m) => m.role === 'user' && m.content?.startsWith('<tool_response>\n')))).toBe(true)
    }
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## Accuracy')
  })
})

it('retries 429 and 5xx with backoff and counts them apart from model mistakes', async () => {
  const server = await serve(fixtureSolver('openai'), [{ status: 429, headers: { 'retry-after-ms': '1' } }, { status: 503 }, { status: 500 }])
  const out = tmp()
  const policy = new OpenAiPolicy({ baseURL: server.url, model: 'replay', protocol: 'openai', seed: 7, baseBackoffMs: 1, maxBackoffMs: 5 })
  const res = await runBench(out, config({ baseURL: server.url, concurrency: 1, limit: 2 }), { world: fixtureWorld('fx', makeFixtureWorldData(4)), policyFor: () => policy, scorer: scoreAnswer, quiet: true })
  expect(res.summary.overall.em.mean).toBe(1)
  expect(res.summary.endpoint.rateLimited).toBe(1)
  expect(res.summary.endpoint.serverErrors).toBe(2)
  expect(res.summary.endpoint.retries).toBe(3)
  expect(res.summary.tools.malformedTurnRate).toBe(0)
  expect(res.summary.endpoint.failedQuestions).toBe(0)
})

it('times out a hung request, retries it, and records a question lost after all retries as an endpoint failure', async () => {
  const hang = { delayMs: 5000, content: 'late' }
  const server = await serve(fixtureSolver('hermes'), [hang, hang, hang])
  const out = tmp()
  const policy = new OpenAiPolicy({ baseURL: server.url, model: 'replay', protocol: 'hermes', seed: 7, timeoutMs: 150, maxRetries: 1, baseBackoffMs: 1, maxBackoffMs: 5 })
  const res = await runBench(out, config({ protocol: 'hermes', baseURL: server.url, concurrency: 1, limit: 2, timeoutMs: 150, maxRetries: 1 }), {
    world: fixtureWorld('fx', makeFixtureWorldData(4)), policyFor: () => policy, scorer: scoreAnswer, quiet: true,
  })
  const recs = records(out)
  expect(recs[0].status).toBe('infra_error')
  expect(recs[0].infra.timeouts).toBe(2)
  expect(recs[0].error).toMatch(/timeout/)
  // the second question: one more timeout, then it succeeds
  expect(recs[1].status).toBe('ok')
  expect(recs[1].em).toBe(1)
  expect(res.summary.endpoint.timeouts).toBe(3)
  expect(res.summary.endpoint.failedQuestions).toBe(1)
  expect(res.summary.completedOnly.em.mean).toBe(1)
  expect(res.summary.overall.em.mean).toBe(0.5)
  expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('Reliability warning')
})

it('counts malformed model output (no tool call, no answer; bad tool JSON) as model mistakes and bad bodies as endpoint errors', async () => {
  let n = 0
  const server = await serve((q, turn) => {
    n++
    if (turn === 0) return { content: 'I think the answer is somewhere.' }
    if (turn === 1) return { content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'search', arguments: '{not json' } }] }
    return { content: '<answer>nowhere</answer>' }
  }, [{ raw: 'this is not json' }])
  const out = tmp()
  const policy = new OpenAiPolicy({ baseURL: server.url, model: 'replay', protocol: 'openai', seed: 7, baseBackoffMs: 1, maxBackoffMs: 5, maxRetries: 2 })
  const res = await runBench(out, config({ baseURL: server.url, concurrency: 1, limit: 1 }), { world: fixtureWorld('fx', makeFixtureWorldData(2)), policyFor: () => policy, scorer: scoreAnswer, quiet: true })
  const [r] = records(out)
  expect(n).toBe(3)
  expect(r.status).toBe('ok')
  expect(r.counts.malformed).toBe(2)
  expect(r.em).toBe(0)
  expect(r.formatValid).toBe(true)
  expect(res.summary.tools.malformedTurnRate).toBeCloseTo(2 / 3)
  // the unparseable body is an endpoint problem, retried, not a model mistake
  expect(r.infra.attempts).toBe(4)
})

it('reports the gym\'s injected tool timeouts, 429s and failures apart from endpoint failures', async () => {
  const server = await serve((q, turn) => {
    if (turn === 0) return { content: '<tool_call>{"name": "search", "arguments": {"query": "Arin"}}</tool_call>' }
    if (turn === 1) return { content: '<tool_call>{"name": "access", "arguments": {"url": "https://fixture.wiki/person/0"}}</tool_call>' }
    return { content: '<answer>x</answer>' }
  })
  const policy = new OpenAiPolicy({ baseURL: server.url, model: 'replay', protocol: 'hermes', seed: 7 })
  const world = fixtureWorld('fx', makeFixtureWorldData(2))
  const a = await runBench(tmp(), config({ protocol: 'hermes', baseURL: server.url, gym: { faults: { searchTimeout: 1, accessFailure: 1 } } }), { world, policyFor: () => policy, scorer: scoreAnswer, quiet: true })
  expect(a.summary.tools.toolCallsPerQuestion).toBe(2)
  expect(a.summary.tools.toolTimeoutRate).toBeCloseTo(1 / 2)
  expect(a.summary.tools.toolErrorRate).toBeCloseTo(1 / 2)
  expect(a.summary.tools.toolSuccessRate).toBe(0)
  expect(a.summary.endpoint.retries).toBe(0)
  expect(readFileSync(join(a.outDir, 'report.md'), 'utf8')).toMatch(/tool success rate 0\.0%/)
  const b = await runBench(tmp(), config({ protocol: 'hermes', baseURL: server.url, gym: { faults: { searchRateLimit: 1 } } }), { world, policyFor: () => policy, scorer: scoreAnswer, quiet: true })
  expect(b.summary.tools.toolRateLimitRate).toBeCloseTo(1 / 2)
  expect(b.summary.tools.toolErrorRate).toBeCloseTo(1 / 2)
})

// tests/bench-local-engine: the bench against the project's own local engine served as an OpenAI-compatible API
// (searchgym model serve: a tiny random Qwen3-shaped model, world tokenizer) over real HTTP through the official
// client — sampling (a random model: malformed turns, the run still completes) and the engine's fixture-reply mode
// (forced decoding of scripted turns; the engine parses Hermes tool calls into native tool_calls).
import Database from 'better-sqlite3'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { initModel, serveModel, type ServedModel } from '../infra/engine'
import { OpenAiPolicy } from '../agent/policy/openai'
import { runBench } from '../bench/run'
import type { BenchRunConfig, TrajectoryRecord } from '../bench/types'
import { scoreAnswer as scorer } from '../gym'
import { fixtureWorld, makeFixtureWorldData } from './fixtures/bench-fixture-world'
import { FixtureReplyGenerator, readFixtureReplies } from './fixtures/fixture-replies'
import { worldTokenizer } from './helpers/world-texts'

const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'))
const servers: ServedModel[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
  rmSync(dir, { recursive: true, force: true })
})

const data = makeFixtureWorldData(4)
let modelDir = ''
beforeAll(() => {
  // The world tokenizer reads docs(url, entity_id, title, text) from a world database.
  const w = join(dir, 'docs-world')
  mkdirSync(w)
  const db = new Database(join(w, 'world.db'))
  db.exec('CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT, title TEXT, text TEXT)')
  const ins = db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?)')
  for (const d of data.docs) ins.run(d.url, d.url, d.title, d.text)
  db.close()
  modelDir = join(dir, 'model')
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(w), out: modelDir, seed: 0 })
})

function config(over: Partial<BenchRunConfig>): BenchRunConfig {
  return {
    world: 'fixture', worldId: data.id, split: 'bench', policy: 'openai', model: 'model', baseURL: '', apiKeyEnv: 'X', protocol: 'hermes', limit: 2,
    concurrency: 1, seed: 0, timeoutMs: 60000, maxRetries: 1, temperature: null, maxTokens: 12, ragDocs: 3, prices: null, judge: null,
    gym: { budgets: { maxTurns: 3 } }, bootstrap: 100, ...over,
  }
}

it('runs against a sampling local engine: every question completes, tokens are counted, no endpoint failures', async () => {
  const s = await serveModel({ dir: modelDir, port: 0, seed: 0, defaultMaxTokens: 12 })
  servers.push(s)
  const policy = new OpenAiPolicy({ baseURL: `${s.url}/v1`, model: 'model', protocol: 'hermes', maxTokens: 12, timeoutMs: 60000, maxRetries: 1 })
  const out = join(dir, 'sampled')
  const res = await runBench(out, config({ baseURL: `${s.url}/v1` }), { world: fixtureWorld('fx', data), policyFor: () => policy, scorer, quiet: true })
  expect(res.summary.questions).toBe(2)
  expect(res.summary.status).toEqual({ ok: 2, infra_error: 0, error: 0 })
  expect(res.summary.endpoint.retries).toBe(0)
  expect(res.summary.tokens.prompt).toBeGreaterThan(0)
  expect(res.summary.tokens.completion).toBeGreaterThan(0)
  expect(res.summary.tools.turnsPerQuestion).toBeGreaterThanOrEqual(1)
  expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## Accuracy')
})

it('solves a question through the engine server in fixture-reply mode with native tool_calls', async () => {
  const replies = join(dir, 'replies.json')
  writeFileSync(
    replies,
    JSON.stringify([
      '<tool_call>\n{"name": "search", "arguments": {"query": "Arin Castell0"}}\n</tool_call>',
      '<tool_call>\n{"name": "access", "arguments": {"url": "https://fixture.wiki/person/0"}}\n</tool_call>',
      '<answer>Velmora0</answer>',
    ]),
  )
  const s = await serveModel({ dir: modelDir, port: 0, seed: 0, generator: (tok, score) => new FixtureReplyGenerator(tok, readFixtureReplies(replies), score) })
  servers.push(s)
  const policy = new OpenAiPolicy({ baseURL: `${s.url}/v1`, model: 'model', protocol: 'openai', timeoutMs: 60000, maxRetries: 1 })
  const out = join(dir, 'replayed')
  const res = await runBench(out, config({ baseURL: `${s.url}/v1`, protocol: 'openai', limit: 1, maxTokens: null, gym: { budgets: { maxTurns: 6 } } }), {
    world: fixtureWorld('fx', data), policyFor: () => policy, scorer, quiet: true,
  })
  const [r] = readFileSync(join(out, 'trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TrajectoryRecord)
  expect(r.turns.map((t) => t.tool_calls?.[0]?.function.name ?? 'answer')).toEqual(['search', 'access', 'answer'])
  expect(r.em).toBe(1)
  expect(res.summary.overall.em.mean).toBe(1)
})

// world/write/llm-client.test: the writer's client against a real loopback server (the replay fixture) — the cache
// answers a repeated prompt without a request, 429/5xx are retried with backoff and then stop the build with one
// line, 401 names the key variable, a 400 on one prompt is a per-item refusal, and the token budget stops new calls.
import Database from 'better-sqlite3'
import { startReplayServer, type ReplayServer, type ScriptedReply } from '../../tests/fixtures/replay-server'
import { DEFAULT_WRITE_CONFIG, type WriteConfig } from './write-config'
import { initLlmCacheTable } from './llm-cache'
import { LlmClient } from './llm-client'

let server: ReplayServer
const script: ScriptedReply[] = []
beforeAll(async () => {
  server = await startReplayServer(() => script.shift() ?? { content: 'fine', usage: { prompt_tokens: 10, completion_tokens: 5 } })
})
afterAll(() => server.close())

function client(extra: Partial<WriteConfig> = {}) {
  const db = new Database(':memory:')
  initLlmCacheTable(db)
  const waits: number[] = []
  const cfg: WriteConfig = { ...DEFAULT_WRITE_CONFIG, model: 'm', baseUrl: server.url, keyEnv: 'SG_TEST_KEY', backoffMs: 1, ...extra }
  return { db, waits, c: new LlmClient(db, cfg, { env: {}, sleep: async (ms) => void waits.push(ms) }) }
}
const p = (user: string) => ({ system: 's', user })

test('a cached prompt makes no request; usage and cost are counted', async () => {
  const { c } = client({ price: { inputPerMillion: 1e6, outputPerMillion: 2e6 } })
  const before = server.requests.length
  expect(await c.complete(p('a'), 'docs')).toEqual({ kind: 'reply', text: 'fine', cached: false })
  expect(await c.complete(p('a'), 'docs')).toEqual({ kind: 'reply', text: 'fine', cached: true })
  expect(server.requests.length - before).toBe(1)
  expect(c.stageUsage('docs')).toMatchObject({ calls: 1, cacheHits: 1, promptTokens: 10, completionTokens: 5 })
  expect(c.spent()).toEqual({ tokens: 15, dollars: 20 })
})

test('429 and 500 are retried with doubling backoff; past maxRetries the build stops with one line', async () => {
  const { c, waits } = client({ maxRetries: 2 })
  script.push({ status: 429 }, { status: 500 })
  expect(await c.complete(p('b'), 'docs')).toMatchObject({ kind: 'reply', cached: false })
  expect(waits).toEqual([1, 2])
  expect(c.stageUsage('docs').retries).toBe(2)
  script.push({ status: 503 }, { status: 503 }, { status: 503 })
  await expect(c.complete(p('c'), 'docs')).rejects.toThrow(/failed 3 times \(HTTP 503.*rerun the same build to resume/)
})

test('401 names the key variable; 400 refuses one item only', async () => {
  const { c } = client()
  script.push({ status: 401 })
  await expect(c.complete(p('d'), 'docs')).rejects.toThrow(/set \$SG_TEST_KEY/)
  script.push({ status: 400 })
  expect(await c.complete(p('e'), 'docs')).toMatchObject({ kind: 'refused' })
  expect(await c.complete(p('e'), 'docs')).toMatchObject({ kind: 'reply' }) // not cached: asked again
})

test('the token budget stops new calls but not cache hits', async () => {
  const { c } = client({ budget: { tokens: 20, dollars: 0 } })
  expect(await c.complete(p('f'), 'docs')).toMatchObject({ kind: 'reply' }) // 15 tokens spent
  expect(await c.complete(p('g'), 'docs')).toMatchObject({ kind: 'reply' }) // 30: over
  expect(await c.complete(p('h'), 'docs')).toEqual({ kind: 'budget' })
  expect(await c.complete(p('f'), 'docs')).toMatchObject({ kind: 'reply', cached: true })
  expect(c.stageUsage('docs').budgetSkips).toBe(1)
})

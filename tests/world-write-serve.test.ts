// tests/world-write-serve: the writer against the project's own `searchgym model serve` (a real child process over
// loopback, a tiny RANDOM Qwen3): the model writes noise, so every article must fail the checker and keep its
// template text — the fallback path, proven on a real OpenAI-compatible server. The documents then equal those of a
// build without the writer, byte for byte.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { buildWorld, WORLD_STAGES, type WorldConfig } from '../world'
import { presetConfig } from '../world/config'
import { initModel } from '../infra/engine/init-model'
import { startServe, type ServeProcess } from './helpers/cli-process'
import { writeTinyWorld } from './fixtures/docs-only-world'
import { worldTokenizer } from './helpers/world-texts'

const tmp = mkdtempSync(join(tmpdir(), 'sg-write-serve-'))
let serve: ServeProcess

beforeAll(async () => {
  const modelDir = join(tmp, 'random-tiny')
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(writeTinyWorld(join(tmp, 'tok-world'))), out: modelDir, seed: 3 })
  serve = await startServe([modelDir, '--seed', '7', '--quiet'])
}, 120_000)
afterAll(async () => {
  await serve?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

const docsOf = (dir: string) => {
  const db = new Database(join(dir, 'world.db'), { readonly: true })
  try {
    return {
      docs: db.prepare('SELECT url, text FROM docs ORDER BY url').all() as { url: string; text: string }[],
      facts: db.prepare('SELECT url, seq, ref, sentence FROM doc_facts ORDER BY url, seq').all(),
      outcomes: db.prepare('SELECT outcome, COUNT(*) AS n FROM doc_writes GROUP BY outcome').all() as { outcome: string; n: number }[],
      report: JSON.parse((db.prepare("SELECT report FROM write_report WHERE stage = 'write'").get() as { report: string } | undefined)?.report ?? 'null'),
      cached: (db.prepare('SELECT COUNT(*) AS n FROM llm_cache').get() as { n: number }).n,
    }
  } finally {
    db.close()
  }
}

test('a random model: every article fails the checker and falls back to the template', async () => {
  const base = presetConfig('tiny')
  // Short replies keep a CPU run quick; the checker sees them whole.
  const config: WorldConfig = { ...base, write: { ...base.write, model: 'random-tiny', baseUrl: serve.baseURL, maxTokensPerCall: 24, concurrency: 2 } }
  const stages = WORLD_STAGES.slice(0, 3) // graph, docs, write: the writer's effect is all in the documents
  await buildWorld({ config, dir: join(tmp, 'written'), quiet: true, stages })
  await buildWorld({ config: base, dir: join(tmp, 'plain'), quiet: true, stages })
  const w = docsOf(join(tmp, 'written'))
  const p = docsOf(join(tmp, 'plain'))
  const n = w.docs.length
  expect(n).toBeGreaterThan(50)
  expect(w.cached).toBe(n) // one real call per document, each answered and cached
  expect(w.report.stages.docs).toMatchObject({ calls: n, cacheHits: 0, accepted: 0, fallbacks: n })
  expect(w.report.stages.docs.completionTokens).toBeGreaterThan(0)
  expect(w.outcomes.find((o) => o.outcome === 'model')).toBeUndefined()
  expect(w.outcomes.reduce((a, o) => a + o.n, 0)).toBe(n)
  expect(p.outcomes).toEqual([]) // without a model the stage records nothing
  expect(p.report).toBeNull()
  expect(w.docs).toEqual(p.docs)
  expect(w.facts).toEqual(p.facts)
}, 300_000)

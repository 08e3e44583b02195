/** @jest-environment ./world/search/embed/ort-jest-environment.cjs */
// tests/world-dense: end to end with a dense engine — `world build --search dense --embedder DIR` (a real process,
// a tiny seeded ONNX embedder FIXTURE written here with a tokenizer over the world's texts) verifies every edge with
// dense search, stores the passage vectors and the embedder identity in the world file, serves them (index, gym
// /retrieve), and refuses an engine or embedder the world was not verified with unless told to.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGymServer } from '../gym/server'
import { openGymWorld } from '../gym/open-gym-world'
import { worldTexts } from '../world'
import { Rng } from '../infra/rng'
import { buildWorld } from '../world'
import { loadWorldConfig, presetConfig } from '../world/config'
import { openWorld } from '../world'
import { DenseIndex } from '../world/search/dense'
import { readDenseRecord } from '../world/search/dense-store'
import { Embedder } from '../world/search/embed/embedder'
import { writeTinyEmbedder } from '../world/search/embed/tiny-model'
import { HybridIndex } from '../world/search/hybrid'
import { openSearchIndex, readSearchDocs } from '../world/indexing/open'

const root = mkdtempSync(join(tmpdir(), 'searchgym-dense-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const lexicalDir = join(root, 'lexical')
const model = join(root, 'model')
const otherModel = join(root, 'other-model')
const denseDir = join(root, 'dense')

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/searchgym.mjs', ...args], { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })

beforeAll(async () => {
  await buildWorld({ config: presetConfig('tiny'), dir: lexicalDir, quiet: true })
  writeTinyEmbedder(model, { texts: [...worldTexts(lexicalDir)], hidden: 128, seed: 1 })
  writeTinyEmbedder(otherModel, { texts: [...worldTexts(lexicalDir)], hidden: 128, seed: 2 })
  const r = run('world', 'build', '--preset', 'tiny', '--search', 'dense', '--embedder', model, '--out', denseDir)
  if (r.status !== 0) throw new Error(`dense build failed: ${r.stderr}`)
})

describe('world build --search dense', () => {
  it('verifies every edge with the dense engine and records the embedder and vectors in the world file', async () => {
    const stats = JSON.parse(execFileSync(process.execPath, ['bin/searchgym.mjs', 'world', 'stats', denseDir, '--json'], { encoding: 'utf8' }))
    expect(stats.complete).toBe(true)
    expect(stats.checkedEdges).toBe(stats.edges)
    expect(stats.verification.engine).toBe('dense')
    const e = await Embedder.load(model)
    const w = openWorld(denseDir)
    try {
      const rec = readDenseRecord(w.db)!
      expect(rec.embedder.name).toBe('searchgym-tiny-128')
      expect(rec.embedder.fileHash).toBe(e.identity.fileHash)
      const docs = readSearchDocs(w.db)
      const n = (w.db.prepare('SELECT COUNT(DISTINCT url) AS n FROM dense_vectors').get() as { n: number }).n
      expect(n).toBe(docs.length)
      expect(rec.passages).toBeGreaterThanOrEqual(docs.length)
      // The served index (stored vectors) ranks exactly as a fresh embedding of the same documents.
      const served = await openSearchIndex(w)
      const fresh = new DenseIndex(e, { quiet: true, ownsEmbedder: false })
      await fresh.upsert(docs)
      const qs = docs.slice(0, 8).map((d) => d.title)
      expect(served).toBeInstanceOf(DenseIndex)
      expect(await served.searchMany(qs, { k: 5 })).toEqual(await fresh.searchMany(qs, { k: 5 }))
      // Kept edges: their stored queries, re-run on the served index, find d_v in the top-K at least minHits times.
      const { topK, minHits } = w.config.verification
      const kept = (w.db.prepare('SELECT edge_id FROM edge_verification WHERE kept = 1 ORDER BY edge_id').all() as { edge_id: string }[]).map((r) => r.edge_id)
      expect(kept.length).toBeGreaterThan(0)
      for (const id of new Rng(5).sample(kept, Math.min(10, kept.length))) {
        const queries = (w.db.prepare('SELECT query FROM verification_queries WHERE edge_id = ? ORDER BY qi').all(id) as { query: string }[]).map((r) => r.query)
        const url = (w.db.prepare('SELECT t.url FROM edges e JOIN entities t ON t.id = e.target WHERE e.id = ?').get(id) as { url: string }).url
        const found = (await served.searchMany(queries, { k: topK, snippet: false })).filter((hs) => hs.some((h) => h.url === url)).length
        expect(found).toBeGreaterThanOrEqual(minHits)
      }
      await served.close()
      await fresh.close()
    } finally {
      w.close()
      await e.close()
    }
  })

  it('refuses another engine or embedder unless allowed', async () => {
    const w = openWorld(denseDir)
    try {
      await expect(openSearchIndex(w, { engine: 'embedded' })).rejects.toThrow(/verified with the dense engine, not embedded/)
      await expect(openSearchIndex(w, { embedder: otherModel })).rejects.toThrow(/vectors were made with embedder/)
      const lexical = await openSearchIndex(w, { engine: 'embedded', allowEngineMismatch: true })
      expect(lexical.engine).toBe('embedded')
      await lexical.close()
      const hybrid = await openSearchIndex(w, { engine: 'hybrid', allowEngineMismatch: true })
      expect(hybrid).toBeInstanceOf(HybridIndex)
      expect((await hybrid.search(readSearchDocs(w.db)[0].title, { k: 3 })).length).toBe(3)
      await hybrid.close()
    } finally {
      w.close()
    }
    const r = run('gym', 'serve', denseDir, '--search', 'embedded', '--port', '0')
    expect(r.status).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/verified with the dense engine.*--allow-engine-mismatch/)
  })

  it('serves the dense engine on /retrieve', async () => {
    const world = await openGymWorld(denseDir)
    const s = await startGymServer(world, { token: '' })
    try {
      const w = openWorld(denseDir)
      const docs = readSearchDocs(w.db)
      w.close()
      const q = docs[3].title
      const res = await fetch(`${s.url}/retrieve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queries: [q], topk: 3, return_scores: true }) })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { result: { document: { id: string }; score: number }[][] }
      const index = await openSearchIndex(denseDir)
      const want = await index.search(q, { k: 3 })
      await index.close()
      expect(body.result[0].map((r) => r.document.id)).toEqual(want.map((h) => h.url))
      expect(body.result[0].map((r) => r.score)).toEqual(want.map((h) => h.score))
    } finally {
      await s.close()
      await world.close()
    }
  })

  it('rejects bad flags with one clear line', () => {
    expect(() => loadWorldConfig({ preset: 'tiny', search: 'dense' })).toThrow(/--search dense needs --embedder DIR/)
    expect(() => loadWorldConfig({ preset: 'tiny', embedder: model })).toThrow(/--embedder needs the dense or hybrid engine/)
    const c = run('world', 'build', '--preset', 'tiny', '--search', 'hybrid', '--embedder', join(root, 'nope'), '--out', join(root, 'z'))
    expect(c.status).not.toBe(0)
    expect(c.stderr).toMatch(/embedder directory .*nope does not exist/)
    expect(c.stderr.trim().split('\n')).toHaveLength(1)
  })
})

// tests/world-verify-meili: `world build --search meilisearch` against the real Meilisearch 1.21 the project starts:
// every edge verified on that engine, same seed ⇒ same hash, stored queries of kept edges re-run to >= minHits,
// openSearchIndex serves the engine the world was verified with, and an unreachable --meili-url fails clearly.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world/build/build'
import { presetConfig, type WorldConfig } from '../world/config'
import { openWorld } from '../world/store/open'
import { openSearchIndex } from '../world/indexing/open'
import { freePort } from '../world/search/meili-server'

const root = mkdtempSync(join(tmpdir(), 'searchgym-verify-meili-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const meiliTiny = (): WorldConfig => {
  const c = presetConfig('tiny')
  return { ...c, search: { ...c.search, engine: 'meilisearch' } }
}

describe('world build --search meilisearch (real local server)', () => {
  it('verifies every edge with Meilisearch, deterministically, and serves the same engine', async () => {
    const a = await buildWorld({ config: meiliTiny(), dir: join(root, 'a'), quiet: true })
    const b = await buildWorld({ config: meiliTiny(), dir: join(root, 'b'), quiet: true })
    expect(b.hash).toBe(a.hash)
    const emb = await buildWorld({ config: presetConfig('tiny'), dir: join(root, 'emb'), quiet: true })
    expect(emb.hash).not.toBe(a.hash) // verification results are part of the hash
    const w = openWorld(join(root, 'a'))
    const index = await openSearchIndex(w)
    try {
      expect(index.engine).toBe('meilisearch')
      const n = w.db.prepare('SELECT COUNT(*) AS e, (SELECT COUNT(*) FROM edge_verification) AS v FROM edges').get() as { e: number; v: number }
      expect(n.v).toBe(n.e)
      const kept = w.db.prepare('SELECT edge_id FROM edge_verification WHERE kept = 1 ORDER BY edge_id LIMIT 40').all() as { edge_id: string }[]
      expect(kept.length).toBe(40)
      for (const { edge_id } of kept) {
        const qs = w.db.prepare('SELECT query FROM verification_queries WHERE edge_id = ? ORDER BY qi').all(edge_id) as { query: string }[]
        const url = (w.db.prepare('SELECT t.url FROM edges e JOIN entities t ON t.id = e.target WHERE e.id = ?').get(edge_id) as { url: string }).url
        const res = await index.searchMany(qs.map((q) => q.query), { k: 5 })
        expect(res.filter((hits) => hits.some((h) => h.url === url)).length).toBeGreaterThanOrEqual(5)
      }
      const stats = JSON.parse(
        execFileSync(process.execPath, ['bin/searchgym.mjs', 'world', 'stats', join(root, 'a'), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
      )
      expect(stats.verification).toEqual({ queriesPerEdge: 15, minHits: 5, topK: 5, engine: 'meilisearch' })
    } finally {
      await index.close()
      w.close()
    }
  })

  it('fails in one line when --meili-url is unreachable', async () => {
    const port = await freePort()
    let err = ''
    try {
      execFileSync(
        process.execPath,
        ['bin/searchgym.mjs', 'world', 'build', '--preset', 'tiny', '--search', 'meilisearch', '--meili-url', `http://127.0.0.1:${port}`, '--out', join(root, 'bad'), '--quiet'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      )
    } catch (e) {
      err = String((e as { stderr?: string }).stderr)
    }
    expect(err.trim().split('\n')).toHaveLength(1)
    expect(err).toMatch(/cannot reach Meilisearch at http:\/\/127\.0\.0\.1:\d+/)
  })
})

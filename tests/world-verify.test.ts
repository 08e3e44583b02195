// tests/world-verify: end to end — `world build` runs the index and verify stages; every edge is verified, the
// report is written, stats show G*, the same seed gives the same hash (verification included), and the stored
// queries of a sample of kept edges, re-run on the world's own index, find d_v in the top-K for >= minHits.
// The paper preset is built once here (the "must show"); tiny presets check the rest.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { buildWorld } from '../world/build/build'
import { presetConfig } from '../world/config'
import { openWorld } from '../world/store/open'
import { openSearchIndex } from '../world/indexing/open'
import { VERIFY_REPORT_FILE } from '../world/verify/verify-stage'

const root = mkdtempSync(join(tmpdir(), 'searchgym-verify-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const cli = (...args: string[]) =>
  execFileSync(process.execPath, ['bin/searchgym.mjs', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SEARCHGYM_QUIET: '1' } })

/** Re-run the stored queries of `n` sampled kept edges; each must find d_v in the top-K at least minHits times. */
async function recheckKeptEdges(dir: string, n: number): Promise<{ edges: number; minFound: number }> {
  const w = openWorld(dir)
  const index = await openSearchIndex(w)
  try {
    const { topK, minHits } = w.config.verification
    const kept = (w.db.prepare('SELECT edge_id FROM edge_verification WHERE kept = 1 ORDER BY edge_id').all() as { edge_id: string }[]).map((r) => r.edge_id)
    const sample = new Rng(99).sample(kept, n)
    const qStmt = w.db.prepare('SELECT query, rank FROM verification_queries WHERE edge_id = ? ORDER BY qi')
    const target = w.db.prepare('SELECT t.url FROM edges e JOIN entities t ON t.id = e.target WHERE e.id = ?')
    let minFound = Infinity
    for (const id of sample) {
      const qs = qStmt.all(id) as { query: string; rank: number }[]
      expect(qs.length).toBe(w.config.verification.queriesPerEdge)
      const url = (target.get(id) as { url: string }).url
      const results = await index.searchMany(qs.map((q) => q.query), { k: topK })
      const found = results.filter((hits) => hits.some((h) => h.url === url)).length
      expect(found).toBeGreaterThanOrEqual(minHits)
      minFound = Math.min(minFound, found)
    }
    return { edges: sample.length, minFound }
  } finally {
    await index.close()
    w.close()
  }
}

describe('world build with verification (embedded engine)', () => {
  it('paper preset: every edge verified, report written, stored queries of kept edges re-run to >= 5 of 15', async () => {
    const dir = join(root, 'paper')
    await buildWorld({ config: presetConfig('paper'), dir, quiet: true })
    const stats = JSON.parse(cli('world', 'stats', dir, '--json'))
    expect(stats.complete).toBe(true)
    expect(stats.edges).toBeGreaterThan(14000)
    expect(stats.checkedEdges).toBe(stats.edges)
    expect(stats.verification).toEqual({ queriesPerEdge: 15, minHits: 5, topK: 5, engine: 'embedded' })
    expect(stats.verifiedEdges).toBeGreaterThan(0.7 * stats.edges)
    const report = readFileSync(join(dir, VERIFY_REPORT_FILE), 'utf8')
    expect(report).toContain('## Pass rate per relation')
    expect(report).toContain('## Failed edges')
    const w = openWorld(dir)
    try {
      const q = w.db.prepare('SELECT COUNT(*) AS n FROM verification_queries').get() as { n: number }
      expect(q.n).toBe(15 * stats.edges)
      const bad = w.db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept != (hits >= 5)').get() as { n: number }
      expect(bad.n).toBe(0)
    } finally {
      w.close()
    }
    const r = await recheckKeptEdges(dir, 200)
    expect(r.edges).toBe(200)
  })

  it('same seed, same hash (verification included); `world verify` reports and resumes', async () => {
    const a = join(root, 'tiny-a')
    const b = join(root, 'tiny-b')
    const ra = await buildWorld({ config: presetConfig('tiny'), dir: a, quiet: true })
    const rb = await buildWorld({ config: presetConfig('tiny'), dir: b, quiet: true })
    expect(rb.hash).toBe(ra.hash)
    // A different seed changes the world and so the hash.
    const c = await buildWorld({ config: { ...presetConfig('tiny'), seed: 12 }, dir: join(root, 'tiny-c'), quiet: true })
    expect(c.hash).not.toBe(ra.hash)
    // Lose part of the verification (as a killed run would), then `world verify` finishes it: same hash again.
    const w = openWorld(b, { readonly: false })
    w.db.exec(`DELETE FROM verification_queries WHERE edge_id IN (SELECT edge_id FROM edge_verification ORDER BY edge_id DESC LIMIT 100);
               DELETE FROM edge_verification WHERE edge_id IN (SELECT edge_id FROM edge_verification ORDER BY edge_id DESC LIMIT 100);
               UPDATE stages SET status = 'running' WHERE name = 'verify';`)
    w.close()
    const out = cli('world', 'verify', b, '--failed', '2')
    expect(out).toContain('# Verification report')
    expect(out).toMatch(/Edges: \d+; verified: \d+; kept \(G\*\): \d+/)
    expect(openWorld(b).hash).toBe(ra.hash)
    expect(existsSync(join(b, VERIFY_REPORT_FILE))).toBe(true)
    const json = JSON.parse(cli('world', 'verify', b, '--json'))
    expect(json.verified).toBe(json.edges)
    expect(json.hitsHistogram.reduce((s: number, x: number) => s + x, 0)).toBe(json.edges)
  })

  it('rejects a bad engine and a --meili-url without meilisearch, in one line', () => {
    const run = (...args: string[]) => {
      try {
        cli(...args)
        return ''
      } catch (e) {
        return String((e as { stderr?: string }).stderr)
      }
    }
    expect(run('world', 'build', '--preset', 'tiny', '--search', 'elastic', '--out', join(root, 'x'))).toMatch(/Invalid values|choices/i)
    expect(run('world', 'build', '--preset', 'tiny', '--meili-url', 'http://127.0.0.1:1', '--out', join(root, 'y'))).toMatch(
      /--meili-url needs the meilisearch engine/,
    )
  })
})

// tests/world-lookups: attribute-value lookups are verified like edges — every (type, year attribute, value) held
// by one entity is searched with its lookup queries on the world's engine, ranks are stored and re-computable, and
// Combo 'param' questions select entities only through lookups search found (none when none are kept).
import { join } from 'node:path'
import { openSearchIndex, presetConfig, readQa } from '../world'
import { openDb } from '../infra/store'
import { ENTITY_TYPES } from '../world/schema'
import { keptLookups, lookupCandidates } from '../world/verify/verify-lookups'
import { loadQaView } from '../world/qa/load'
import { generateQa } from '../world/qa/generate'
import { sharedTinyWorld } from './helpers/shared-world'

test('lookups are stored with re-computable ranks, and param questions use only kept ones', async () => {
  const w = await sharedTinyWorld()
  const db = openDb(join(w.dir, 'world.db'), { readonly: true })
  try {
    const cands = lookupCandidates(db, ENTITY_TYPES)
    expect(cands.length).toBeGreaterThan(50)
    const rows = db.prepare('SELECT entity_id, attr, qi, query, rank FROM lookup_verification ORDER BY entity_id, attr, qi').all() as {
      entity_id: string
      attr: string
      qi: number
      query: string
      rank: number
    }[]
    expect(rows).toHaveLength(cands.reduce((n, c) => n + c.queries.length, 0))
    // the stored ranks are what the world's own engine gives now
    const index = await openSearchIndex(w.dir)
    try {
      for (const c of cands.slice(0, 30)) {
        const hits = await index.searchMany(c.queries, { k: 5, snippet: false })
        const want = hits.map((h) => h.findIndex((x) => x.url === c.url) + 1)
        const got = rows.filter((r) => r.entity_id === c.entityId && r.attr === c.attr).map((r) => r.rank)
        expect(got).toEqual(want)
      }
    } finally {
      await index.close()
    }
    const kept = keptLookups(db)
    expect(kept.size).toBeGreaterThan(0)
    // every param question of the world selects its entity through a kept lookup
    const params = readQa(db, ['train', 'bench']).filter((q) => (q.meta as { kind?: string }).kind === 'param')
    expect(params.length).toBeGreaterThan(0)
    const edgeOf = db.prepare('SELECT source, target FROM edges WHERE id = ?')
    let checked = 0
    for (const q of params) {
      const m = q.meta as { pick: { attr: string }; part2: { edges: string[]; steps: { dir: string }[] } }
      if (m.part2.edges.length === 0) continue
      const e = edgeOf.get(m.part2.edges[0]) as { source: string; target: string }
      const picked = m.part2.steps[0].dir === 'fwd' ? e.source : e.target
      expect(kept.has(`${picked}\u0000${m.pick.attr}`)).toBe(true)
      checked++
    }
    expect(checked).toBeGreaterThan(0)
    // with no kept lookup, the sampler makes no param question at all
    const view = loadQaView(db)
    const cfg = presetConfig('tiny').qa
    const none = generateQa({ ...view, lookups: new Set() }, cfg, 11).qas.filter((q) => (q.meta as { kind?: string }).kind === 'param')
    expect(none).toHaveLength(0)
  } finally {
    db.close()
  }
})

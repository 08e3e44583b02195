// agent/oracle/oracle-knowledge: OracleKnowledge over an open world — graph lookups from world/open and the queries
// edge verification stored (table verification_queries: rank of the target page, 0 = not in the top-K) and the
// attribute-value lookup queries that found their page (table lookup_verification).
import type { WorldReader } from '../../world'
import type { AttrValue, Edge, Entity } from '../../world'
import type { OracleKnowledge } from './oracle-plan'

/** OracleKnowledge with a bulk read: prefetch(edgeIds) reads those edges and their verified queries in one scan each
 * (a check shard knows every edge its questions walk: their paths), instead of one query per edge on first use. */
export type WorldOracleKnowledge = OracleKnowledge & { prefetch(edgeIds: Iterable<string>): void }

export function worldOracleKnowledge(w: WorldReader): WorldOracleKnowledge {
  let stmt: { all(edgeId: string): unknown[] } | undefined
  try {
    stmt = w.db.prepare('SELECT query FROM verification_queries WHERE edge_id = ? AND rank > 0 ORDER BY rank, qi')
  } catch {
    stmt = undefined // the world was not verified: no table; the oracle falls back to names and keywords
  }
  let lookups: { all(entityId: string, attr: string): unknown[] } | undefined
  try {
    lookups = w.db.prepare('SELECT query FROM lookup_verification WHERE entity_id = ? AND attr = ? AND rank > 0 ORDER BY rank, qi')
  } catch {
    lookups = undefined // verified before lookups were: the oracle falls back to its own lookup queries
  }
  let byType: Map<string, Entity[]> | undefined
  const typed = (): Map<string, Entity[]> => {
    if (!byType) {
      byType = new Map()
      for (const e of w.entities()) {
        const l = byType.get(e.type) ?? []
        l.push(e)
        byType.set(e.type, l)
      }
    }
    return byType
  }
  /** type → attr → value → entities (in the world's order), built per (type, attr) on first use. */
  const byValue = new Map<string, Map<AttrValue, Entity[]>>()
  const entities = new Map<string, Entity | undefined>()
  const edges = new Map<string, Edge | undefined>()
  const verified = new Map<string, string[]>()
  const lookedUp = new Map<string, string[]>()
  return {
    prefetch(edgeIds) {
      const want = new Set<string>()
      for (const id of edgeIds) if (!edges.has(id)) want.add(id)
      if (want.size === 0) return
      // The wanted ids go to SQLite as one JSON array: it seeks them by primary key, and only their rows become JS
      // objects (a scan of the whole verification table cost ~2.5× the CPU at 10×: bench/RESULTS.md, round 6).
      const ids = JSON.stringify([...want])
      for (const e of w.db.prepare('SELECT id, relation, source, target FROM edges WHERE id IN (SELECT value FROM json_each(?))').iterate(ids) as IterableIterator<Edge>) edges.set(e.id, e)
      if (!stmt) return
      // Then per edge by (rank, qi): the same lists as the per-edge query's ORDER BY.
      const got = new Map<string, { query: string; rank: number; qi: number }[]>()
      const rows = w.db.prepare('SELECT edge_id, qi, query, rank FROM verification_queries WHERE edge_id IN (SELECT value FROM json_each(?)) AND rank > 0')
      for (const r of rows.iterate(ids) as IterableIterator<{ edge_id: string; qi: number; query: string; rank: number }>) {
        if (verified.has(r.edge_id)) continue
        const l = got.get(r.edge_id)
        if (l) l.push(r)
        else got.set(r.edge_id, [r])
      }
      for (const id of want) {
        if (verified.has(id)) continue
        const l = got.get(id) ?? []
        l.sort((a, b) => a.rank - b.rank || a.qi - b.qi)
        verified.set(id, l.map((r) => r.query))
      }
    },
    entitiesOfType(type) {
      return [...typed().get(type) ?? []]
    },
    entitiesWith(type, attr, value) {
      const byType = typed()
      const key = `${type}\u0000${attr}`
      let index = byValue.get(key)
      if (index === undefined) {
        index = new Map()
        for (const e of byType.get(type) ?? []) {
          const v = e.attrs[attr]
          if (v === undefined) continue
          const l = index.get(v)
          if (l) l.push(e)
          else index.set(v, [e])
        }
        byValue.set(key, index)
      }
      return [...(index.get(value) ?? [])]
    },
    // Memoised: every question reads the same hubs again (a worker keeps at most the world's entities and edges).
    entity: (id) => (entities.has(id) ? entities.get(id) : (entities.set(id, w.entity(id)), entities.get(id))),
    edge: (id) => (edges.has(id) ? edges.get(id) : (edges.set(id, w.edge(id)), edges.get(id))),
    // Memoised too (the same edges are on many gold paths); callers copy, never change, the returned lists.
    verifiedQueries(edgeId) {
      let q = verified.get(edgeId)
      if (q === undefined) verified.set(edgeId, (q = stmt ? (stmt.all(edgeId) as { query: string }[]).map((r) => r.query) : []))
      return q
    },
    lookupQueries(entityId, attr) {
      const key = `${entityId}\u0000${attr}`
      let q = lookedUp.get(key)
      if (q === undefined) lookedUp.set(key, (q = lookups ? (lookups.all(entityId, attr) as { query: string }[]).map((r) => r.query) : []))
      return q
    },
  }
}

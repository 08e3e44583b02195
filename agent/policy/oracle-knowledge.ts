// agent/policy/oracle-knowledge: OracleKnowledge over an open world — graph lookups from world/open and the queries
// edge verification stored (table verification_queries: rank of the target page, 0 = not in the top-K) and the
// attribute-value lookup queries that found their page (table lookup_verification).
import type { WorldReader } from '../../world'
import type { AttrValue, Edge, Entity } from '../../world'
import type { OracleKnowledge } from './oracle-plan'

export function worldOracleKnowledge(w: WorldReader): OracleKnowledge {
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
  /** type → attr → value → entities (in the world's order), built per (type, attr) on first use. */
  const byValue = new Map<string, Map<AttrValue, Entity[]>>()
  const entities = new Map<string, Entity | undefined>()
  const edges = new Map<string, Edge | undefined>()
  const verified = new Map<string, string[]>()
  const lookedUp = new Map<string, string[]>()
  return {
    entitiesWith(type, attr, value) {
      if (!byType) {
        byType = new Map()
        for (const e of w.entities()) {
          const l = byType.get(e.type) ?? []
          l.push(e)
          byType.set(e.type, l)
        }
      }
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

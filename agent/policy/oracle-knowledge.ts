// agent/policy/oracle-knowledge: OracleKnowledge over an open world — graph lookups from world/open and the queries
// edge verification stored (table verification_queries: rank of the target page, 0 = not in the top-K) and the
// attribute-value lookup queries that found their page (table lookup_verification).
import type { WorldReader } from '../../world'
import type { Edge, Entity } from '../../world'
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
  const entities = new Map<string, Entity | undefined>()
  const edges = new Map<string, Edge | undefined>()
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
      return (byType.get(type) ?? []).filter((e) => e.attrs[attr] === value)
    },
    // Memoised: every question reads the same hubs again (a worker keeps at most the world's entities and edges).
    entity: (id) => (entities.has(id) ? entities.get(id) : (entities.set(id, w.entity(id)), entities.get(id))),
    edge: (id) => (edges.has(id) ? edges.get(id) : (edges.set(id, w.edge(id)), edges.get(id))),
    verifiedQueries: (edgeId) => (stmt ? (stmt.all(edgeId) as { query: string }[]).map((r) => r.query) : []),
    lookupQueries: (entityId, attr) => (lookups ? (lookups.all(entityId, attr) as { query: string }[]).map((r) => r.query) : []),
  }
}

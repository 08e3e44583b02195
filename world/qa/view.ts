// world/qa/view: the read-only picture of a built world that QA sampling needs — schema, entities, all edges of G
// with the verified (kept) subset G*, and the fact sentences of each document. Knows nothing of SQLite or search.
import type { DocFact, Edge, EdgeId, Entity, EntityTypeSpec, RelationSpec } from '../types'

export interface QaWorldView {
  entityTypes: EntityTypeSpec[]
  relations: RelationSpec[]
  /** Every entity of the world. */
  entities: Entity[]
  /** Every edge of G (verified or not): uniqueness is judged against the whole world, not only G*. */
  edges: Edge[]
  /** Edge ids of G* (edge_verification.kept = 1): paths only ever walk these. */
  kept: ReadonlySet<EdgeId>
  /** Facts stated by each document, by document URL. */
  factsByUrl: ReadonlyMap<string, DocFact[]>
  /**
   * `${entityId}\u0000${attr}` of the attribute-value lookups search finds (verify stage, lookup_verification):
   * Combo 'param' questions only select entities through these. Absent = not verified (every lookup allowed).
   */
  lookups?: ReadonlySet<string>
}

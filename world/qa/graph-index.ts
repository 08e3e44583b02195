// world/qa/graph-index: integer-indexed adjacency of a world for QA sampling — every step whose next entity is
// uniquely determined in the whole graph G and whose edge is in G*, both ways round, plus name/value lookups.
import type { AttrValue, Edge, Entity, EntityTypeSpec, RelationSpec } from '../types'
import type { Dir } from './spec'
import type { QaWorldView } from './view'

/** A step from one entity to the next that is unique in G and walks a verified edge. */
export interface Move {
  edge: number
  rel: string
  dir: Dir
  /** Entity index reached (forward moves) or left from (reverse moves). */
  other: number
}

export interface GraphIndex {
  view: QaWorldView
  entities: Entity[]
  edges: Edge[]
  entityIndex: Map<string, number>
  edgeIndex: Map<string, number>
  types: Map<string, EntityTypeSpec>
  relations: Map<string, RelationSpec>
  /** moves[e]: unique verified steps out of e. */
  moves: Move[][]
  /** back[e]: steps p→e that are unique from p and verified (Move.other = p). */
  back: Move[][]
  /** Upper bound of the length of a unique walk from e (ignores acyclicity), capped at maxDepth. */
  fwdDepth: Int16Array
  /** Upper bound of the length of a unique walk ending at e. */
  backDepth: Int16Array
  /** Lower-cased name → number of entities with it (any type). */
  nameCount: Map<string, number>
  /** `${type}\u0000${lower name}` → entity indices. */
  typedNames: Map<string, number[]>
  /** `${type}\u0000${attr}\u0000${value}` → entity indices. */
  valueIndex: Map<string, number[]>
  /** One-word entity-type nouns ('film', 'museum'): appositions "the film {s}" in phrases. */
  nouns: Set<string>
}

export const norm = (s: string): string => s.toLowerCase()

export function valueKey(type: string, attr: string, v: AttrValue): string {
  return `${type}\u0000${attr}\u0000${typeof v}:${v}`
}

export function buildGraphIndex(view: QaWorldView, maxDepth = 12): GraphIndex {
  const entities = view.entities
  const edges = view.edges
  const entityIndex = new Map<string, number>()
  entities.forEach((e, i) => entityIndex.set(e.id, i))
  const edgeIndex = new Map<string, number>()
  edges.forEach((e, i) => edgeIndex.set(e.id, i))
  const types = new Map(view.entityTypes.map((t) => [t.name, t]))
  const relations = new Map(view.relations.map((r) => [r.name, r]))

  // Group every edge of G by (entity, relation, direction): a step is unique when its group has one edge.
  const groups: Map<string, number[]>[] = entities.map(() => new Map())
  edges.forEach((e, i) => {
    const s = entityIndex.get(e.source)
    const t = entityIndex.get(e.target)
    if (s === undefined || t === undefined) return
    push(groups[s], `${e.relation}\u0000fwd`, i)
    push(groups[t], `${e.relation}\u0000inv`, i)
  })
  const moves: Move[][] = entities.map(() => [])
  const back: Move[][] = entities.map(() => [])
  for (let u = 0; u < entities.length; u++) {
    const keys = [...groups[u].keys()].sort(cmp)
    for (const key of keys) {
      const list = groups[u].get(key)!
      if (list.length !== 1) continue
      const ei = list[0]
      const e = edges[ei]
      if (!view.kept.has(e.id)) continue
      const dir = key.endsWith('fwd') ? 'fwd' : 'inv'
      const rel = relations.get(e.relation)
      if (!rel) continue
      // A step can only be put into words if the relation has a phrase for that direction.
      if ((dir === 'fwd' ? rel.targetPhrases : rel.sourcePhrases).length === 0) continue
      const v = entityIndex.get(dir === 'fwd' ? e.target : e.source)!
      if (v === u) continue
      moves[u].push({ edge: ei, rel: e.relation, dir, other: v })
      back[v].push({ edge: ei, rel: e.relation, dir, other: u })
    }
  }

  const fwdDepth = depthBound(moves, maxDepth)
  const backDepth = depthBound(back, maxDepth)

  const nameCount = new Map<string, number>()
  const typedNames = new Map<string, number[]>()
  const valueIndex = new Map<string, number[]>()
  entities.forEach((e, i) => {
    const n = norm(e.name)
    nameCount.set(n, (nameCount.get(n) ?? 0) + 1)
    push(typedNames, `${e.type}\u0000${n}`, i)
    for (const k of Object.keys(e.attrs).sort(cmp)) push(valueIndex, valueKey(e.type, k, e.attrs[k]), i)
  })
  const nouns = new Set(view.entityTypes.map((t) => t.noun).filter((n) => !n.includes(' ')))
  return { view, entities, edges, entityIndex, edgeIndex, types, relations, moves, back, fwdDepth, backDepth, nameCount, typedNames, valueIndex, nouns }
}

function depthBound(adj: Move[][], maxDepth: number): Int16Array {
  let d = new Int16Array(adj.length)
  for (let k = 0; k < maxDepth; k++) {
    const next = new Int16Array(adj.length)
    for (let u = 0; u < adj.length; u++) {
      let best = 0
      for (const m of adj[u]) best = Math.max(best, 1 + d[m.other])
      next[u] = Math.min(best, maxDepth)
    }
    d = next
  }
  return d
}

function push<K>(m: Map<K, number[]>, k: K, v: number): void {
  const l = m.get(k)
  if (l) l.push(v)
  else m.set(k, [v])
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

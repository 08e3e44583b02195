// world/graph/graph: the typed knowledge graph of a world, generated from a seed and a WorldConfig — entities with
// names and attributes, edges that respect cardinality, domain/range, acyclicity and date coherence, Zipf-like
// degrees, one connected component. Knows the schema; knows nothing of documents, storage or search.
import type { MultiDirectedGraph } from 'graphology'
import { Rng } from '../../infra/rng'
import type { WorldConfig } from '../config'
import { drawAttributes, loadFakers, makeFakers, makeNamer, uniqueName } from '../names'
import { ENTITY_TYPES, RELATIONS, RELATION_PLAN, datesCoherent, pairingCoherent, singleSource, singleTarget, startYear } from '../schema'
import { harmoniseRoles } from './roles'
import type { Edge, Entity, RelationSpec } from '../types'
import { entityUrls } from './urls'
import { TARGET_YEAR_WINDOW, YearIndex } from './year-window'

export interface NodeAttrs {
  type: string
  name: string
  url: string
  attrs: Entity['attrs']
}
export interface EdgeAttrs {
  relation: string
}
export type KnowledgeGraph = MultiDirectedGraph<NodeAttrs, EdgeAttrs>

export interface GeneratedWorld {
  entities: Entity[]
  edges: Edge[]
  graph: KnowledgeGraph
}

export interface GraphProgress {
  (step: string, done: number, total: number): void
}

/** Geographic hubs are the same for every relation (a big city is birthplace, HQ and team home at once). */
const SHARED_POPULARITY = new Set(['City', 'Country'])

/** Async only for loading faker's locales and graphology on demand (a command that builds no graph loads neither). */
export async function generateWorld(config: WorldConfig, onProgress?: GraphProgress): Promise<GeneratedWorld> {
  const seed = config.seed
  const entities = await generateEntities(config)
  onProgress?.('entities', entities.length, entities.length)
  const edges = generateEdges(config, entities, seed, onProgress)
  harmoniseRoles(entities, edges)
  const { MultiDirectedGraph } = await import('graphology')
  const graph: KnowledgeGraph = new MultiDirectedGraph<NodeAttrs, EdgeAttrs>()
  for (const e of entities) graph.addNode(e.id, { type: e.type, name: e.name, url: e.url, attrs: e.attrs })
  for (const e of edges) graph.addEdgeWithKey(e.id, e.source, e.target, { relation: e.relation })
  return { entities, edges, graph }
}

/** Entities in schema type order, ids `<type>-<n>`; names unique per type except for the configured homonyms. */
export async function generateEntities(config: WorldConfig): Promise<Entity[]> {
  const known = await loadFakers(config.docs.locales)
  const nameRng = Rng.derive(config.seed, 'names')
  const fakers = makeFakers(nameRng, config.docs.locales, known)
  const namer = makeNamer(nameRng, fakers, known.en)
  const out: Entity[] = []
  for (const spec of ENTITY_TYPES) {
    const n = config.entities[spec.name] ?? 0
    const attrRng = Rng.derive(config.seed, 'attrs', spec.name)
    const taken = new Set<string>()
    const ofType: Entity[] = []
    for (let i = 1; i <= n; i++) {
      const attrs = drawAttributes(spec.name, attrRng, i - 1)
      const name = uniqueName(() => namer(spec.name, attrs), taken)
      taken.add(name)
      ofType.push({ id: `${spec.name.toLowerCase()}-${i}`, type: spec.name, name, attrs, url: '' })
    }
    addHomonyms(ofType, config.graph.homonymRate, Rng.derive(config.seed, 'homonyms', spec.name))
    // One by one: a spread of a type's entities overflows the call stack past ~100,000 (paper-x100 has 165,000).
    for (const e of ofType) out.push(e)
  }
  const urls = entityUrls(out)
  for (const e of out) e.url = urls.get(e.id)!
  return out
}

/** Give round(rate·n/2) pairs of distinct entities the same name (the second takes the first's name). */
function addHomonyms(ofType: Entity[], rate: number, rng: Rng): void {
  const pairs = Math.min(Math.floor(ofType.length / 2), Math.round((rate * ofType.length) / 2))
  if (pairs <= 0) return
  const chosen = rng.sample(ofType.map((_, i) => i), pairs * 2)
  for (let p = 0; p < pairs; p++) ofType[chosen[2 * p + 1]].name = ofType[chosen[2 * p]].name
}

// ---- edges ---------------------------------------------------------------------------------------------------

class Zipf {
  readonly cum: Float64Array
  readonly weight: Float64Array
  constructor(n: number, exponent: number, rng: Rng) {
    const order = rng.shuffle(Array.from({ length: n }, (_, i) => i))
    this.weight = new Float64Array(n)
    order.forEach((idx, rank) => (this.weight[idx] = 1 / Math.pow(rank + 1, exponent)))
    this.cum = new Float64Array(n)
    let acc = 0
    for (let i = 0; i < n; i++) this.cum[i] = acc += this.weight[i]
  }
  draw(rng: Rng): number {
    const r = rng.next() * this.cum[this.cum.length - 1]
    let lo = 0, hi = this.cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.cum[mid] > r) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}

class UnionFind {
  private readonly p: Int32Array
  constructor(n: number) { this.p = Int32Array.from({ length: n }, (_, i) => i) }
  find(x: number): number {
    while (this.p[x] !== x) { this.p[x] = this.p[this.p[x]]; x = this.p[x] }
    return x
  }
  union(a: number, b: number): void { this.p[this.find(a)] = this.find(b) }
}

function generateEdges(config: WorldConfig, entities: Entity[], seed: number, onProgress?: GraphProgress): Edge[] {
  const rng = Rng.derive(seed, 'edges')
  const index = new Map(entities.map((e, i) => [e.id, i]))
  const byType = new Map<string, number[]>()
  entities.forEach((e, i) => { const l = byType.get(e.type) ?? []; l.push(i); byType.set(e.type, l) })
  const orderKey = entities.map((e, i) => (startYear(e.type, e.attrs) ?? 0) * 1e6 + i)

  const popularity = new Map<string, Zipf>()
  const zipfFor = (rel: RelationSpec): Zipf => {
    const key = SHARED_POPULARITY.has(rel.range) ? `type:${rel.range}` : `rel:${rel.name}`
    let z = popularity.get(key)
    if (!z) {
      z = new Zipf(byType.get(rel.range)?.length ?? 0, config.graph.zipfExponent, Rng.derive(seed, 'popularity', key))
      popularity.set(key, z)
    }
    return z
  }

  const edges: Edge[] = []
  const pairs = new Set<string>()
  const usedSource = new Map<string, Set<number>>()
  const usedTarget = new Map<string, Set<number>>()
  const locatedIn = new Map<number, number>()
  const citiesOf = new Map<number, number[]>()
  const uf = new UnionFind(entities.length)
  for (const r of RELATIONS) { usedSource.set(r.name, new Set()); usedTarget.set(r.name, new Set()) }

  const ok = (r: RelationSpec, s: number, t: number): boolean => {
    if (s === t) return false
    if (singleTarget(r) && usedSource.get(r.name)!.has(s)) return false
    if (singleSource(r) && usedTarget.get(r.name)!.has(t)) return false
    if (pairs.has(`${r.name}|${s}|${t}`)) return false
    if (r.acyclic && !(orderKey[t] < orderKey[s])) return false
    if (r.name === 'capital' && locatedIn.get(t) !== s) return false
    return datesCoherent(r.name, entities[s].attrs, entities[t].attrs) && pairingCoherent(r.name, entities[s].attrs, entities[t].attrs)
  }
  const add = (r: RelationSpec, s: number, t: number) => {
    edges.push({ id: `e-${edges.length + 1}`, relation: r.name, source: entities[s].id, target: entities[t].id })
    pairs.add(`${r.name}|${s}|${t}`)
    usedSource.get(r.name)!.add(s)
    usedTarget.get(r.name)!.add(t)
    uf.union(s, t)
    if (r.name === 'located_in') {
      locatedIn.set(s, t)
      const l = citiesOf.get(t) ?? []
      l.push(s)
      citiesOf.set(t, l)
    }
  }
  const positions = new Map<number[], Map<number, number>>()
  /** A target for source s: Zipf draws first, then a scan from a random offset (rare; keeps constraints exact). */
  const chooseTarget = (r: RelationSpec, s: number, targets: number[], zipf: Zipf): number | undefined => {
    if (r.name === 'capital') {
      const cands = (citiesOf.get(s) ?? []).filter((c) => ok(r, s, c))
      if (cands.length === 0) return undefined
      const z = zipfFor(r)
      // Built once per target list, not once per country (that was countries × cities: minutes at paper-x100).
      let cityPos = positions.get(targets)
      if (!cityPos) positions.set(targets, (cityPos = new Map(targets.map((t, i) => [t, i]))))
      const pos = cityPos
      return cands[rng.weightedIndex(cands.map((c) => z.weight[pos.get(c)!]))]
    }
    for (let i = 0; i < 40; i++) {
      const t = targets[zipf.draw(rng)]
      if (ok(r, s, t)) return t
    }
    const off = rng.int(0, targets.length - 1)
    // No target has a date-coherent year: the scan below would find nothing (it draws nothing, so skipping it
    // changes no later draw).
    if (noCoherentTarget(r, s, targets)) return undefined
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(off + i) % targets.length]
      if (ok(r, s, t)) return t
    }
    return undefined
  }

  const yearIndexes = new Map<string, YearIndex>()
  const noCoherentTarget = (r: RelationSpec, s: number, targets: number[]): boolean => {
    const window = TARGET_YEAR_WINDOW[r.name]?.(entities[s].attrs)
    if (!window || !Number.isFinite(window.lo) || !Number.isFinite(window.hi)) return false
    let idx = yearIndexes.get(r.name)
    if (!idx) yearIndexes.set(r.name, (idx = new YearIndex(targets.map((t) => entities[t]), window.attr)))
    return idx.count(window.lo, window.hi) === 0
  }

  const single = RELATIONS.filter((r) => r.cardinality !== 'n-n')
  const multi = RELATIONS.filter((r) => r.cardinality === 'n-n')
  let step = 0
  for (const r of single) {
    const sources = byType.get(r.domain) ?? []
    const targets = byType.get(r.range) ?? []
    if (sources.length === 0 || targets.length === 0) continue
    const zipf = zipfFor(r)
    const order = rng.shuffle(sources.slice())
    const k = Math.round((RELATION_PLAN[r.name]?.coverage ?? 0.5) * order.length)
    // Full-coverage n-1 relations first give every target one source, so no target entity is left without one.
    if (r.cardinality === 'n-1' && k === order.length && order.length >= targets.length && r.name !== 'capital') {
      const free = order.slice()
      for (const t of rng.shuffle(targets.slice())) {
        const off = rng.int(0, free.length - 1)
        for (let i = 0; i < Math.min(free.length, 400); i++) {
          const s = free[(off + i) % free.length]
          if (ok(r, s, t)) { add(r, s, t); break }
        }
      }
    }
    for (let i = 0; i < k; i++) {
      const s = order[i]
      if (singleTarget(r) && usedSource.get(r.name)!.has(s)) continue
      const t = chooseTarget(r, s, targets, zipf)
      if (t !== undefined) add(r, s, t)
    }
    onProgress?.('relations', ++step, RELATIONS.length)
  }

  const budget = Math.round(config.graph.edgesPerEntity * entities.length) - edges.length
  const usable = multi.filter((r) => (byType.get(r.domain)?.length ?? 0) > 0 && (byType.get(r.range)?.length ?? 0) > 0)
  const totalWeight = usable.reduce((a, r) => a + (RELATION_PLAN[r.name]?.weight ?? 1), 0)
  for (const r of multi) {
    const sources = byType.get(r.domain) ?? []
    const targets = byType.get(r.range) ?? []
    if (budget > 0 && usable.includes(r)) {
      const m = Math.round((budget * (RELATION_PLAN[r.name]?.weight ?? 1)) / totalWeight)
      const zipf = zipfFor(r)
      let made = 0
      for (let attempt = 0; made < m && attempt < m * 20; attempt++) {
        const s = sources[rng.int(0, sources.length - 1)]
        const t = targets[zipf.draw(rng)]
        if (ok(r, s, t)) { add(r, s, t); made++ }
      }
    }
    onProgress?.('relations', ++step, RELATIONS.length)
  }

  connectComponents(entities, byType, rng, uf, ok, add)
  return edges
}

/** Join every component to the largest one with one valid edge (any relation whose constraints allow it). */
function connectComponents(
  entities: Entity[],
  byType: Map<string, number[]>,
  rng: Rng,
  uf: UnionFind,
  ok: (r: RelationSpec, s: number, t: number) => boolean,
  add: (r: RelationSpec, s: number, t: number) => void,
): void {
  const n = entities.length
  if (n === 0) return
  for (let round = 0; round < 4; round++) {
    const size = new Map<number, number>()
    for (let i = 0; i < n; i++) size.set(uf.find(i), (size.get(uf.find(i)) ?? 0) + 1)
    if (size.size <= 1) return
    let main = 0
    let best = -1
    for (const [root, sz] of [...size].sort((a, b) => a[0] - b[0])) if (sz > best) { best = sz; main = root }
    const mainRep = main
    for (let i = 0; i < n; i++) {
      if (uf.find(i) === uf.find(mainRep)) continue
      const type = entities[i].type
      let joined = false
      for (const r of RELATIONS) {
        if (joined) break
        for (const side of ['source', 'target'] as const) {
          if (joined) break
          if ((side === 'source' ? r.domain : r.range) !== type) continue
          const others = byType.get(side === 'source' ? r.range : r.domain) ?? []
          if (others.length === 0) continue
          const off = rng.int(0, others.length - 1)
          for (let j = 0; j < others.length; j++) {
            const o = others[(off + j) % others.length]
            if (uf.find(o) !== uf.find(mainRep)) continue
            const [s, t] = side === 'source' ? [i, o] : [o, i]
            if (ok(r, s, t)) { add(r, s, t); joined = true; break }
          }
        }
      }
    }
  }
}

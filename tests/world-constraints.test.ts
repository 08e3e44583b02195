// tests/world-constraints: the paper-preset world, checked mechanically — every edge against its relation's
// domain/range, cardinality, acyclicity and date coherence; capitals in their country; one connected component;
// every edge's fact stated in both endpoint documents (recorded, an exact substring, naming both endpoints).
import { presetConfig } from '../world/config'
import { generateDocs } from '../world/docs/docs'
import { generateWorld } from '../world/graph/graph'
import { ENTITY_TYPES, RELATIONS, datesCoherent, relation, singleSource, singleTarget } from '../world/schema'
import type { Doc, Edge, Entity } from '../world/types'

const config = presetConfig('paper')
const world = generateWorld(config)
const docs = generateDocs(world.entities, world.edges, config)
const byId = new Map<string, Entity>(world.entities.map((e) => [e.id, e]))

test('paper scale: >= 3,500 entities, >= 10 types, >= 25 relation types in use, >= 14,000 edges', () => {
  expect(world.entities.length).toBeGreaterThanOrEqual(3500)
  expect(new Set(world.entities.map((e) => e.type)).size).toBeGreaterThanOrEqual(10)
  expect(new Set(world.edges.map((e) => e.relation)).size).toBeGreaterThanOrEqual(25)
  expect(world.edges.length).toBeGreaterThanOrEqual(14000)
})

test('every edge: known relation, domain and range types, no self-loop, no duplicate', () => {
  const seen = new Set<string>()
  const bad: string[] = []
  for (const e of world.edges) {
    const r = relation(e.relation)
    const s = byId.get(e.source)
    const t = byId.get(e.target)
    if (!r || !s || !t) { bad.push(`${e.id}: unknown relation or endpoint`); continue }
    if (s.type !== r.domain || t.type !== r.range) bad.push(`${e.id}: ${s.type}->${t.type} for ${r.name} (${r.domain}->${r.range})`)
    if (e.source === e.target) bad.push(`${e.id}: self-loop`)
    const key = `${e.relation}|${e.source}|${e.target}`
    if (seen.has(key)) bad.push(`${e.id}: duplicate`)
    seen.add(key)
  }
  expect(bad).toEqual([])
})

test('every edge respects its cardinality', () => {
  const bad: string[] = []
  for (const r of RELATIONS) {
    const es = world.edges.filter((e) => e.relation === r.name)
    const count = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>())
    if (singleTarget(r)) for (const [id, n] of count(es.map((e) => e.source))) if (n > 1) bad.push(`${r.name} (${r.cardinality}): source ${id} has ${n} targets`)
    if (singleSource(r)) for (const [id, n] of count(es.map((e) => e.target))) if (n > 1) bad.push(`${r.name} (${r.cardinality}): target ${id} has ${n} sources`)
  }
  expect(bad).toEqual([])
})

test('acyclic relations have no directed cycle', () => {
  for (const r of RELATIONS.filter((x) => x.acyclic)) {
    const next = new Map<string, string[]>()
    for (const e of world.edges) if (e.relation === r.name) (next.get(e.source) ?? next.set(e.source, []).get(e.source)!).push(e.target)
    const state = new Map<string, 1 | 2>()
    const cyclic = (start: string): boolean => {
      const stack: [string, number][] = [[start, 0]]
      state.set(start, 1)
      while (stack.length) {
        const top = stack[stack.length - 1]
        const succ = next.get(top[0]) ?? []
        if (top[1] >= succ.length) { state.set(top[0], 2); stack.pop(); continue }
        const n = succ[top[1]++]
        if (state.get(n) === 1) return true
        if (!state.has(n)) { state.set(n, 1); stack.push([n, 0]) }
      }
      return false
    }
    let found = false
    for (const id of next.keys()) if (!state.has(id) && cyclic(id)) found = true
    expect(`${r.name}: ${found ? 'cycle' : 'acyclic'}`).toBe(`${r.name}: acyclic`)
    expect(next.size).toBeGreaterThan(0)
  }
})

test('dates are coherent and capitals lie in their country', () => {
  const bad = world.edges.filter((e) => !datesCoherent(e.relation, byId.get(e.source)!.attrs, byId.get(e.target)!.attrs)).map((e) => e.id)
  expect(bad).toEqual([])
  const countryOf = new Map(world.edges.filter((e) => e.relation === 'located_in').map((e) => [e.source, e.target]))
  const capitals = world.edges.filter((e) => e.relation === 'capital')
  expect(capitals.length).toBeGreaterThan(0)
  for (const c of capitals) expect(countryOf.get(c.target)).toBe(c.source)
  // a sample of the rule itself: a book cannot be written before its author was born
  const wb = world.edges.find((e) => e.relation === 'written_by')!
  expect(byId.get(wb.source)!.attrs.published as number).toBeGreaterThanOrEqual((byId.get(wb.target)!.attrs.born as number) + 18)
})

test('every entity is connected: one component, no isolated entity; degrees are heavy-tailed', () => {
  const parent = new Map(world.entities.map((e) => [e.id, e.id]))
  const find = (x: string): string => { while (parent.get(x) !== x) x = parent.get(x)!; return x }
  for (const e of world.edges) parent.set(find(e.source), find(e.target))
  expect(new Set(world.entities.map((e) => find(e.id))).size).toBe(1)
  const deg = world.entities.map((e) => world.graph.degree(e.id)).sort((a, b) => a - b)
  expect(deg[0]).toBeGreaterThan(0)
  const median = deg[deg.length >> 1]
  expect(deg[deg.length - 1]).toBeGreaterThan(20 * median) // hubs
  expect(deg.filter((d) => d <= median).length).toBeGreaterThan(deg.length / 2 - 1) // many leaves
})

test('names unique within a type (default config), URLs unique across the world', () => {
  for (const t of ENTITY_TYPES) {
    const names = world.entities.filter((e) => e.type === t.name).map((e) => e.name)
    expect(new Set(names).size).toBe(names.length)
  }
  expect(new Set(world.entities.map((e) => e.url)).size).toBe(world.entities.length)
})

test("every edge's fact is stated in both endpoint documents", () => {
  const docOf = new Map<string, Doc>(docs.map((d) => [d.entityId, d]))
  expect(docs.length).toBe(world.entities.length)
  const bad: string[] = []
  const check = (edge: Edge, side: 'source' | 'target') => {
    const doc = docOf.get(edge[side])
    const facts = doc?.facts.filter((f) => f.kind === 'edge' && f.ref === edge.id) ?? []
    if (!doc || facts.length === 0) return bad.push(`${edge.id}: not recorded in ${side} doc`)
    const s = byId.get(edge.source)!.name
    const t = byId.get(edge.target)!.name
    for (const f of facts) {
      if (!doc.text.includes(f.sentence)) bad.push(`${edge.id}: sentence not in ${side} doc text`)
      if (!f.sentence.includes(s) || !f.sentence.includes(t)) bad.push(`${edge.id}: sentence lacks a name: ${f.sentence}`)
    }
  }
  for (const e of world.edges) { check(e, 'source'); check(e, 'target') }
  expect(bad.slice(0, 5)).toEqual([])
})

test('every attribute is stated in its document; documents have 2–4 sections and unique URLs', () => {
  const bad: string[] = []
  for (const d of docs) {
    const e = byId.get(d.entityId)!
    for (const a of Object.keys(e.attrs)) {
      const fs = d.facts.filter((f) => f.kind === 'attr' && f.ref === `${e.id}#${a}`)
      if (fs.length === 0 || fs.some((f) => !d.text.includes(f.sentence))) bad.push(`${d.url}: ${a}`)
    }
    const sections = d.text.split('\n').filter((l) => l.startsWith('## ')).length
    if (sections < 2 || sections > 4) bad.push(`${d.url}: ${sections} sections`)
    if (d.url !== e.url || d.title !== e.name) bad.push(`${d.url}: url/title mismatch`)
  }
  expect(bad.slice(0, 5)).toEqual([])
})

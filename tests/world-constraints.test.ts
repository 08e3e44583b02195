// tests/world-constraints: the paper-preset world, checked mechanically — every edge against its relation's
// domain/range, cardinality, acyclicity and date coherence; capitals in their country; one connected component;
// every edge's fact stated in both endpoint documents (recorded, an exact substring, naming both endpoints).
// The rules are written out again here from the schema's declared data (each relation's cardinality string and
// acyclic flag, and a date-rule table below), never imported from the schema's or generator's predicates, so a wrong
// rule in the generator cannot check itself.
import { presetConfig } from '../world/config'
import { generateDocs } from '../world/docs/docs'
import { generateWorld } from '../world/graph/graph'
import { ENTITY_TYPES, RELATIONS } from '../world/schema'
import type { AttrValue, Doc, Edge, Entity, RelationSpec } from '../world/types'

const config = presetConfig('paper')
const world = await generateWorld(config)
const docs = generateDocs(world.entities, world.edges, config)
const byId = new Map<string, Entity>(world.entities.map((e) => [e.id, e]))
const relByName = new Map<string, RelationSpec>(RELATIONS.map((r) => [r.name, r]))

/** Cardinality 'x-y' read literally: '1' on the source side = a target has at most one source; '1' on the target side = a source has at most one target. */
function cardinalityViolations(r: RelationSpec, edges: readonly Edge[]): string[] {
  const [sourceSide, targetSide] = r.cardinality.split('-')
  if (!['1', 'n'].includes(sourceSide) || !['1', 'n'].includes(targetSide)) return [`${r.name}: unreadable cardinality '${r.cardinality}'`]
  const out: string[] = []
  const count = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>())
  const es = edges.filter((e) => e.relation === r.name)
  if (targetSide === '1') for (const [id, n] of count(es.map((e) => e.source))) if (n > 1) out.push(`${r.name} (${r.cardinality}): source ${id} has ${n} targets`)
  if (sourceSide === '1') for (const [id, n] of count(es.map((e) => e.target))) if (n > 1) out.push(`${r.name} (${r.cardinality}): target ${id} has ${n} sources`)
  return out
}

/**
 * Date rules, one row per inequality  year(a) + gap <= year(b),  where a and b are 's.ATTR' (the edge's source),
 * 't.ATTR' (its target) or 'present' (2025). Written from the rules the schema states (people are born before they
 * write, found, direct or win things; parents are older than children; ...), as data rather than code.
 */
const PRESENT = 2025
type Term = string
const DATE_RULES: Record<string, [Term, Term, number][]> = {
  written_by: [['t.born', 's.published', 18], ['s.published', 't.born', -90]],
  directed_by: [['t.born', 's.released', 20], ['s.released', 't.born', -85]],
  stars: [['t.born', 's.released', 6], ['s.released', 't.born', -90]],
  founded_by: [['t.born', 's.founded', 18], ['s.founded', 't.born', -80]],
  museum_founder: [['t.born', 's.opened', 20], ['s.opened', 't.born', -85]],
  child_of: [['t.born', 's.born', 16], ['s.born', 't.born', -55]],
  influenced_by: [['t.born', 's.born', 5]],
  won_award: [['t.established', 's.born', -70], ['s.born', 'present', 16]],
  book_award: [['t.established', 's.published', 0]],
  film_award: [['t.established', 's.released', 0]],
  adapted_from: [['t.published', 's.released', 0]],
  recorded_by: [['t.formed', 's.released', 0]],
  member_of: [['s.born', 't.formed', 12 - 25], ['t.formed', 's.born', -60]],
  educated_at: [['t.founded', 's.born', -18], ['s.born', 'present', 18]],
  plays_for: [['t.founded', 's.born', -35], ['s.born', 'present', 16]],
  ceo: [['t.born', 'present', 30], ['present', 't.born', -85]],
  rector: [['t.born', 'present', 30], ['present', 't.born', -85]],
  coached_by: [['t.born', 'present', 30], ['present', 't.born', -85]],
  mayor: [['t.born', 'present', 30], ['present', 't.born', -85]],
  subsidiary_of: [['t.founded', 'present', 0]],
  record_label: [['t.founded', 's.released', 0]],
  published_by: [['t.founded', 's.published', 0]],
  produced_by: [['t.founded', 's.released', 0]],
  home_stadium: [['t.opened', 'present', 0]],
}
/** Relations with no date rule (places, citizenship, locations): listed so that a new relation must be classified. */
const NO_DATE_RULE = ['located_in', 'capital', 'born_in', 'citizen_of', 'headquartered_in', 'university_in', 'award_country', 'team_city', 'stadium_in', 'formed_in', 'museum_in']

/** A year attribute is a number; a date attribute is 'YYYY-MM-DD'. */
function yearOfValue(v: AttrValue | undefined): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return new Date(`${v}T00:00:00Z`).getUTCFullYear()
  return NaN
}

function dateViolations(e: Edge, s: Entity, t: Entity): string[] {
  const value = (term: Term): number => (term === 'present' ? PRESENT : yearOfValue((term.startsWith('s.') ? s : t).attrs[term.slice(2)]))
  const out: string[] = []
  for (const [a, b, gap] of DATE_RULES[e.relation] ?? []) {
    const va = value(a), vb = value(b)
    if (!(va + gap <= vb)) out.push(`${e.id} ${e.relation}: ${a}=${va} + ${gap} > ${b}=${vb}`)
  }
  return out
}

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
    const r = relByName.get(e.relation)
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

test('every edge respects its cardinality (read from the cardinality string)', () => {
  expect(RELATIONS.map((r) => r.cardinality).filter((c) => !['1-1', '1-n', 'n-1', 'n-n'].includes(c))).toEqual([])
  expect(RELATIONS.flatMap((r) => cardinalityViolations(r, world.edges))).toEqual([])
})

test('the cardinality check catches a violation (it can fail)', () => {
  const r = RELATIONS.find((x) => x.cardinality === '1-1')!
  const e = world.edges.find((x) => x.relation === r.name)!
  const other = world.edges.find((x) => x.relation === r.name && x.target !== e.target && x.source !== e.source)!
  expect(cardinalityViolations(r, [e, { ...other, id: 'dup', source: e.source }]).length).toBe(1)
  expect(cardinalityViolations(r, [e, { ...other, id: 'dup', target: e.target }]).length).toBe(1)
  const nn = RELATIONS.find((x) => x.cardinality === 'n-n')!
  const f = world.edges.find((x) => x.relation === nn.name)!
  expect(cardinalityViolations(nn, [f, { ...f, id: 'x', target: 'T2' }, { ...f, id: 'y', source: 'S2' }])).toEqual([])
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

test('every relation is classified for dates: a rule row, or listed as having none', () => {
  const ruled = Object.keys(DATE_RULES)
  expect(ruled.filter((r) => NO_DATE_RULE.includes(r))).toEqual([])
  expect(RELATIONS.map((r) => r.name).filter((r) => !ruled.includes(r) && !NO_DATE_RULE.includes(r))).toEqual([])
  expect([...ruled, ...NO_DATE_RULE].filter((r) => !relByName.has(r))).toEqual([])
})

test('dates are coherent on every edge (rules from the table above) and capitals lie in their country', () => {
  const bad = world.edges.flatMap((e) => dateViolations(e, byId.get(e.source)!, byId.get(e.target)!))
  expect(bad.slice(0, 5)).toEqual([])
  // Each rule row is exercised by at least one edge of its relation in this world.
  for (const r of Object.keys(DATE_RULES)) expect(`${r}: ${world.edges.some((e) => e.relation === r)}`).toBe(`${r}: true`)
  const countryOf = new Map(world.edges.filter((e) => e.relation === 'located_in').map((e) => [e.source, e.target]))
  const capitals = world.edges.filter((e) => e.relation === 'capital')
  expect(capitals.length).toBeGreaterThan(0)
  for (const c of capitals) expect(countryOf.get(c.target)).toBe(c.source)
})

test('the date check catches a violation (it can fail): a book published before its author turned 18', () => {
  const wb = world.edges.find((e) => e.relation === 'written_by')!
  const book = byId.get(wb.source)!, author = byId.get(wb.target)!
  expect(dateViolations(wb, book, author)).toEqual([])
  const early = { ...book, attrs: { ...book.attrs, published: (author.attrs.born as number) + 17 } }
  expect(dateViolations(wb, early, author)).toHaveLength(1)
  const album = world.edges.find((e) => e.relation === 'recorded_by')!
  const a = byId.get(album.source)!, band = byId.get(album.target)!
  expect(typeof a.attrs.released).toBe('string') // a date attribute
  const before = { ...a, attrs: { ...a.attrs, released: `${(band.attrs.formed as number) - 1}-06-01` } }
  expect(dateViolations(album, before, band)).toHaveLength(1)
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

// view/path-tree.test: a question's path as a tree — Simple, Parallel and both Combo kinds from their meta, and the
// breadth-first fallback; every path edge drawn once, every entity placed once, children to the left of parents.
import { pathTree, ROOT, type PathTreeLayout, type TreeEdgeRef } from './path-tree'

const E: Record<string, TreeEdgeRef> = {
  e1: { source: 'p1', target: 't1', relation: 'plays_for' },
  e2: { source: 't1', target: 's1', relation: 'home_stadium' },
  e3: { source: 't2', target: 's2', relation: 'home_stadium' },
  e4: { source: 's1', target: 'c1', relation: 'stadium_in' },
  e5: { source: 'k1', target: 'c1', relation: 'capital' },
  e6: { source: 'x1', target: 'y1', relation: 'r' },
}
const edge = (id: string) => E[id]

function check(t: PathTreeLayout, path: string[]) {
  const keys = t.nodes.map((n) => n.key)
  expect(new Set(keys).size).toBe(keys.length)
  expect(t.edges.map((e) => e.key).sort()).toEqual([...new Set(path)].sort())
  const depth = new Map(t.nodes.map((n) => [n.key, n.depth]))
  for (const e of t.edges.filter((x) => !x.cross)) expect(depth.get(e.child)).toBe(depth.get(e.parent)! + 1)
  expect(t.nodes.filter((n) => n.depth === 0).map((n) => n.key)).toEqual([ROOT])
  const spots = t.nodes.map((n) => `${n.depth}:${n.row}`)
  expect(new Set(spots).size).toBe(spots.length)
}

test('combo compare-chain: part 2 to the answer, both part-1 chains hung under its start (one by the comparison)', () => {
  const path = ['e1', 'e2', 'e3', 'e4', 'e5']
  const meta = {
    kind: 'compare-chain',
    part1: { attr: 'capacity', order: 'min', a: { start: 'p1', edges: ['e1', 'e2'] }, b: { start: 't2', edges: ['e3'] } },
    part2: { steps: [{ dir: 'fwd' }, { dir: 'inv' }], edges: ['e4', 'e5'] },
  }
  const t = pathTree(path, meta, edge)
  check(t, path)
  const d = Object.fromEntries(t.nodes.map((n) => [n.key, n.depth]))
  expect(d).toEqual({ [ROOT]: 0, k1: 1, c1: 2, s1: 3, t1: 4, s2: 4, p1: 5, t2: 5 })
  expect(t.joins).toEqual(expect.arrayContaining([{ child: 's2', parent: 's1', label: 'min capacity' }, { child: 'k1', parent: ROOT, label: 'answer' }]))
  expect(t.nodes.find((n) => n.key === 's1')!.role).toBe('inner')
  expect(t.nodes.filter((n) => n.role === 'start').map((n) => n.key).sort()).toEqual(['p1', 't2'])
})

test('combo param: part 1 joined to the picked entity by the value', () => {
  const meta = { kind: 'param', part1: { chain: { start: 'x1', edges: ['e6'] }, attr: 'year' }, pick: { type: 'T', attr: 'founded' }, part2: { steps: [{ dir: 'fwd' }], edges: ['e4'] } }
  const t = pathTree(['e6', 'e4'], meta, edge)
  check(t, ['e6', 'e4'])
  expect(t.joins).toContainEqual({ child: 'y1', parent: 's1', label: 'year = founded' })
})

test('parallel: two branches meeting at the answer; simple: one chain', () => {
  const p = pathTree(['e1', 'e3'], { op: 'compare', a: { start: 'p1', edges: ['e1'] }, b: { start: 't2', edges: ['e3'] } }, edge)
  check(p, ['e1', 'e3'])
  expect(p.nodes.filter((n) => n.role === 'end').map((n) => n.key).sort()).toEqual(['s2', 't1'])
  const s = pathTree(['e1', 'e2'], { chain: { start: 'p1', edges: ['e1', 'e2'] } }, edge)
  check(s, ['e1', 'e2'])
  expect(s.nodes.map((n) => [n.key, n.depth])).toEqual([[ROOT, 0], ['s1', 1], ['t1', 2], ['p1', 3]])
})

test('no readable meta: a breadth-first tree from the last edge, every edge kept', () => {
  const t = pathTree(['e1', 'e2', 'e4'], {}, edge)
  check(t, ['e1', 'e2', 'e4'])
})

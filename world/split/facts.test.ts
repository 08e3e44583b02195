// world/split/facts.test: the held-out pick (a function of ids, seed and size; at most half the pool), the
// fact-disjoint partition (what shares an edge with the held-out slice is excluded, nothing else), and the overlap
// counts (every edge / inside one path / asked directly) on hand-made questions whose answers are known.
import { Rng } from '../../infra/rng'
import { factDisjointPartition, factOverlap, heldOutSlice, pickHeldOut, type FactItem } from './facts'

const q = (id: string, path: string[], type: FactItem['type'] = 'simple'): FactItem => ({ id, type, hops: path.length, path })

describe('pickHeldOut', () => {
  const pool = Array.from({ length: 40 }, (_, i) => q(`q${String(i).padStart(2, '0')}`, [`e${i}`]))

  it('is the seeded shuffle of the id-sorted pool, whatever the order given, and at most half the pool', () => {
    const a = pickHeldOut(pool, 10, 3)
    const b = pickHeldOut([...pool].reverse(), 10, 3)
    expect([...a].sort()).toEqual([...b].sort())
    expect(a.size).toBe(10)
    // the pick CurriculumSource made before the fact exclusion existed
    const old = Rng.derive(3, 'held-out').shuffle([...pool].sort((x, y) => (x.id < y.id ? -1 : 1))).slice(0, 10).map((x) => x.id)
    expect([...a].sort()).toEqual(old.sort())
    expect(pickHeldOut(pool, 1000, 3).size).toBe(20)
    expect(pickHeldOut(pool, 0, 3).size).toBe(0)
    expect([...pickHeldOut(pool, 10, 4)].sort()).not.toEqual([...a].sort())
  })
})

describe('factDisjointPartition', () => {
  it('excludes exactly the questions sharing an edge with a held-out one, in either direction of reading', () => {
    const items = [
      q('h1', ['a', 'b']),
      q('h2', ['c']),
      q('t-shares-b', ['x', 'b']), // the same fact b, asked as part of another chain
      q('t-shares-c', ['c']), // asks held-out fact c directly
      q('t-free', ['x', 'y']),
      q('t-free2', ['z']),
    ]
    const p = factDisjointPartition(items, new Set(['h1', 'h2']))
    expect(p.held.map((x) => x.id)).toEqual(['h1', 'h2'])
    expect(p.excluded.map((x) => x.id)).toEqual(['t-shares-b', 't-shares-c'])
    expect(p.train.map((x) => x.id)).toEqual(['t-free', 't-free2'])
    expect(p.heldFacts).toBe(3)
  })

  it('heldOutSlice: no training question shares an edge with the slice, and every question lands in one part', () => {
    const rng = new Rng(9)
    const pool = Array.from({ length: 300 }, (_, i) => q(`q${i}`, Array.from({ length: rng.int(1, 4) }, () => `e${rng.int(0, 400)}`)))
    const s = heldOutSlice(pool, 30, 1)
    const held = new Set(s.held.flatMap((x) => x.path))
    expect(s.held).toHaveLength(30)
    expect(s.train.some((x) => x.path.some((e) => held.has(e)))).toBe(false)
    expect(s.excluded.every((x) => x.path.some((e) => held.has(e)))).toBe(true)
    expect(s.held.length + s.train.length + s.excluded.length).toBe(pool.length)
  })
})

describe('factOverlap', () => {
  it('counts probe questions by how much of their path the training questions already state', () => {
    const train = [q('t1', ['a', 'b', 'c']), q('t2', ['d']), q('t3', ['e', 'f'], 'parallel'), q('t4', ['g', 'h'])]
    const probe = [
      q('inside-one', ['b', 'c']), // every edge, all on t1
      q('spread', ['a', 'e']), // every edge, on t1 and t3: not inside one
      q('direct', ['d', 'z']), // d is asked by the one-hop Simple t2; z is nowhere
      q('parallel-1hop', ['f']), // t3 is a Parallel question: it does not ask f "directly"
      q('none', ['y']),
    ]
    expect(factOverlap(probe, train)).toEqual({ questions: 5, anyEdge: 4, everyEdge: 3, insideOne: 2, askedDirectly: 1 })
    expect(factOverlap(probe, [])).toEqual({ questions: 5, anyEdge: 0, everyEdge: 0, insideOne: 0, askedDirectly: 0 })
  })
})

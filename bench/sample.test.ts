// bench/sample.test: --limit N's stratified sample covers every type (from N = the number of types), keeps strata
// proportional, is seeded (same seed same sample, another seed another), nests (a larger N holds a smaller one), and
// `first` keeps the split's first N.
import type { Qa } from '../world'
import { limitQuestions, stratifiedOrder } from './sample'

/** A split shaped like the paper bench's head: many one-hop simple questions first, the rare types last. */
function split(): Qa[] {
  const qs: Qa[] = []
  const add = (type: Qa['type'], hops: number, n: number) => {
    for (let i = 0; i < n; i++) qs.push({ id: `q${String(qs.length).padStart(3, '0')}`, type, hops, question: `${type} ${hops} ${i}`, answer: 'a', aliases: [] } as unknown as Qa)
  }
  add('simple', 1, 60)
  add('simple', 2, 30)
  add('simple', 4, 10)
  add('parallel', 2, 20)
  add('parallel', 3, 10)
  add('combo', 3, 8)
  add('combo', 5, 2)
  return qs
}

const types = (qs: Qa[]) => new Set(qs.map((q) => q.type))

test('every N ≥ 3 covers every type; the first N does not', () => {
  const all = split()
  for (const seed of [0, 1, 7])
    for (let n = 3; n <= 20; n++) expect(types(limitQuestions(all, n, 'stratified', seed))).toEqual(new Set(['simple', 'parallel', 'combo']))
  expect(types(limitQuestions(all, 20, 'first', 0))).toEqual(new Set(['simple']))
  expect(limitQuestions(all, 5, 'first', 0).map((q) => q.id)).toEqual(['q000', 'q001', 'q002', 'q003', 'q004'])
})

test('strata are sampled in proportion (within one question each) and the sample keeps the split order', () => {
  const all = split()
  const n = 35
  const s = limitQuestions(all, n, 'stratified', 3)
  expect(s).toHaveLength(n)
  expect(new Set(s.map((q) => q.id)).size).toBe(n)
  const count = (qs: Qa[], t: string, h: number) => qs.filter((q) => q.type === t && q.hops === h).length
  for (const [t, h] of [['simple', 1], ['simple', 2], ['simple', 4], ['parallel', 2], ['parallel', 3], ['combo', 3], ['combo', 5]] as const)
    expect(Math.abs(count(s, t, h) - (n * count(all, t, h)) / all.length)).toBeLessThanOrEqual(1.5)
  const pos = new Map(all.map((q, i) => [q.id, i]))
  expect(s.map((q) => pos.get(q.id)!)).toEqual([...s.map((q) => pos.get(q.id)!)].sort((a, b) => a - b))
})

test('seeded and nested: same seed same order, another seed another, a larger N holds a smaller one', () => {
  const all = split()
  const ids = (qs: Qa[]) => qs.map((q) => q.id)
  expect(ids(stratifiedOrder(all, 5))).toEqual(ids(stratifiedOrder(all, 5)))
  expect(ids(stratifiedOrder(all, 5))).not.toEqual(ids(stratifiedOrder(all, 6)))
  // The split's order does not change the draw.
  expect(ids(stratifiedOrder([...all].reverse(), 5))).toEqual(ids(stratifiedOrder(all, 5)))
  const small = new Set(ids(limitQuestions(all, 10, 'stratified', 5)))
  const big = new Set(ids(limitQuestions(all, 30, 'stratified', 5)))
  expect([...small].every((id) => big.has(id))).toBe(true)
  expect(stratifiedOrder(all, 5)).toHaveLength(all.length)
  expect(limitQuestions(all, null, 'stratified', 5)).toHaveLength(all.length)
})

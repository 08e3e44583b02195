// curriculum/source.test: presets as data (paper stages; names looked up in a Map, so `toString` is a clean error),
// seeded data order, the fixed-step switch (logged), the plateau gate, hop-scaled turn budgets, the adaptive
// preset's pull towards pass rate 0.5, held-out questions never drawn, and state round-trips through JSON.
import { Rng } from '../infra/rng'
import type { Qa, QaType } from '../world/types'
import { CurriculumSource, type SourceOptions } from './source'
import { capHops, curriculumPreset, presetNames } from './stages'

function qa(i: number, type: QaType, hops: number): Qa {
  return { id: `q${String(i).padStart(3, '0')}`, type, hops, question: `Q${i}?`, answer: 'a', aliases: [], path: [], docs: [], evidence: [], split: 'train', meta: {} }
}
const TRAIN: Qa[] = []
for (let i = 0; i < 120; i++) TRAIN.push(qa(i, (['simple', 'parallel', 'combo'] as const)[i % 3], 1 + (i % 10)))
const OPTS: SourceOptions = { seed: 3, heldOut: 10 }

test('presets: the paper stages; unknown names, including Object.prototype members, are clean errors', () => {
  expect(presetNames()).toEqual(expect.arrayContaining(['two-stage', 'mixed', 'stage1-only', 'adaptive']))
  const two = curriculumPreset('two-stage', 5)
  expect(two.stages[0]).toMatchObject({ types: ['simple'], minHops: 1, maxHops: 6 })
  expect(two.stages[1]).toMatchObject({ types: ['simple', 'parallel', 'combo'], maxHops: 12 })
  for (const bad of ['toString', '__proto__', 'constructor', 'nope']) expect(() => curriculumPreset(bad, 5)).toThrow(`unknown curriculum preset '${bad}'`)
})

test('two-stage: stage 1 draws Simple 1–6 hops only, switches after N steps (logged), then draws every type', () => {
  const s = new CurriculumSource(curriculumPreset('two-stage', 2), TRAIN, OPTS)
  const held = new Set(s.heldOut().map((q) => q.id))
  expect(held.size).toBe(10)
  for (let step = 1; step <= 2; step++) {
    const qs = s.next(20, Rng.derive(0, step))
    expect(qs.every((q) => q.type === 'simple' && q.hops <= 6 && !held.has(q.id))).toBe(true)
    const line = s.afterStep(step, null)
    expect(line === null).toBe(step < 2)
  }
  expect(s.stage()).toBe('stage2')
  const later = s.next(60, Rng.derive(0, 3))
  expect(new Set(later.map((q) => q.type)).size).toBe(3)
  expect(later.some((q) => q.hops > 6)).toBe(true)
  expect(later.every((q) => !held.has(q.id))).toBe(true)
})

test('data order is seeded and the state (stage, cursors, rates) round-trips: a restored source draws the same', () => {
  const a = new CurriculumSource(curriculumPreset('mixed', 1), TRAIN, OPTS)
  const b = new CurriculumSource(curriculumPreset('mixed', 1), TRAIN, OPTS)
  expect(a.next(7, new Rng(1)).map((q) => q.id)).toEqual(b.next(7, new Rng(1)).map((q) => q.id))
  const c = new CurriculumSource(curriculumPreset('mixed', 1), TRAIN, { ...OPTS, seed: 4 })
  expect(c.next(7, new Rng(1)).map((q) => q.id)).not.toEqual(a.next(7, new Rng(1)).map((q) => q.id))
  const saved = JSON.parse(JSON.stringify(a.state()))
  const next = a.next(5, new Rng(2)).map((q) => q.id)
  const d = new CurriculumSource(curriculumPreset('mixed', 1), TRAIN, OPTS)
  d.load(saved)
  expect(d.next(5, new Rng(2)).map((q) => q.id)).toEqual(next)
  expect(() => d.load({ stage: 0, cursors: [0, 0, 0] })).toThrow('does not belong')
})

test('plateau gate: switches when held-out F1 stops improving', () => {
  const s = new CurriculumSource(curriculumPreset('two-stage-plateau', 1), TRAIN, OPTS)
  expect(s.afterStep(1, 0.1)).toBeNull()
  expect(s.afterStep(2, 0.2)).toBeNull()
  expect(s.afterStep(3, 0.2)).toBeNull()
  expect(s.afterStep(4, 0.19)).toMatch(/stage1 → stage2 \(held-out F1 plateaued at 0\.200/)
})

test('adaptive: buckets near pass rate 0.5 are drawn far more often than solved or hopeless ones', () => {
  const s = new CurriculumSource(curriculumPreset('adaptive', 1), TRAIN, OPTS)
  const byBucket = (type: QaType, hops: number) => TRAIN.filter((q) => q.type === type && q.hops === hops)
  for (let k = 0; k < 10; k++) {
    s.observe(byBucket('simple', 1).map((q) => ({ qa: q, meanReward: 1 })))
    s.observe(byBucket('parallel', 2).map((q) => ({ qa: q, meanReward: 0.5 })))
    s.observe(byBucket('combo', 3).map((q) => ({ qa: q, meanReward: 0 })))
  }
  const draws = s.next(3000, new Rng(9))
  const n = (t: QaType, h: number) => draws.filter((q) => q.type === t && q.hops === h).length
  expect(n('parallel', 2)).toBeGreaterThan(5 * Math.max(1, n('simple', 1)))
  expect(n('parallel', 2)).toBeGreaterThan(5 * Math.max(1, n('combo', 3)))
})

test('capHops: every stage drawn within the cap, the held-out slice the same as without it; an empty stage is an error', () => {
  const plain = new CurriculumSource(curriculumPreset('two-stage', 1), TRAIN, OPTS)
  const capped = new CurriculumSource(capHops(curriculumPreset('two-stage', 1), 2), TRAIN, OPTS)
  expect(capped.heldOut().map((q) => q.id)).toEqual(plain.heldOut().map((q) => q.id))
  const held = new Set(capped.heldOut().map((q) => q.id))
  const first = capped.next(20, Rng.derive(0, 1))
  expect(first.every((q) => q.type === 'simple' && q.hops <= 2 && !held.has(q.id))).toBe(true)
  capped.afterStep(1, null)
  const later = capped.next(40, Rng.derive(0, 2))
  expect(later.every((q) => q.hops <= 2 && !held.has(q.id))).toBe(true)
  expect(new Set(later.map((q) => q.type)).size).toBe(3)
  expect(capHops(curriculumPreset('mixed', 1), 0)).toEqual(curriculumPreset('mixed', 1))
  const late = { name: 'late', stages: [{ name: 'long', types: ['simple' as const], minHops: 3, maxHops: 6 }], switches: [] }
  expect(() => capHops(late, 2)).toThrow("maxHops 2 leaves stage 'long' of 'late' no hops")
})

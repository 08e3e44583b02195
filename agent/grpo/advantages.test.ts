// agent/grpo/advantages.test: the SearchGym worked example (F1s 1,1,0.5,0,0,0,0,0.5) under population std
// (+1.51 / +0.30 / −0.90) and sample std (+1.41 / +0.28 / −0.85); degenerate groups.
import { degenerateKind, groupAdvantages, isDegenerateGroup } from './advantages'

const F1 = [1, 1, 0.5, 0, 0, 0, 0, 0.5]

test('worked example, population std: mean 0.375, std ≈ 0.41, advantages +1.51 / +0.30 / −0.90', () => {
  const a = groupAdvantages(F1)
  expect(a[0]).toBeCloseTo(1.51, 2)
  expect(a[1]).toBeCloseTo(1.51, 2)
  expect(a[2]).toBeCloseTo(0.3, 2)
  expect(a[3]).toBeCloseTo(-0.9, 2)
  expect(a[7]).toBeCloseTo(0.3, 2)
  expect(a.reduce((s, x) => s + x, 0)).toBeCloseTo(0, 9)
})

test('worked example, sample std (G − 1): advantages +1.41 / +0.28 / −0.85', () => {
  const a = groupAdvantages(F1, { std: 'sample' })
  expect(a[0]).toBeCloseTo(1.41, 2)
  expect(a[2]).toBeCloseTo(0.28, 2)
  expect(a[3]).toBeCloseTo(-0.85, 2)
  expect(a[0]).not.toBeCloseTo(groupAdvantages(F1)[0], 2)
})

test('degenerate groups give zeros and are counted apart; mean-only normalisation subtracts the mean', () => {
  expect(groupAdvantages([0, 0, 0, 0])).toEqual([0, 0, 0, 0])
  expect(isDegenerateGroup([0.5, 0.5])).toBe(true)
  expect(isDegenerateGroup([0.5, 0])).toBe(false)
  expect(degenerateKind([0, 0])).toBe('all0')
  expect(degenerateKind([1, 1])).toBe('all1')
  expect(degenerateKind([0.5, 0.5])).toBe('constant')
  expect(degenerateKind([1, 0])).toBe(null)
  expect(groupAdvantages([1, 0], { normalize: 'mean' })).toEqual([0.5, -0.5])
})

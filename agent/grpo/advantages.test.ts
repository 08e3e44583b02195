// agent/grpo/advantages.test: the SearchGym worked example (F1s 1,1,0.5,0,0,0,0,0.5 → ≈ +1.51 / +0.30 / −0.90).
import { groupAdvantages, isDegenerateGroup } from './advantages'

test('worked example of the SearchGym notes: mean 0.375, std ≈ 0.41, advantages +1.51 / +0.30 / −0.90', () => {
  const a = groupAdvantages([1, 1, 0.5, 0, 0, 0, 0, 0.5])
  expect(a[0]).toBeCloseTo(1.51, 2)
  expect(a[1]).toBeCloseTo(1.51, 2)
  expect(a[2]).toBeCloseTo(0.3, 2)
  expect(a[3]).toBeCloseTo(-0.9, 2)
  expect(a[7]).toBeCloseTo(0.3, 2)
  expect(a.reduce((s, x) => s + x, 0)).toBeCloseTo(0, 9)
})

test('degenerate groups give zeros; mean-only normalisation subtracts the mean', () => {
  expect(groupAdvantages([0, 0, 0, 0])).toEqual([0, 0, 0, 0])
  expect(isDegenerateGroup([0.5, 0.5])).toBe(true)
  expect(isDegenerateGroup([0.5, 0])).toBe(false)
  expect(groupAdvantages([1, 0], { normalize: 'mean' })).toEqual([0.5, -0.5])
})

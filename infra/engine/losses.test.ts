// infra/engine/losses.test: the SearchGym worked GRPO example and each loss's derivative.
import { clippedSurrogate, k3, tokenLoss } from './losses'

test('worked GRPO example: ρ=1.6, A=1.51 → 2.114 (clipped at 1.4); ρ=0.5, A=−0.90 → −0.54 (clipped at 0.6)', () => {
  expect(clippedSurrogate(1.6, 1.51)).toBeCloseTo(2.114, 10)
  expect(clippedSurrogate(0.5, -0.9)).toBeCloseTo(-0.54, 10)
  // Inside [0.6, 1.4] the objective is ρ·A.
  expect(clippedSurrogate(1.2, 1.51)).toBeCloseTo(1.812, 10)
  // The other side is not clipped: a bad trajectory whose ratio grew keeps its full penalty.
  expect(clippedSurrogate(1.6, -0.9)).toBeCloseTo(-1.44, 10)
})

test('ppo token loss: clipped side has zero gradient, the unclipped side has −ρA', () => {
  const cfg = { name: 'ppo' as const }
  const clipped = tokenLoss(cfg, Math.log(1.6), 0, 1.51)
  expect(clipped.loss).toBeCloseTo(-2.114, 10)
  expect(clipped.clipped).toBe(true)
  expect(clipped.dlogp).toBe(0)
  const inside = tokenLoss(cfg, Math.log(1.2), 0, 1.51)
  expect(inside.clipped).toBe(false)
  expect(inside.dlogp).toBeCloseTo(-1.2 * 1.51, 10)
  expect(tokenLoss({ name: 'ppo', epsLow: 0.2 }, Math.log(1.3), 0, 1).clipped).toBe(true)
})

test('derivatives of every loss match finite differences in logp', () => {
  const h = 1e-6
  const cases = [
    { name: 'importance_sampling' as const },
    { name: 'ppo' as const, klBeta: 0.1 },
    { name: 'cross_entropy' as const },
    { name: 'importance_sampling' as const, klBeta: 0.5 },
  ]
  for (const cfg of cases)
    for (const [lp, old, adv, ref] of [[-1.2, -1.0, 0.7, -1.5], [-0.3, -0.2, -1.1, -0.1]]) {
      const f = (x: number) => tokenLoss(cfg, x, old, adv, ref).loss
      const fd = (f(lp + h) - f(lp - h)) / (2 * h)
      expect(tokenLoss(cfg, lp, old, adv, ref).dlogp).toBeCloseTo(fd, 5)
    }
})

test('k3 is zero at the reference and positive elsewhere', () => {
  expect(k3(-1, -1)).toBe(0)
  expect(k3(-1, -2)).toBeGreaterThan(0)
  expect(k3(-2, -1)).toBeGreaterThan(0)
  expect(() => tokenLoss({ name: 'ppo', klBeta: 0.1 }, -1, -1, 1)).toThrow(/reference/)
})

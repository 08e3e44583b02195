// tests/ppo-clip-asymmetric: the clip-higher PPO bound (ε_low ≠ ε_high) pinned where training uses it (issue 59, item 7)
// — from the GRPO options (agent/grpo lossConfig) through a real Learner's forwardBackward on a tiny random model,
// every token at a chosen ratio: ρ = 1.25 with A > 0 lies inside [0.8, 1.28] (no token clipped, the gradient flows),
// ρ = 1.30 lies past it (every token clipped, no gradient); ρ = 0.75 with A < 0 is clipped at 1 − ε_low. A clip that
// used ε_low above (`1 + epsLow` for `1 + epsHigh` in infra/engine/losses.ts) or ε_high below fails here, as it does in
// infra/engine/losses-boundary.test.ts (the objective alone).
import { lossConfig } from '../agent/grpo/learn'
import { presetConfig } from '../infra/engine/config'
import { Learner, type Datum } from '../infra/engine/learner'
import { LORA_TARGETS } from '../infra/engine/lora'
import { createRandomModel } from '../infra/engine/model'
import { Rng } from '../infra/rng'

const tokens = [3, 7, 11, 2, 19, 5, 8, 13, 4]

function learner(): Learner {
  const m = createRandomModel(presetConfig('tiny', 32, [31]), new Rng(5), undefined, { std: 0.3 })
  return new Learner(m, { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed: 5 })
}

/** Every target token at sampling-policy ratio `ratio` (old log-prob = current − ln ratio) with advantage `a`. */
function datum(l: Learner, ratio: number, a: number): Datum {
  const lp = l.computeLogprobs(tokens)
  return { inputTokens: tokens.slice(0, -1), targetTokens: tokens.slice(1), oldLogprobs: lp.map((x) => x - Math.log(ratio)), advantages: lp.map(() => a) }
}

const cfg = lossConfig({ loss: 'ppo', epsLow: 0.2, epsHigh: 0.28, klBeta: 0, microBatch: 16 })

test('the GRPO options reach the loss with both bounds', () => {
  expect(cfg).toMatchObject({ name: 'ppo', epsLow: 0.2, epsHigh: 0.28 })
})

test.each([
  [1.25, 1, 0, 'inside the upper bound 1 + ε_high = 1.28 (not 1 + ε_low = 1.2)'],
  [1.3, 1, 1, 'past the upper bound 1.28'],
  [0.75, -1, 1, 'past the lower bound 1 − ε_low = 0.8 (1 − ε_high = 0.72 would let it through)'],
  [0.85, -1, 0, 'inside the lower bound 0.8'],
])('ratio %f, advantage %i: clip fraction %i (%s)', (ratio, a, clipFraction) => {
  const l = learner()
  const r = l.forwardBackward([datum(l, ratio, a)], cfg)
  expect(r.metrics.meanRatio).toBeCloseTo(ratio, 4)
  expect(r.metrics.clipFraction).toBe(clipFraction)
  // A clipped token contributes no gradient: the optimizer step moves nothing when all are clipped.
  expect(l.optimStep({ lr: 0.01 }).gradNorm > 0).toBe(clipFraction === 0)
})

// agent/grpo/datums.test: the trainer's own datum path (TokenSequence → buildDatums → Learner.forwardBackward with
// the clipped surrogate) on a tiny random model — the worked clip terms 2.114 (ratio 1.6, A = 1.51) and −0.54
// (ratio 0.5, A = −0.90); prompt and tool-observation positions carry no loss (gradients unchanged, bit for bit,
// whatever their targets, advantages or old log-probs); token-mean weights sum to 1 over the batch, so
// micro-batching does not change the accumulated gradient.
import { Rng } from '../../infra/rng'
import { presetConfig } from '../../infra/engine/config'
import { createRandomModel } from '../../infra/engine/model'
import { Learner } from '../../infra/engine/learner'
import { LORA_TARGETS } from '../../infra/engine/lora'
import type { TokenSequence } from '../policy/engine-policy'
import { buildDatums, microBatches } from './datums'
import { lossConfig } from './learn'

const lora = { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }
const ppo = lossConfig({ loss: 'ppo', epsLow: 0.4, epsHigh: 0.4, klBeta: 0, microBatch: 16 })

function learner(seed = 1): Learner {
  const m = createRandomModel(presetConfig('tiny', 32, [31]), new Rng(seed), undefined, { std: 0.3 })
  const l = new Learner(m, { lora, seed })
  // A non-zero adapter (B = 0 at init would make every LoRA A gradient vanish and hide differences): one SFT step.
  l.forwardBackward([{ inputTokens: [1, 2, 3, 4, 5, 6], targetTokens: [2, 3, 4, 5, 6, 7] }], { name: 'cross_entropy' })
  l.optimStep({ lr: 0.05 })
  return l
}

/** ids with prompt (0), sampled (1) and observation (0) positions; log-probs set so ratio(t) = ratios[t] now. */
function sequence(l: Learner, ids: number[], sampled: number[], ratios: Record<number, number>): TokenSequence {
  const lp = l.computeLogprobs(ids)
  const logprobs = ids.map((_, t) => (sampled[t] ? lp[t - 1] - Math.log(ratios[t] ?? 1) : 0))
  return { ids, sampled, logprobs, truncatedTurns: 0 }
}

function grads(l: Learner): Float32Array[] {
  return l.model.adapter!.params().map((p) => l.gradient(p.name) ?? new Float32Array(0))
}

test('the clipped terms 2.114 (ratio 1.6, A = +1.51) and −0.54 (ratio 0.5, A = −0.90) through buildDatums + forwardBackward', () => {
  const l = learner()
  const s1 = sequence(l, [3, 7, 11, 2, 19], [0, 0, 0, 1, 0], { 3: 1.6 })
  const s2 = sequence(l, [4, 9, 1, 30, 5], [0, 0, 0, 0, 1], { 4: 0.5 })
  const datums = buildDatums([{ seq: s1, advantage: 1.51 }, { seq: s2, advantage: -0.9 }], 'token-mean')
  expect(datums.map((d) => d.mask!.reduce((a, b) => a + b, 0)).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
  const r1 = l.forwardBackward([datums[0]], ppo)
  const r2 = l.forwardBackward([datums[1]], ppo)
  // loss = −w·objective with w = 1/2 (token mean over the batch's two trained tokens)
  expect(-r1.loss / 0.5).toBeCloseTo(2.114, 3)
  expect(-r2.loss / 0.5).toBeCloseTo(-0.54, 3)
  expect(r1.metrics.clipFraction).toBe(1)
  expect(r2.metrics.clipFraction).toBe(1)
  expect(r1.metrics.meanRatio).toBeCloseTo(1.6, 5)
  // the clipped side is active for both tokens: no gradient flows (PPO's clip)
  expect(grads(l).every((g) => g.every((x) => x === 0))).toBe(true)
})

test('prompt and tool-observation positions carry no loss: their targets, advantages and old log-probs change nothing', () => {
  const ids = [3, 7, 11, 2, 19, 5, 8, 12, 6, 14]
  const sampled = [0, 0, 0, 1, 1, 0, 0, 1, 1, 0] // prompt 0-2, assistant 3-4, observation 5-6, assistant 7-8, template 9
  const run = (mutate: (d: ReturnType<typeof buildDatums>[number]) => void) => {
    const l = learner()
    const seq = sequence(l, ids, sampled, { 3: 1.1, 4: 0.95, 7: 1.05, 8: 1 })
    const [d] = buildDatums([{ seq, advantage: 0.8 }], 'token-mean')
    mutate(d)
    const r = l.forwardBackward([d], ppo)
    return { loss: r.loss, g: grads(l) }
  }
  const base = run(() => undefined)
  expect(base.g.some((g) => g.some((x) => x !== 0))).toBe(true)
  const masked = [0, 1, 4, 5, 8] // target positions t whose target id (t+1) is prompt/observation/template
  const variants = [
    (d: { targetTokens: number[] }) => masked.forEach((t) => (d.targetTokens[t] = (d.targetTokens[t] + 5) % 31)),
    (d: { advantages?: number[] }) => masked.forEach((t) => (d.advantages![t] = 1e6)),
    (d: { oldLogprobs?: number[] }) => masked.forEach((t) => (d.oldLogprobs![t] = -1e6)),
    (d: { advantages?: number[]; oldLogprobs?: number[] }) => masked.forEach((t) => ((d.advantages![t] = NaN), (d.oldLogprobs![t] = NaN))),
  ]
  for (const v of variants) {
    const r = run(v as never)
    expect(r.loss).toBe(base.loss)
    r.g.forEach((g, i) => expect(Buffer.from(g.buffer).equals(Buffer.from(base.g[i].buffer))).toBe(true))
  }
  // Control: the same change at a trained position does change the gradient (the check can fail).
  const ctl = run((d) => (d.targetTokens[2] = (d.targetTokens[2] + 5) % 31))
  expect(ctl.g.some((g, i) => !Buffer.from(g.buffer).equals(Buffer.from(base.g[i].buffer)))).toBe(true)
})

test('micro-batches weighted by token share: accumulated gradient equals one pass over the whole batch', () => {
  const mk = (l: Learner) => [
    { seq: sequence(l, [3, 7, 11, 2, 19, 5], [0, 0, 1, 1, 1, 1], { 2: 1.2 }), advantage: 1 },
    { seq: sequence(l, [4, 9, 1, 30], [0, 0, 0, 1], {}), advantage: -1 },
    { seq: sequence(l, [6, 6, 2, 8, 9], [0, 1, 1, 0, 1], { 4: 0.9 }), advantage: 0.5 },
  ]
  for (const agg of ['token-mean', 'sequence-mean'] as const) {
    const a = learner()
    a.forwardBackward(buildDatums(mk(a), agg), ppo)
    const b = learner()
    for (const mb of microBatches(buildDatums(mk(b), agg), 1)) b.forwardBackward(mb, ppo)
    const ga = grads(a), gb = grads(b)
    ga.forEach((g, i) => g.forEach((x, j) => expect(Math.abs(x - gb[i][j])).toBeLessThan(1e-6 + 1e-4 * Math.abs(x))))
  }
  // sequence-mean gives each trajectory weight 1/3 in total; token-mean gives each token 1/8
  const l = learner()
  const sm = buildDatums(mk(l), 'sequence-mean').map((d) => d.mask!.reduce((x, y) => x + y, 0))
  sm.forEach((w) => expect(w).toBeCloseTo(1 / 3, 12))
  const tm = buildDatums(mk(l), 'token-mean').flatMap((d) => d.mask!.filter((w) => w !== 0))
  tm.forEach((w) => expect(w).toBeCloseTo(1 / 8, 12))
})

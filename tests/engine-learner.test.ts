// tests/engine-learner: the Tinker-style learner on a tiny random Qwen3 — adapter save/load bit-exact in PEFT
// format, optimizer state resume equals uninterrupted training, gradient accumulation, loss relations
// (IS at ratio 1 = advantage-weighted CE, KL at the reference is zero, masks), SFT and PPO steps move log-probs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { allGrads, maxDiff } from './helpers/learner-grads'
import { presetConfig } from '../infra/engine/config'
import { createRandomModel, forward, logits, type CausalLM } from '../infra/engine/model'
import { Learner, type Datum } from '../infra/engine/learner'
import { LORA_TARGETS } from '../infra/engine/lora'
import { readSafetensorsHeader } from '../infra/engine/safetensors'

const tmp = mkdtempSync(join(tmpdir(), 'engine-learner-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const lora = { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }

function freshLearner(seed = 1): Learner {
  const m = createRandomModel(presetConfig('tiny', 32, [31]), new Rng(seed), undefined, { std: 0.3 })
  return new Learner(m, { lora, seed })
}

const seqA = [3, 7, 11, 2, 19, 5, 8]
const seqB = [4, 4, 9, 1, 30]
const sft = (tokens: number[], mask?: number[]): Datum => ({ inputTokens: tokens.slice(0, -1), targetTokens: tokens.slice(1), mask })

function hostLogits(m: CausalLM, tokens: number[]): Float32Array {
  return m.backend.toHost(logits(m, forward(m, [{ tokens }]).hidden))
}

test('SFT (cross_entropy) steps lower the loss; the adapter round-trips bit-exactly in PEFT format', () => {
  const l = freshLearner()
  const first = l.forwardBackward([sft(seqA), sft(seqB)], { name: 'cross_entropy' }).loss
  l.optimStep({ lr: 0.02 })
  let last = first
  for (let i = 0; i < 5; i++) {
    last = l.forwardBackward([sft(seqA), sft(seqB)], { name: 'cross_entropy' }).loss
    l.optimStep({ lr: 0.02, weightDecay: 0.01, gradClip: 1 })
  }
  expect(last).toBeLessThan(first * 0.8)
  const dir = join(tmp, 'adapter')
  l.saveAdapter(dir)
  const cfg = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8'))
  expect(cfg).toMatchObject({ peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 8, base_model_name_or_path: 'base' })
  expect(cfg.target_modules).toEqual(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'])
  const names = Object.keys(readSafetensorsHeader(join(dir, 'adapter_model.safetensors')).entries)
  expect(names).toContain('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')
  expect(names).toContain('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')
  expect(names.length).toBe(2 * 7 * 2)
  const other = freshLearner(1)
  expect(Array.from(hostLogits(other.model, seqA))).not.toEqual(Array.from(hostLogits(l.model, seqA)))
  other.loadAdapter(dir)
  const a = l.model.adapter!.params(), b = other.model.adapter!.params()
  expect(b.map((p) => p.name)).toEqual(a.map((p) => p.name))
  a.forEach((p, i) => expect(Array.from(other.model.backend.toHost(b[i].tensor))).toEqual(Array.from(l.model.backend.toHost(p.tensor))))
  expect(Array.from(hostLogits(other.model, seqA))).toEqual(Array.from(hostLogits(l.model, seqA)))
})

test('optimizer state save/load: resumed training equals uninterrupted training bit-exactly', () => {
  const step = (l: Learner) => {
    l.forwardBackward([sft(seqA)], { name: 'cross_entropy' })
    l.optimStep({ lr: 0.01, betas: [0.9, 0.95], weightDecay: 0.1 })
  }
  const a = freshLearner(3)
  step(a)
  step(a)
  a.saveState(join(tmp, 'state'))
  step(a)
  const b = freshLearner(3)
  b.loadState(join(tmp, 'state'))
  expect(b.optimizer.step).toBe(2)
  step(b)
  const pa = a.model.adapter!.params(), pb = b.model.adapter!.params()
  pa.forEach((p, i) => expect(Array.from(b.model.backend.toHost(pb[i].tensor))).toEqual(Array.from(a.model.backend.toHost(p.tensor))))
})

test('gradients accumulate across forwardBackward calls like one call on all datums', () => {
  const one = freshLearner(4)
  const two = freshLearner(4)
  // Make B non-zero first so every gradient is non-trivial, identically in both.
  for (const l of [one, two]) {
    l.forwardBackward([sft(seqB)], { name: 'cross_entropy' })
    l.optimStep({ lr: 0.05 })
  }
  one.forwardBackward([sft(seqA), sft(seqB)], { name: 'cross_entropy' })
  two.forwardBackward([sft(seqA)], { name: 'cross_entropy' })
  two.forwardBackward([sft(seqB)], { name: 'cross_entropy' })
  expect(maxDiff(allGrads(one), allGrads(two))).toBeLessThan(1e-5)
})

test('importance sampling at ratio 1 equals advantage-weighted cross-entropy; KL at the reference adds nothing; mask 0 adds nothing', () => {
  const l = freshLearner(5)
  l.forwardBackward([sft(seqA)], { name: 'cross_entropy' })
  l.optimStep({ lr: 0.05 })
  const T = seqA.length - 1
  const current = l.computeLogprobs(seqA)
  const adv = new Array(T).fill(0.7)
  const isDatum: Datum = { ...sft(seqA), oldLogprobs: current, advantages: adv }
  const r = l.forwardBackward([isDatum], { name: 'importance_sampling' })
  expect(r.metrics.meanRatio).toBeCloseTo(1, 5)
  r.logprobs[0].forEach((x, i) => expect(x).toBeCloseTo(current[i], 5))
  const gIs = allGrads(l)
  l.zeroGrad()
  l.forwardBackward([sft(seqA, new Array(T).fill(0.7))], { name: 'cross_entropy' })
  expect(maxDiff(gIs, allGrads(l))).toBeLessThan(1e-6)
  // A fresh learner (B = 0) is the reference policy: k3 is 0 and so is its gradient.
  const f = freshLearner(6)
  const cur = f.computeLogprobs(seqA)
  const ppo = f.forwardBackward([{ ...sft(seqA), oldLogprobs: cur, advantages: adv }], { name: 'ppo', klBeta: 0.5 })
  expect(ppo.metrics.meanKl).toBeCloseTo(0, 9)
  const withKl = allGrads(f)
  f.zeroGrad()
  f.forwardBackward([{ ...sft(seqA), oldLogprobs: cur, advantages: adv }], { name: 'ppo' })
  expect(maxDiff(withKl, allGrads(f))).toBeLessThan(1e-7)
  f.zeroGrad()
  const masked = f.forwardBackward([{ ...sft(seqA), oldLogprobs: cur, advantages: adv, mask: new Array(T).fill(0) }], { name: 'ppo' })
  expect(masked.loss).toBe(0)
  expect(masked.metrics.tokens).toBe(0)
  for (const g of allGrads(f).values()) expect(g.every((x) => x === 0)).toBe(true)
})

test('a PPO step raises the log-prob of positively advantaged tokens and reports clipping', () => {
  const l = freshLearner(7)
  const T = seqA.length - 1
  const old = l.computeLogprobs(seqA)
  const d: Datum = { ...sft(seqA), oldLogprobs: old, advantages: new Array(T).fill(1) }
  l.forwardBackward([d], { name: 'ppo' })
  l.optimStep({ lr: 0.02 })
  const after = l.computeLogprobs(seqA)
  expect(after.reduce((a, b) => a + b, 0)).toBeGreaterThan(old.reduce((a, b) => a + b, 0))
  // Pretend the sampler was much less likely: ratios far above 1.4 are clipped for positive advantages.
  const r = l.forwardBackward([{ ...d, oldLogprobs: after.map((x) => x - 1) }], { name: 'ppo' })
  expect(r.metrics.clipFraction).toBe(1)
  for (const g of allGrads(l).values()) expect(g.every((x) => x === 0)).toBe(true)
  // The reference policy (LoRA off) is unchanged by training.
  expect(l.computeLogprobs(seqA, { useLora: false })).toEqual(freshLearner(7).computeLogprobs(seqA))
})

test('bad datums are rejected with a message that says what to fix', () => {
  const l = freshLearner(8)
  expect(() => l.forwardBackward([{ inputTokens: [1, 2], targetTokens: [2] }], { name: 'cross_entropy' })).toThrow(/aligned/)
  expect(() => l.forwardBackward([sft(seqA)], { name: 'ppo' })).toThrow(/oldLogprobs/)
  expect(() => l.forwardBackward([{ inputTokens: [1], targetTokens: [99] }], { name: 'cross_entropy' })).toThrow(/vocabulary/)
})

test('the learner reproduces the worked GRPO example: ρ=1.6, A=1.51 → objective 2.114; ρ=0.5, A=−0.90 → −0.54', () => {
  const l = freshLearner(9)
  const tokens = [3, 7, 11]
  const cur = l.computeLogprobs(tokens)
  // Old log-probs chosen so that the new/old ratio of the single weighted token is exactly ρ.
  const datum = (rho: number, adv: number): Datum => ({
    inputTokens: tokens.slice(0, -1), targetTokens: tokens.slice(1),
    oldLogprobs: [cur[0] - Math.log(rho), cur[1]], advantages: [adv, 0], mask: [1, 0],
  })
  const a = l.forwardBackward([datum(1.6, 1.51)], { name: 'ppo', epsLow: 0.4 })
  expect(-a.loss).toBeCloseTo(2.114, 5)
  expect(a.metrics.clipFraction).toBe(1)
  const b = l.forwardBackward([datum(0.5, -0.9)], { name: 'ppo', epsLow: 0.4 })
  expect(-b.loss).toBeCloseTo(-0.54, 5)
  expect(b.metrics.meanRatio).toBeCloseTo(0.5, 5)
})

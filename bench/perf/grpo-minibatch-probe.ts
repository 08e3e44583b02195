// bench/perf/grpo-minibatch-probe: a SMALL-SCALE check of what PPO mini-batches / epochs buy per rollout (issue 34) —
// not a search task. A tiny random model (presetConfig tiny, vocabulary 64) with a fresh LoRA; each step samples
// --questions random prompts × --group completions of --tokens tokens at --temperature, rewards each completion with
// the share of its tokens in a fixed target set (ids 1..16, a quarter of the vocabulary), and updates with the code
// `searchgym train` runs (groupAdvantages, grpoEpochs: mini-batches × epochs, log-probs at T, clip 0.4/0.4,
// token-mean, KL 0.001 to the start). Arms: one optimizer step per batch vs --mini-batch trajectories × --epochs;
// the same rollouts budget; a control arm takes one step per batch at the learning rate × (the other arm's steps per
// batch), to tell more steps from a larger step. Prints per arm and seed the mean reward of every step's rollouts, the learner's seconds
// and the clip statistics; writes OUT/grpo-minibatch-probe.json.
// Usage: node bin/run-ts.mjs bench/perf/grpo-minibatch-probe.ts --out DIR [--steps 8] [--seeds 3] [--questions 8]
//          [--group 8] [--tokens 16] [--temperature 0.8] [--lr 0.01] [--mini-batch 16] [--epochs 2] [--backend auto]
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createBackend, createRandomModel, generateBatch, Learner, LORA_TARGETS, parseBackendName, presetConfig } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { groupAdvantages } from '../../agent/grpo/advantages'
import type { ScoredSequence } from '../../agent/grpo/datums'
import { grpoEpochs } from '../../agent/grpo/learn'

const arg = (n: string, d: string): string => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : d
}
const num = (n: string, d: number): number => {
  const v = Number(arg(n, String(d)))
  if (!Number.isFinite(v) || v < 0) {
    process.stderr.write(`grpo-minibatch-probe: --${n} must be a number ≥ 0\n`)
    process.exit(2)
  }
  return v
}
const out = arg('out', '')
if (!out) {
  process.stderr.write('grpo-minibatch-probe: --out DIR is required\n')
  process.exit(2)
}
const S = { steps: num('steps', 8), seeds: num('seeds', 3), questions: num('questions', 8), group: num('group', 8), tokens: num('tokens', 16), temperature: num('temperature', 0.8), lr: num('lr', 0.01), miniBatch: num('mini-batch', 16), epochs: num('epochs', 2) }
const backend = parseBackendName(arg('backend', 'auto'))
const V = 64
const TARGET = (id: number) => id >= 1 && id <= 16

interface ArmRun { arm: string; seed: number; rewards: number[]; learnS: number; optimizerSteps: number; clipFraction: number; meanRatioLast: number }

function run(arm: string, seed: number, miniBatch: number, epochs: number, lr: number): ArmRun {
  const model = createRandomModel(presetConfig('tiny', V, []), new Rng(1000 + seed), createBackend(backend), { std: 0.3 })
  const learner = new Learner(model, { lora: { rank: 8, alpha: 16, targets: [...LORA_TARGETS] }, seed })
  const rewards: number[] = []
  let learnS = 0, steps = 0, clip = 0, ratioLast = 1
  for (let step = 1; step <= S.steps; step++) {
    const rng = Rng.derive(seed, 'prompts', step)
    const prompts = Array.from({ length: S.questions }, () => Array.from({ length: 6 }, () => rng.int(17, V - 1)))
    const outs = generateBatch(model, prompts, { n: S.group, maxNewTokens: S.tokens, temperature: S.temperature, seed: Rng.derive(seed, 'sample', step).int(0, 2 ** 31 - 1), eosTokenIds: [] })
    const items: ScoredSequence[] = []
    let rsum = 0
    outs.forEach((g, qi) => {
      const r = g.map((s) => s.tokens.filter(TARGET).length / s.tokens.length)
      rsum += r.reduce((a, b) => a + b, 0)
      const adv = groupAdvantages(r)
      g.forEach((s, j) => {
        if (adv[j] === 0) return
        const ids = [...prompts[qi], ...s.tokens]
        items.push({ seq: { ids, sampled: ids.map((_, t) => (t >= prompts[qi].length ? 1 : 0)), logprobs: [...prompts[qi].map(() => 0), ...s.logprobs], truncatedTurns: 0 }, advantage: adv[j] })
      })
    })
    rewards.push(rsum / (S.questions * S.group))
    const t = performance.now()
    const m = grpoEpochs(learner, items, { loss: 'ppo', epsLow: 0.4, epsHigh: 0.4, klBeta: 0.001, microBatch: 16, temperature: S.temperature, klReference: 'start', aggregation: 'token-mean', ppoMiniBatch: miniBatch, ppoEpochs: epochs }, { lr, gradClip: 1 }, Rng.derive(seed, 'ppo', step))
    learnS += (performance.now() - t) / 1000
    steps += m.optimizerSteps
    clip += m.clipFraction / S.steps
    ratioLast = m.meanRatioLast
  }
  return { arm, seed, rewards, learnS, optimizerSteps: steps, clipFraction: clip, meanRatioLast: ratioLast }
}

const runs: ArmRun[] = []
for (let seed = 0; seed < S.seeds; seed++)
  for (const [arm, mb, ep, lr] of [
    ['one-step', 0, 1, S.lr],
    [`mb${S.miniBatch}x${S.epochs}`, S.miniBatch, S.epochs, S.lr],
    [`one-step-lr×${(S.questions * S.group / S.miniBatch) * S.epochs}`, 0, 1, S.lr * (S.questions * S.group / S.miniBatch) * S.epochs],
  ] as const) {
    const r = run(arm, seed, mb, ep, lr)
    runs.push(r)
    process.stdout.write(`${arm} seed ${seed}: reward ${r.rewards.map((x) => x.toFixed(3)).join(' ')} | learn ${r.learnS.toFixed(1)} s, ${r.optimizerSteps} optimizer steps, clip ${r.clipFraction.toFixed(3)}, last ratio ${r.meanRatioLast.toFixed(3)}\n`)
  }
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'grpo-minibatch-probe.json'), JSON.stringify({ settings: S, backend, runs }, null, 1) + '\n')

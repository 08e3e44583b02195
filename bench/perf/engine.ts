// bench/perf/engine: tokens/s of the engine's ts backend — forward (LoRA on), forward+backward (PPO loss into LoRA
// gradients) and sampling (KV cache, n samples sharing a prefill) — for the tiny and small presets.
// Usage: node bin/run-ts.mjs bench/perf/engine.ts [--presets tiny,small] [--vocab 1024] [--rank 32] [--seconds 2]
import { Rng } from '../../infra/rng'
import { type ModelPresetName, MODEL_PRESETS, presetConfig } from '../../infra/engine/config'
import { Learner } from '../../infra/engine/learner'
import { LORA_TARGETS } from '../../infra/engine/lora'
import { createRandomModel, forward } from '../../infra/engine/model'
import { generate } from '../../infra/engine/sample'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/engine.ts [--presets tiny,small] [--vocab 1024] [--rank 32] [--seconds 2]', {
  presets: { type: 'string', default: 'tiny,small' },
  vocab: { type: 'string', default: '1024' },
  rank: { type: 'string', default: '32' },
  seconds: { type: 'string', default: '2' },
})
const presets = opt.presets.split(',') as ModelPresetName[]
const vocab = Number(opt.vocab)
const rank = Number(opt.rank)
const seconds = Number(opt.seconds)

/** Run fn until `seconds` have passed (after one warm-up call); returns units per second. */
function rate(fn: () => number): { perSec: number; reps: number } {
  fn()
  let units = 0, reps = 0
  const t0 = performance.now()
  while (performance.now() - t0 < seconds * 1000 || reps < 2) {
    units += fn()
    reps++
  }
  return { perSec: units / ((performance.now() - t0) / 1000), reps }
}

const rows: string[] = []
for (const name of presets) {
  if (!Object.hasOwn(MODEL_PRESETS, name)) throw new Error(`unknown preset ${name}`)
  const cfg = presetConfig(name, vocab, [vocab - 1])
  const model = createRandomModel(cfg, new Rng(1))
  const learner = new Learner(model, { lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS] }, seed: 1 })
  const rng = new Rng(2)
  const B = 4, T = 128
  const seqs = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(0, vocab - 2)))
  const fwd = rate(() => {
    forward(model, seqs.map((s) => ({ tokens: s.slice(0, T) })))
    return B * T
  })
  const datums = seqs.map((s) => {
    const old = learner.computeLogprobs(s)
    return { inputTokens: s.slice(0, T), targetTokens: s.slice(1), oldLogprobs: old, advantages: old.map((_, i) => (i % 3) - 1), mask: old.map(() => 1) }
  })
  const fb = rate(() => {
    learner.forwardBackward(datums, { name: 'ppo', klBeta: 0 })
    learner.zeroGrad()
    return B * T
  })
  const P = 64, n = 8, newTokens = 64
  const prompt = seqs[0].slice(0, P)
  const smp = rate(() => generate(model, prompt, { n, maxNewTokens: newTokens, seed: 3, eosTokenIds: [] }).reduce((a, s) => a + s.tokens.length, 0))
  rows.push(
    `| ${name} (L=${cfg.numLayers}, C=${cfg.hiddenSize}, H/KV=${cfg.numHeads}/${cfg.numKvHeads}, D=${cfg.headDim}, F=${cfg.intermediateSize}, V=${vocab}) ` +
      `| ${fwd.perSec.toFixed(0)} | ${fb.perSec.toFixed(0)} | ${smp.perSec.toFixed(0)} |`,
  )
  console.error(`${name}: forward ${fwd.reps} reps, forward+backward ${fb.reps} reps, sampling ${smp.reps} reps`)
}
console.log(`LoRA rank ${rank} (alpha ${2 * rank}) on q,k,v,o,gate,up,down. forward / forward+backward: ${4} × ${128} tokens per call; ` +
  `sampling: n=8 samples of a 64-token prompt, 64 new tokens each (new tokens/s, prefill included).`)
console.log('')
console.log('| preset | forward tokens/s | forward+backward tokens/s | sampling new tokens/s |')
console.log('| --- | --- | --- | --- |')
for (const r of rows) console.log(r)

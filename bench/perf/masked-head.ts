// bench/perf/masked-head: what the masked output head saves on the rollout's datum shape, and what a full-weight step
// costs beside a LoRA one — native backend, one run, wall and CPU seconds. A GRPO datum is mostly prompt and tool
// result (mask 0): here `--turns` assistant turns of `--answer` tokens each (mask 1) among `--tokens` tokens. The
// "all rows" case gives every position mask 1: the head's work before masking (it then ran at every row whatever the
// mask; the loss differs, the FLOPs are those). Prints a markdown table for bench/RESULTS.md.
// Usage: node bin/run-ts.mjs bench/perf/masked-head.ts [--presets tiny,small] [--vocab 4096] [--tokens 1024] [--datums 4]
//        [--turns 3] [--answer 24] [--rank 32] [--seconds 3]
import { cpus, loadavg } from 'node:os'
import { Rng } from '../../infra/rng'
import { type PresetName, PRESETS, presetConfig } from '../../infra/engine/config'
import { createBackend } from '../../infra/engine/create-backend'
import { Learner, type Datum, type Trainable } from '../../infra/engine/learner'
import { LORA_TARGETS } from '../../infra/engine/lora'
import { createRandomModel } from '../../infra/engine/model'

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : def
}
const presets = arg('presets', 'tiny,small').split(',') as PresetName[]
const num = (k: string, d: string): number => {
  const v = Number(arg(k, d))
  if (!(v > 0 && Number.isInteger(v))) throw new Error(`--${k} must be a positive integer, got ${arg(k, d)}`)
  return v
}
const vocab = num('vocab', '4096'), tokens = num('tokens', '1024'), nDatums = num('datums', '4'), turns = num('turns', '3')
const answer = num('answer', '24'), rank = num('rank', '32'), seconds = num('seconds', '3')
for (const p of presets) if (!PRESETS[p]) throw new Error(`unknown preset ${p}; use tiny or small`)
if (turns * answer > tokens) throw new Error(`--turns × --answer (${turns * answer}) exceeds --tokens ${tokens}`)

/** Steps per wall second and per CPU second of fn (one warm-up call first). */
function rate(fn: () => void): { wall: number; cpu: number; reps: number } {
  fn()
  let reps = 0
  const t0 = performance.now(), c0 = process.cpuUsage()
  while (performance.now() - t0 < seconds * 1000 || reps < 2) {
    fn()
    reps++
  }
  const c = process.cpuUsage(c0)
  return { wall: (performance.now() - t0) / 1000 / reps, cpu: (c.user + c.system) / 1e6 / reps, reps }
}

const rng = new Rng(1)
/** Datums of the rollout's shape: turns answer-token spans (mask 1) spread through a long prompt + observations. */
function datums(allRows: boolean): Datum[] {
  return Array.from({ length: nDatums }, () => {
    const ids = Array.from({ length: tokens + 1 }, () => rng.int(0, vocab - 1))
    const mask = new Array<number>(tokens).fill(allRows ? 1 : 0)
    const gap = Math.floor(tokens / turns)
    for (let t = 0; t < turns; t++) for (let i = 0; i < answer; i++) mask[(t + 1) * gap - answer + i] = 1
    return { inputTokens: ids.slice(0, -1), targetTokens: ids.slice(1), mask, oldLogprobs: new Array(tokens).fill(-8), advantages: new Array(tokens).fill(0.5) }
  })
}

const rows: string[] = []
for (const preset of presets) {
  const config = presetConfig(preset, vocab, [vocab - 1])
  const be = createBackend('native')
  const learner = (trainable: Trainable) =>
    new Learner(createRandomModel(config, new Rng(0), be, { std: 0.02 }), { trainable, lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS] }, maxTokensPerPass: tokens * nDatums })
  const lora = learner('lora'), full = learner('full')
  const masked = datums(false), all = datums(true)
  const share = (masked[0].mask!.filter((m) => m !== 0).length / tokens) * 100
  const cases: [string, Learner, Datum[], 'ppo' | 'cross_entropy'][] = [
    ['LoRA, all rows (the head before masking)', lora, all, 'ppo'],
    [`LoRA, masked (${share.toFixed(1)} % of rows)`, lora, masked, 'ppo'],
    ['full weights, all rows', full, all, 'cross_entropy'],
    [`full weights, masked (${share.toFixed(1)} % of rows)`, full, masked, 'cross_entropy'],
  ]
  const seen: number[] = []
  for (const [name, l, ds, loss] of cases) {
    const r = rate(() => {
      l.forwardBackward(ds, { name: loss, klBeta: 0 })
      l.optimStep({ lr: 0 })
    })
    seen.push(r.cpu)
    const base = name.startsWith('LoRA') ? seen[0] : seen[2]
    rows.push(`| ${preset} | ${name} | ${(r.wall * 1000).toFixed(0)} | ${(r.cpu * 1000).toFixed(0)} | ${((nDatums * tokens) / r.wall).toFixed(0)} | ${(base / r.cpu).toFixed(2)}× | ${r.reps} |`)
  }
}
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ${new Date().toISOString()}`)
console.log(`datums ${nDatums} × ${tokens} tokens, ${turns} answer turns × ${answer} tokens, vocab ${vocab}, LoRA rank ${rank}, native backend, one forwardBackward + optimStep per step`)
console.log('')
console.log('| preset | case | wall ms/step | CPU ms/step | tokens/s (wall) | CPU speed-up vs its all-rows case | steps |')
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows) console.log(r)

// bench/perf/decode-threads: how the native decode step should use the threads — the measurement behind the
// per-step choice in infra/engine/native/src/decode.cc (DECODE_COLS_FLOPS). For each preset and row count it samples
// (generate: a 64-token prompt, n rows, 64 new tokens each, KV cache) in interleaved rounds under four settings:
// one thread; all threads split by rows (the path before the column split); all threads split by output columns;
// and the default (chosen per step; the share of its decode steps that ran split). Reports new tokens per wall second and per CPU second (user+sys of this process),
// medians over rounds, and each setting's flops per decode step.
// Usage: node bin/run-ts.mjs bench/perf/decode-threads.ts [--presets tiny,small] [--rows 1,4,8] [--rounds 5]
//        [--cpu-seconds 0.5] (CPU seconds per setting per round) [--vocab 1024]
import { loadavg } from 'node:os'
import { Rng } from '../../infra/rng'
import { type ModelPresetName, MODEL_PRESETS, presetConfig } from '../../infra/engine/config'
import { createBackend } from '../../infra/engine/create-backend'
import { createRandomModel } from '../../infra/engine/model'
import { generate } from '../../infra/engine/sample'
import { loadNativeAddon } from '../../infra/engine/native/addon'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/decode-threads.ts [--presets tiny,small] [--rows 1,4,8] [--rounds 5] [--cpu-seconds 0.5] [--vocab 1024]', {
  presets: { type: 'string', default: 'tiny,small' },
  rows: { type: 'string', default: '1,4,8' },
  rounds: { type: 'string', default: '5' },
  'cpu-seconds': { type: 'string', default: '0.5' },
  vocab: { type: 'string', default: '1024' },
})
const presets = opt.presets.split(',') as ModelPresetName[]
const rowCounts = opt.rows.split(',').map(Number)
const rounds = Number(opt.rounds)
const cpuPer = Number(opt['cpu-seconds'])
const vocab = Number(opt.vocab)
for (const p of presets) if (!MODEL_PRESETS[p]) throw new Error(`unknown preset ${p}; use tiny or small`)
for (const r of rowCounts) if (!(Number.isInteger(r) && r >= 1 && r <= 8)) throw new Error(`--rows: each count must be an integer 1..8, got ${r}`)
if (!(rounds > 0) || !(cpuPer > 0)) throw new Error('--rounds and --cpu-seconds must be positive')
const { addon, reason } = loadNativeAddon()
if (!addon) {
  console.error(`bench/perf/decode-threads: ${reason}`)
  process.exit(1)
}
const threads = addon.threads()
const cpuSec = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const P = 64, newTokens = 64
const settings = [
  { label: '1 thread', set: () => addon.decodeThreads(1) },
  { label: `${threads} threads, rows`, set: () => addon.decodeThreads(threads, true) },
  { label: `${threads} threads, columns`, set: () => addon.decodeThreads(threads) },
  { label: 'default', set: () => addon.decodeThreads(0) },
]
const load0 = loadavg()[0]
const lines: string[] = []
lines.push(`| preset | rows | flops per step | ${settings.map((s) => `${s.label} (wall / per CPU s)`).join(' | ')} | default: steps split |`)
lines.push(`| --- | --- | --- | ${settings.map(() => '---').join(' | ')} | --- |`)
for (const name of presets) {
  const cfg = presetConfig(name, vocab, [vocab - 1])
  const model = createRandomModel(cfg, new Rng(1), createBackend('native'))
  const rng = new Rng(2)
  const prompt = Array.from({ length: P }, () => rng.int(0, vocab - 2))
  const c = cfg.hiddenSize, f = cfg.intermediateSize, hd = cfg.headDim
  const params = cfg.numLayers * (c * hd * (cfg.numHeads * 2 + cfg.numKvHeads * 2) + 3 * c * f) + vocab * c
  for (const n of rowCounts) {
    const flops = n * (2 * params + 2 * vocab * c + 20 * vocab)
    const res = settings.map(() => ({ wall: [] as number[], cpu: [] as number[] }))
    const calls = (minCpu: number): { wall: number; cpu: number } => {
      const c0 = cpuSec(), w0 = performance.now()
      let toks = 0
      do toks += generate(model, prompt, { n, maxNewTokens: newTokens, seed: 3, eosTokenIds: [] }).reduce((a, s) => a + s.tokens.length, 0)
      while (cpuSec() - c0 < minCpu)
      return { wall: toks / ((performance.now() - w0) / 1000), cpu: toks / (cpuSec() - c0) }
    }
    for (const s of settings) (s.set(), calls(0))  // warm-up (binds and packs the stack once)
    let solo = 0, split = 0
    for (let r = 0; r < rounds; r++)
      settings.forEach((s, i) => {
        s.set()
        const c0 = addon.decodeStepCounts()
        const x = calls(cpuPer)
        const c1 = addon.decodeStepCounts()
        if (s.label === 'default') (solo += c1[0] - c0[0], split += c1[1] - c0[1] + c1[2] - c0[2])
        res[i].wall.push(x.wall)
        res[i].cpu.push(x.cpu)
      })
    addon.decodeThreads(0)
    const row = `| ${name} | ${n} | ${(flops / 1e6).toFixed(1)} M | ${res.map((x) => `${median(x.wall).toFixed(0)} / ${median(x.cpu).toFixed(0)}`).join(' | ')} | ${((100 * split) / Math.max(1, solo + split)).toFixed(1)} % |`
    console.error(row)
    lines.push(row)
  }
}
console.log(`- Command: \`node bin/run-ts.mjs bench/perf/decode-threads.ts --presets ${presets.join(',')} --rows ${rowCounts.join(',')} --rounds ${rounds} --cpu-seconds ${cpuPer}\`; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; ${threads} pool threads; new tokens/s (prefill of the 64-token prompt included), medians of ${rounds} interleaved rounds.\n`)
console.log(lines.join('\n'))

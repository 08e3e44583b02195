// bench/perf/engine-native: the native backend against the ts reference in ONE run (same process, same load):
// forward+backward tokens/s (PPO loss into LoRA gradients), sampling new tokens/s (KV cache, n samples sharing a
// prefill), the main matrix kernel's GFLOP/s at the model's linear shape against this machine's measured FMA peak,
// the peak memory of a training step, and the trainer's realistic sampling case: n rows of a long shared prompt, then
// the rollout's multi-turn pattern (each row + an observation, all re-sent as prompts, continued), with CPU seconds.
// Prints a markdown block for bench/RESULTS.md.
// Usage: node bin/run-ts.mjs bench/perf/engine-native.ts [--presets tiny,small] [--vocab 1024] [--rank 32] [--seconds 2]
//        [--long-prompt 800] [--observation 200] [--turns 3] [--long-ts tiny] (presets whose long case also runs on ts)
//        [--rounds 5] (interleaved sampling rounds: ts, native on 1 thread, native default, native with every decode step
//        split by output columns over all threads; wall and CPU)
import { cpus, loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { Rng } from '../../infra/rng'
import type { Backend } from '../../infra/engine/backend'
import { type ModelPresetName, MODEL_PRESETS, presetConfig } from '../../infra/engine/config'
import { createBackend } from '../../infra/engine/create-backend'
import { Learner } from '../../infra/engine/learner'
import { LORA_TARGETS } from '../../infra/engine/lora'
import { createRandomModel } from '../../infra/engine/model'
import { generate, generateBatch } from '../../infra/engine/sample'
import { KvPrefixCache } from '../../infra/engine/prefix-cache'
import { loadNativeAddon } from '../../infra/engine/native/addon'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs(
  'node bin/run-ts.mjs bench/perf/engine-native.ts [--presets tiny,small] [--vocab 1024] [--rank 32] [--seconds 2] [--long-prompt 800] [--observation 200] [--turns 3] [--long-ts tiny] [--rounds 5]',
  {
    presets: { type: 'string', default: 'tiny,small' },
    vocab: { type: 'string', default: '1024' },
    rank: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '2' },
    'long-prompt': { type: 'string', default: '800' },
    observation: { type: 'string', default: '200' },
    turns: { type: 'string', default: '3' },
    'long-ts': { type: 'string', default: 'tiny' },
    rounds: { type: 'string', default: '5' },
  },
)
const presets = opt.presets.split(',') as ModelPresetName[]
const vocab = Number(opt.vocab)
const rank = Number(opt.rank)
const seconds = Number(opt.seconds)
const longPrompt = Number(opt['long-prompt'])
const observation = Number(opt.observation)
const turns = Number(opt.turns)
const longTs = opt['long-ts'].split(',')
const interleaveRounds = Number(opt.rounds)
for (const [k, v] of [['long-prompt', longPrompt], ['observation', observation], ['turns', turns], ['vocab', vocab], ['rank', rank], ['seconds', seconds], ['rounds', interleaveRounds]] as const)
  if (!(v > 0)) throw new Error(`--${k} must be a positive number, got ${v}`)
for (const p of presets) if (!MODEL_PRESETS[p]) throw new Error(`unknown preset ${p}; use tiny or small`)
const { addon, reason } = loadNativeAddon()
if (!addon) {
  console.error(`bench/perf/engine-native: ${reason}`)
  process.exit(1)
}

/** Run fn until `seconds` have passed (after one warm-up call); units per second of wall time and per CPU second
 *  (user+sys of this process, all its threads). */
function rate(fn: () => number, secs = seconds): { perSec: number; perCpuSec: number; reps: number } {
  fn()
  let units = 0, reps = 0
  const t0 = performance.now(), c0 = process.cpuUsage()
  while (performance.now() - t0 < secs * 1000 || reps < 2) {
    units += fn()
    reps++
  }
  const c = process.cpuUsage(c0)
  return { perSec: units / ((performance.now() - t0) / 1000), perCpuSec: units / ((c.user + c.system) / 1e6), reps }
}

const B = 4, T = 128, P = 64, n = 8, newTokens = 64
interface Row { preset: string; backend: string; fb: number; smp: number; smpCpu: number; stepPeak?: number; long?: LongCase; longCached?: LongCase }
/** The realistic case: per turn, new tokens, wall seconds and CPU seconds (user+sys of this process). */
interface LongCase { turns: { prompt: number; newTokens: number; wall: number; cpu: number }[] }

const cpuSec = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}

/** n rows of one long prompt (turn 1), then each row + an observation of random tokens re-sent as its own prompt
 *  (turns 2..), as PolicyBatch sends them to EngineSampler — one generateBatch per turn. */
function longCase(model: ReturnType<typeof createRandomModel>, prefixCache?: KvPrefixCache): LongCase {
  const rng = new Rng(5)
  const toks = (k: number): number[] => Array.from({ length: k }, () => rng.int(0, vocab - 2))
  let seqs = [toks(longPrompt)]
  const out: LongCase = { turns: [] }
  for (let t = 0; t < turns; t++) {
    const c0 = cpuSec(), w0 = performance.now()
    const res = t === 0 ? generateBatch(model, seqs, { n, maxNewTokens: newTokens, seed: 7, eosTokenIds: [], prefixCache }) : generateBatch(model, seqs, { n: 1, maxNewTokens: newTokens, seed: 7 + t, eosTokenIds: [], prefixCache })
    const wall = (performance.now() - w0) / 1000, cpu = cpuSec() - c0
    const samples = res.flat()
    out.turns.push({ prompt: seqs.reduce((a, s) => Math.max(a, s.length), 0), newTokens: samples.reduce((a, s) => a + s.tokens.length, 0), wall, cpu })
    const prev = t === 0 ? samples.map(() => seqs[0]) : seqs
    seqs = samples.map((s, i) => [...prev[i], ...s.tokens, ...toks(observation)])
    console.error(`  long case${prefixCache ? ' (prefix cache)' : ''} turn ${t + 1}/${turns}: ${out.turns[t].newTokens} new tokens in ${wall.toFixed(2)} s (cpu ${cpu.toFixed(2)} s)`)
  }
  return out
}
const rows: Row[] = []
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]

function measure(name: ModelPresetName, be: Backend): Row {
  const cfg = presetConfig(name, vocab, [vocab - 1])
  const model = createRandomModel(cfg, new Rng(1), be)
  const learner = new Learner(model, { lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS] }, seed: 1 })
  const rng = new Rng(2)
  const seqs = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(0, vocab - 2)))
  const datums = seqs.map((s) => {
    const old = learner.computeLogprobs(s)
    return { inputTokens: s.slice(0, T), targetTokens: s.slice(1), oldLogprobs: old, advantages: old.map((_, i) => (i % 3) - 1), mask: old.map(() => 1) }
  })
  let stepPeak: number | undefined
  const fb = rate(() => {
    const before = be.memoryStats(true).liveBytes
    learner.forwardBackward(datums, { name: 'ppo', klBeta: 0 })
    learner.optimStep({ lr: 1e-5 })
    const st = be.memoryStats()
    if (be.name === 'native') stepPeak = Math.max(stepPeak ?? 0, st.peakBytes - before)
    return B * T
  })
  const prompt = seqs[0].slice(0, P)
  const smp = rate(() => generate(model, prompt, { n, maxNewTokens: newTokens, seed: 3, eosTokenIds: [] }).reduce((a, s) => a + s.tokens.length, 0))
  console.error(`${name}/${be.name}: forward+backward ${fb.perSec.toFixed(0)} tokens/s (${fb.reps} reps), sampling ${smp.perSec.toFixed(0)} new tokens/s, ${smp.perCpuSec.toFixed(0)} per CPU second (${smp.reps} reps)`)
  const long = be.name === 'native' || longTs.includes(name) ? longCase(model) : undefined
  // The same turns with the samples' KV caches kept (EngineSampler's prefix cache): later turns prefill only the
  // observation and the last sampled token.
  const longCached = be.name === 'native' || longTs.includes(name) ? longCase(model, new KvPrefixCache()) : undefined
  return { preset: name, backend: be.name, fb: fb.perSec, smp: smp.perSec, smpCpu: smp.perCpuSec, stepPeak, long, longCached }
}

const load0 = loadavg()[0]
const cpu0 = cpuSec()
const rss0 = process.memoryUsage().rss
for (const name of presets) {
  rows.push(measure(name, createBackend('ts')))
  rows.push(measure(name, createBackend('native')))
}

// ---- the matrix kernel at the small preset's largest linear (gate/up: x [512,256] · w [768,256]ᵀ) ----
const kern = addon.gemmKernel()
const threads = addon.threads()
function gemmRate(M: number, N: number, K: number, th: number): number {
  addon!.threads(th)
  const A = addon!.alloc(M * K, false) as Float32Array, W = addon!.alloc(N * K, false) as Float32Array, C = addon!.alloc(M * N, false) as Float32Array
  const rng = new Rng(9)
  for (let i = 0; i < A.length; i++) A[i] = rng.normal(0, 1)
  for (let i = 0; i < W.length; i++) W[i] = rng.normal(0, 1)
  const r = rate(() => {
    addon!.gemm(M, N, K, 1, A, K, 1, W, 1, K, 0, C, N)
    return 2 * M * N * K
  }, 0.5)
  addon!.release(A)
  addon!.release(W)
  addon!.release(C)
  addon!.threads(threads)
  return r.perSec / 1e9
}
const shapes: [number, number, number][] = [[512, 768, 256], [512, 256, 768], [512, 1024, 256]]
const kernelRows = [] as string[]
// The machine is shared and its load moves: each round measures the FMA peak and then each kernel shape right
// after it (0.5 s each) and takes their ratio; the table gives the median over 5 rounds of the ratio (and of each).
for (const th of [1, threads]) {
  const peaks: number[] = []
  const g: number[][] = shapes.map(() => [])
  const ratio: number[][] = shapes.map(() => [])
  for (let round = 0; round < 5; round++) {
    shapes.forEach(([M, N, K], i) => {
      const p = addon.peakGflops(0.5, th)
      const r = gemmRate(M, N, K, th)
      peaks.push(p)
      g[i].push(r)
      ratio[i].push(r / p)
    })
  }
  shapes.forEach(([M, N, K], i) =>
    kernelRows.push(`| ${M}×${K} · (${N}×${K})ᵀ | ${th} | ${median(g[i]).toFixed(1)} | ${median(peaks).toFixed(1)} | ${(100 * median(ratio[i])).toFixed(0)}% |`))
}
// ---- sampling, interleaved: the standard case on ts, native on one thread, native as it runs by default (all
// threads; each decode step on one thread or split by output columns, chosen per step by measured step times,
// src/decode.cc) and native with every decode step split by columns, in alternating rounds (one ts generate call, then
// each native setting for about as many CPU seconds), so all see the same load; per CPU second and per wall second,
// medians over rounds of each rate and of each per-round ratio; and how many of the default's decode steps ran split. ----
interface Rates { wall: number; cpu: number }
const interleaved: { preset: string; ts: Rates; one: Rates; all: Rates; cols: Rates; oneCpuRatio: number; allCpuRatio: number; colsCpuRatio: number; oneWallRatio: number; allWallRatio: number; colsWallRatio: number; split: number }[] = []
for (const name of presets) {
  const mk = (kind: 'ts' | 'native') => {
    const model = createRandomModel(presetConfig(name, vocab, [vocab - 1]), new Rng(1), createBackend(kind))
    new Learner(model, { lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS] }, seed: 1 })
    return model
  }
  const models = { ts: mk('ts'), native: mk('native') }
  const rng = new Rng(2)
  const prompt = Array.from({ length: P }, () => rng.int(0, vocab - 2))
  /** Generate calls on one backend until at least minCpu CPU seconds were spent (at least one call). */
  const calls = (kind: 'ts' | 'native', minCpu: number): Rates & { cpuSec: number } => {
    const c0 = cpuSec(), w0 = performance.now()
    let toks = 0
    do toks += generate(models[kind], prompt, { n, maxNewTokens: newTokens, seed: 3, eosTokenIds: [] }).reduce((a, s) => a + s.tokens.length, 0)
    while (cpuSec() - c0 < minCpu)
    const cpu = cpuSec() - c0
    return { wall: toks / ((performance.now() - w0) / 1000), cpu: toks / cpu, cpuSec: cpu }
  }
  /** th pool threads; decode: the decode-thread override (0 = the default choice per step). */
  const native = (th: number, decode: number, minCpu: number) => {
    addon.threads(th)
    addon.decodeThreads(decode)
    try {
      return calls('native', minCpu)
    } finally {
      addon.threads(threads)
      addon.decodeThreads(0)
    }
  }
  calls('ts', 0)
  native(1, 0, 0)
  native(threads, 0, 0)
  native(threads, threads, 0)
  const r = { ts: [] as Rates[], one: [] as Rates[], all: [] as Rates[], cols: [] as Rates[], oc: [] as number[], ac: [] as number[], cc: [] as number[], ow: [] as number[], aw: [] as number[], cw: [] as number[] }
  let solo = 0, split = 0
  for (let round = 0; round < interleaveRounds; round++) {
    const t = calls('ts', 0)
    const o = native(1, 0, t.cpuSec)
    const s0 = addon.decodeStepCounts()
    const a = native(threads, 0, t.cpuSec)
    const s1 = addon.decodeStepCounts()
    solo += s1[0] - s0[0]
    split += s1[1] - s0[1] + s1[2] - s0[2]
    const c = native(threads, threads, t.cpuSec)
    r.ts.push(t), r.one.push(o), r.all.push(a), r.cols.push(c)
    r.oc.push(o.cpu / t.cpu), r.ac.push(a.cpu / t.cpu), r.cc.push(c.cpu / t.cpu), r.ow.push(o.wall / t.wall), r.aw.push(a.wall / t.wall), r.cw.push(c.wall / t.wall)
  }
  const med = (xs: Rates[]): Rates => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) })
  const row = { preset: name, ts: med(r.ts), one: med(r.one), all: med(r.all), cols: med(r.cols), oneCpuRatio: median(r.oc), allCpuRatio: median(r.ac), colsCpuRatio: median(r.cc), oneWallRatio: median(r.ow), allWallRatio: median(r.aw), colsWallRatio: median(r.cw), split: split / Math.max(1, solo + split) }
  interleaved.push(row)
  console.error(`${name} interleaved sampling per CPU s: ts ${row.ts.cpu.toFixed(0)}, native 1 thread ${row.one.cpu.toFixed(0)} (${row.oneCpuRatio.toFixed(1)}×), default ${row.all.cpu.toFixed(0)} (${row.allCpuRatio.toFixed(1)}×, ${(100 * row.split).toFixed(1)} % of steps split), columns ${row.cols.cpu.toFixed(0)} (${row.colsCpuRatio.toFixed(1)}×); per wall s: ${row.ts.wall.toFixed(0)}, ${row.one.wall.toFixed(0)} (${row.oneWallRatio.toFixed(1)}×), ${row.all.wall.toFixed(0)} (${row.allWallRatio.toFixed(1)}×), ${row.cols.wall.toFixed(0)} (${row.colsWallRatio.toFixed(1)}×)`)
}

const load1 = loadavg()[0]
const flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? ''
const simd = ['avx2', 'fma', 'avx512f'].filter((f) => flags.split(' ').includes(f)).join(', ')

const lines: string[] = []
lines.push(`- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (${simd}); Node ${process.version}; gemm kernel ${kern}, ${threads} threads; load average ${load0.toFixed(1)} → ${load1.toFixed(1)} during the run (shared with other sessions).`)
lines.push(`- Command: \`node bin/run-ts.mjs bench/perf/engine-native.ts --presets ${presets.join(',')} --seconds ${seconds} --long-prompt ${longPrompt} --observation ${observation} --turns ${turns} --long-ts ${longTs.join(',')} --rounds ${interleaveRounds}\`; CPU seconds of the whole run ${(cpuSec() - cpu0).toFixed(0)} s over ${(performance.now() / 1000).toFixed(0)} s wall.`)
lines.push(`- Setup: random Qwen3-architecture models, vocabulary ${vocab}, LoRA rank ${rank} / alpha ${2 * rank} on q,k,v,o,gate,up,down. forward+backward: ${B} × ${T} tokens per call (PPO loss, LoRA gradients, AdamW step); sampling: n = ${n} samples of a ${P}-token prompt, ${newTokens} new tokens each, KV cache, shared prefill (new tokens/s, prefill included). Both backends measured in this one process, one after the other.`)
lines.push('')
lines.push('| preset | ts fwd+bwd tokens/s | native fwd+bwd tokens/s | ratio | ts sampling tokens/s | native sampling tokens/s | ratio | sampling ratio per CPU second | native training-step peak memory |')
lines.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const name of presets) {
  const t = rows.find((r) => r.preset === name && r.backend === 'ts')!, nv = rows.find((r) => r.preset === name && r.backend === 'native')!
  lines.push(`| ${name} | ${t.fb.toFixed(0)} | ${nv.fb.toFixed(0)} | ${(nv.fb / t.fb).toFixed(1)}× | ${t.smp.toFixed(0)} | ${nv.smp.toFixed(0)} | ${(nv.smp / t.smp).toFixed(1)}× | ${(nv.smpCpu / t.smpCpu).toFixed(1)}× (${t.smpCpu.toFixed(0)} → ${nv.smpCpu.toFixed(0)}) | ${((nv.stepPeak ?? 0) / 2 ** 20).toFixed(1)} MiB |`)
}
lines.push('')
lines.push(`Sampling, interleaved (the same standard case; each of ${interleaveRounds} rounds: one ts call, then native on 1 thread, native as by default (${threads} threads, each decode step on one thread or split by output columns, chosen per step by measured step times) and native with every decode step split by columns over ${threads} threads, each for about as many CPU seconds as the ts call, so all see the same load; medians of the rates and of the per-round ratios to ts; "split": the default's decode steps that ran split):`)
lines.push('')
lines.push(`| preset | ts new tokens/s (wall / per CPU s) | native 1 thread | ratio (wall / CPU) | native default (${threads} threads) | ratio (wall / CPU) | split | native, columns always | ratio (wall / CPU) |`)
lines.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const r of interleaved)
  lines.push(`| ${r.preset} | ${r.ts.wall.toFixed(0)} / ${r.ts.cpu.toFixed(0)} | ${r.one.wall.toFixed(0)} / ${r.one.cpu.toFixed(0)} | ${r.oneWallRatio.toFixed(1)}× / ${r.oneCpuRatio.toFixed(1)}× | ${r.all.wall.toFixed(0)} / ${r.all.cpu.toFixed(0)} | ${r.allWallRatio.toFixed(1)}× / ${r.allCpuRatio.toFixed(1)}× | ${(100 * r.split).toFixed(1)} % | ${r.cols.wall.toFixed(0)} / ${r.cols.cpu.toFixed(0)} | ${r.colsWallRatio.toFixed(1)}× / ${r.colsCpuRatio.toFixed(1)}× |`)
lines.push('')
lines.push(`Realistic sampling (the trainer's GRPO rollout): n = ${n} rows of one ${longPrompt}-token prompt, ${newTokens} new tokens each (turn 1); then each row plus a ${observation}-token observation sent back as its own prompt (as PolicyBatch sends whole sequences to EngineSampler: the prompt is prefilled again) and continued by ${newTokens} tokens, ${turns} turns in all. New tokens per second of wall time (prefill included) and per CPU second (user+sys of this process: fairer under load); one run each.`)
lines.push('')
lines.push('| preset | backend | turn: longest prompt → new tokens, wall s, cpu s | all turns: new tokens/s (wall) | new tokens per CPU second |')
lines.push('| --- | --- | --- | --- | --- |')
for (const r of rows)
  for (const [label, l] of [['', r.long], [' + prefix cache', r.longCached]] as const) {
    if (!l) continue
    const t = l.turns
    const tok = t.reduce((a, x) => a + x.newTokens, 0), wall = t.reduce((a, x) => a + x.wall, 0), cpu = t.reduce((a, x) => a + x.cpu, 0)
    lines.push(`| ${r.preset} | ${r.backend}${label} | ${t.map((x, i) => `${i + 1}: ${x.prompt} → ${x.newTokens}, ${x.wall.toFixed(2)}, ${x.cpu.toFixed(2)}`).join('; ')} | ${(tok / wall).toFixed(0)} | ${(tok / cpu).toFixed(0)} |`)
  }
for (const name of presets) {
  const t = rows.find((r) => r.preset === name && r.backend === 'ts'), nv = rows.find((r) => r.preset === name && r.backend === 'native')
  const rate = (l: LongCase, by: 'wall' | 'cpu'): number => l.turns.reduce((a, x) => a + x.newTokens, 0) / l.turns.reduce((a, x) => a + x[by], 0)
  for (const [label, a, b] of [['native / ts (both re-prefill)', nv?.long, t?.long], ['native + prefix cache / ts', nv?.longCached, t?.long], ['ts + prefix cache / ts', t?.longCached, t?.long]] as const)
    if (a && b) lines.push(`| ${name} | ${label} | | ${(rate(a, 'wall') / rate(b, 'wall')).toFixed(1)}× | ${(rate(a, 'cpu') / rate(b, 'cpu')).toFixed(1)}× |`)
}
lines.push('')
lines.push(`Training-step peak memory = the most native (off-heap) bytes held above the step's starting level during forward+backward+optimStep (the arena's counters; tensors under 16 KiB live on the JS heap and are not included); process RSS after the run ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (started at ${(rss0 / 2 ** 20).toFixed(0)} MiB).`)
lines.push('')
lines.push(`Matrix kernel (${kern} micro-kernel, f32): GFLOP/s of one gemm call at the linear shapes of the small preset (4 × 128 tokens), against a tight ${kern === 'avx512' ? 'AVX-512 (16 independent zmm FMA chains)' : 'AVX2 FMA'} loop on the same number of threads measured just before it; medians over 5 rounds (% of peak = median of the per-round ratios).`)
lines.push('')
lines.push('| gemm shape (x · wᵀ) | threads | GFLOP/s | measured FMA peak GFLOP/s | % of peak |')
lines.push('| --- | --- | --- | --- | --- |')
lines.push(...kernelRows)
console.log(lines.join('\n'))

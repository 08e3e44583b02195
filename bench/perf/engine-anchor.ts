// bench/perf/engine-anchor: our native training step against PyTorch on this machine's cores, in ONE run — per shape,
// our LoRA and full-weight forward+backward+AdamW tokens/s, then ../shared/anchors/torch_cpu_step.py (plain PyTorch,
// same architecture) at the same shape, batch, vocabulary, rank and thread count for --mode lora and --mode full, and
// ours ÷ PyTorch, wall and per CPU second; plus the FMA peak measured in this run (1 and --threads threads) and each of
// the step's gemms (q/k/v/o/gate/up/down and the head, forward x·wᵀ, dx = dy·w, dw = dyᵀ·x) as a share of it.
// It does not know what PyTorch does inside (the script's own JSON line is taken as it is), nor time attention.
// Usage: node bin/run-ts.mjs bench/perf/engine-anchor.ts [--shapes tiny,small] [--shape NAME:hidden=..,inter=..,
//        layers=..,heads=..,kv-heads=..,head-dim=..] (repeatable) [--vocab 1024] [--rank 32] [--batch 4] [--seq 128]
//        [--threads N] [--seconds 3] [--gemm-seconds 0.3] [--rounds 3] [--python /usr/bin/python3]
//        [--torch-script ../shared/anchors/torch_cpu_step.py] [--json FILE]
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Rng } from '../../infra/rng'
import { type ModelConfig, type ModelPresetName, MODEL_PRESETS, presetConfig } from '../../infra/engine/config'
import { createBackend } from '../../infra/engine/create-backend'
import { type Datum, Learner, type LearnerOptions } from '../../infra/engine/learner'
import { LORA_TARGETS } from '../../infra/engine/lora'
import { createRandomModel } from '../../infra/engine/model'
import { loadNativeAddon } from '../../infra/engine/native/addon'
import { perfArgs } from './perf-kit'

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const USAGE = 'node bin/run-ts.mjs bench/perf/engine-anchor.ts [--shapes tiny,small] [--shape NAME:hidden=H,inter=I,layers=L,heads=NH,kv-heads=KV,head-dim=D] [--vocab 1024] [--rank 32] [--batch 4] [--seq 128] [--threads N] [--seconds 3] [--gemm-seconds 0.3] [--rounds 3] [--python /usr/bin/python3] [--torch-script PATH] [--json FILE]'
const { values: o } = perfArgs(USAGE, {
  shapes: { type: 'string', default: 'tiny,small' },
  shape: { type: 'string', multiple: true, default: [] },
  vocab: { type: 'string', default: '1024' },
  rank: { type: 'string', default: '32' },
  batch: { type: 'string', default: '4' },
  seq: { type: 'string', default: '128' },
  threads: { type: 'string' },
  seconds: { type: 'string', default: '3' },
  'gemm-seconds': { type: 'string', default: '0.3' },
  rounds: { type: 'string', default: '3' },
  python: { type: 'string', default: '/usr/bin/python3' },
  'torch-script': { type: 'string', default: resolve(REPO, '../shared/anchors/torch_cpu_step.py') },
  json: { type: 'string' },
})
const fail = (msg: string): never => {
  process.stderr.write(`bench/perf/engine-anchor: ${msg}\n`)
  process.exit(1)
}
const positive = (k: string, v: string | undefined, integer = true): number => {
  const x = Number(v)
  if (!(x > 0) || (integer && !Number.isInteger(x))) fail(`--${k} must be a positive ${integer ? 'integer' : 'number'}, got ${v}`)
  return x
}
const vocab = positive('vocab', o.vocab), rank = positive('rank', o.rank), B = positive('batch', o.batch), T = positive('seq', o.seq)
const seconds = positive('seconds', o.seconds, false), gemmSeconds = positive('gemm-seconds', o['gemm-seconds'], false), rounds = positive('rounds', o.rounds)

// ---- the shapes: presets by name, and explicit dims (a reader model's shape) by --shape ----
/** The dims torch_cpu_step.py takes, by its flag names. */
const DIM_KEYS = ['hidden', 'inter', 'layers', 'heads', 'kv-heads', 'head-dim'] as const
type Dims = Record<(typeof DIM_KEYS)[number], number>
const dimsOf = (c: ModelConfig): Dims => ({ hidden: c.hiddenSize, inter: c.intermediateSize, layers: c.numLayers, heads: c.numHeads, 'kv-heads': c.numKvHeads, 'head-dim': c.headDim })
function parseShape(spec: string): { name: string; config: ModelConfig } {
  const [name, body] = spec.includes(':') ? spec.split(':', 2) : ['custom', spec]
  const d: Partial<Dims> = {}
  for (const kv of body.split(',')) {
    const [k, v] = kv.split('=')
    if (!(DIM_KEYS as readonly string[]).includes(k)) fail(`--shape ${spec}: unknown dim '${k}'; give ${DIM_KEYS.join(', ')}`)
    d[k as keyof Dims] = positive(`shape ${k}`, v)
  }
  const missing = DIM_KEYS.filter((k) => d[k] === undefined)
  if (missing.length) fail(`--shape ${spec}: missing ${missing.join(', ')}`)
  const x = d as Dims
  if (x.heads % x['kv-heads']) fail(`--shape ${spec}: heads (${x.heads}) must be a multiple of kv-heads (${x['kv-heads']})`)
  // The preset's architecture (Qwen3: q/k-norm, tied embeddings, no biases) with the given dims.
  const config: ModelConfig = { ...presetConfig('small', vocab, [vocab - 1]), hiddenSize: x.hidden, intermediateSize: x.inter, numLayers: x.layers, numHeads: x.heads, numKvHeads: x['kv-heads'], headDim: x['head-dim'] }
  return { name, config }
}
const shapes = [
  ...o.shapes.split(',').filter(Boolean).map((n) => {
    if (!MODEL_PRESETS[n as ModelPresetName]) fail(`unknown preset ${n} in --shapes; use tiny or small (or --shape for explicit dims)`)
    return { name: n, config: presetConfig(n as ModelPresetName, vocab, [vocab - 1]) }
  }),
  ...(o.shape as string[]).map(parseShape),
]
if (!shapes.length) fail('no shapes: give --shapes and/or --shape')

// ---- the anchor must be runnable before anything is timed ----
const torchScript = resolve(o['torch-script'])
if (!existsSync(torchScript)) fail(`the PyTorch anchor script is not at ${torchScript}; pass --torch-script PATH`)
// Which BLAS torch's matmul loaded: Debian's python3-torch links libblas.so.3, which is the reference BLAS (~1 GFLOP/s)
// unless OpenBLAS provides it — an anchor on the reference BLAS is no anchor.
const PROBE = "import torch; torch.ones(64, 64) @ torch.ones(64, 64); print(torch.__version__); print(next((l.split()[-1] for l in open('/proc/self/maps') if 'blas' in l or 'mkl' in l), 'none'))"
const probe = spawnSync(o.python, ['-c', PROBE], { encoding: 'utf8' })
if (probe.status !== 0) fail(`${o.python} cannot import torch (${probe.error?.message ?? probe.stderr.trim().split('\n').pop()}); install it with: apt-get install -y python3-torch libopenblas0-pthread`)
const [torchVersion, torchBlas] = probe.stdout.trim().split('\n')
if (!/openblas|mkl/.test(torchBlas))
  process.stderr.write(`bench/perf/engine-anchor: warning: PyTorch's matmul uses ${torchBlas}, not OpenBLAS or MKL — its figures are not a fair anchor; apt-get install -y libopenblas0-pthread\n`)

const { addon, reason } = loadNativeAddon()
if (!addon) fail(reason ?? 'the native addon did not load')
const nat = addon!
// One thread count for both: our pool (env SEARCHGYM_NATIVE_THREADS, else every core) and torch.set_num_threads.
const threads = o.threads === undefined ? nat.threads() : positive('threads', o.threads)
nat.threads(threads)

const cpuSec = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
/** Tokens per wall second and per CPU second (user+sys of this process, all threads) of a training step. */
interface StepRate { tokensPerS: number; tokensPerCpuS: number; steps: number }

// ---- ours: the step engine-native times (PPO loss, klBeta 0, every position masked in, AdamW) ----
function ourStep(config: ModelConfig, trainable: 'lora' | 'full'): StepRate | string {
  const model = createRandomModel(config, new Rng(1), createBackend('native'))
  const opts: LearnerOptions = { trainable, lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS] }, seed: 1, maxTokensPerPass: B * T }
  let learner: Learner
  try {
    learner = new Learner(model, opts)
  } catch (e) {
    return `not available in this engine (${(e as Error).message.split('\n')[0]})`
  }
  // A Learner without full-weight training would ignore the option and train LoRA: that is not a full-weight figure.
  if (((learner as { trainable?: unknown }).trainable ?? 'lora') !== trainable) return 'not available in this engine'
  const rng = new Rng(2)
  const datums: Datum[] = Array.from({ length: B }, () => {
    const s = Array.from({ length: T + 1 }, () => rng.int(0, vocab - 2))
    const old = learner.computeLogprobs(s)
    return { inputTokens: s.slice(0, T), targetTokens: s.slice(1), oldLogprobs: old, advantages: old.map((_, i) => (i % 3) - 1), mask: old.map(() => 1) }
  })
  const step = () => {
    learner.forwardBackward(datums, { name: 'ppo', klBeta: 0 })
    learner.optimStep({ lr: 1e-5 })
  }
  step()
  let steps = 0
  const t0 = performance.now(), c0 = cpuSec()
  while (performance.now() - t0 < seconds * 1000 || steps < 2) {
    step()
    steps++
  }
  const wall = (performance.now() - t0) / 1000, cpu = cpuSec() - c0
  return { tokensPerS: (steps * B * T) / wall, tokensPerCpuS: (steps * B * T) / cpu, steps }
}

// ---- PyTorch: the anchor script's one JSON line ----
interface TorchLine { tokens_per_s: number; tokens_per_cpu_s: number; gflops: number; steps: number; base_params: number; lora_params: number; openblas_coretype: string | null }
function torchStep(config: ModelConfig, mode: 'lora' | 'full'): TorchLine {
  const dims = Object.entries(dimsOf(config)).flatMap(([k, v]) => [`--${k}`, String(v)])
  const args = [torchScript, ...dims, '--vocab', String(vocab), '--theta', String(config.ropeTheta), '--batch', String(B), '--seq', String(T), '--mode', mode, '--rank', String(rank), '--seconds', String(seconds), '--threads', String(threads)]
  const r = spawnSync(o.python, args, { encoding: 'utf8' })
  const last = r.stdout?.trim().split('\n').pop() ?? ''
  if (r.status !== 0 || !last.startsWith('{')) fail(`the PyTorch anchor failed (${mode}): ${(r.stderr || r.error?.message || 'no output').trim().split('\n').pop()}`)
  return JSON.parse(last) as TorchLine
}

// ---- the gemms of the step at this shape, against the FMA peak measured just before them ----
/** One linear of the step: x [R, in] · w [out, in]ᵀ over R = B·T rows. */
interface Linear { name: string; out: number; in: number }
function linears(c: ModelConfig): Linear[] {
  const all: Linear[] = [
    { name: 'q', out: c.numHeads * c.headDim, in: c.hiddenSize },
    { name: 'k, v', out: c.numKvHeads * c.headDim, in: c.hiddenSize },
    { name: 'o', out: c.hiddenSize, in: c.numHeads * c.headDim },
    { name: 'gate, up', out: c.intermediateSize, in: c.hiddenSize },
    { name: 'down', out: c.hiddenSize, in: c.intermediateSize },
    { name: 'head', out: vocab, in: c.hiddenSize },
  ]
  // Linears of the same shape (q and o when heads·head-dim = hidden) are timed once, under their joined names.
  const distinct: Linear[] = []
  for (const l of all) {
    const same = distinct.find((m) => m.out === l.out && m.in === l.in)
    if (same) same.name += `, ${l.name}`
    else distinct.push({ ...l })
  }
  return distinct
}
const LAYOUTS = ['x·wᵀ', 'dy·w', 'dyᵀ·x'] as const
/** GFLOP/s of the native gemm in one layout of a linear (the calls native-backend makes: linear, linearBackward's dx,
 *  linearWeightGrad's dw), on the pool's current thread count. */
function gemmGflops(R: number, l: Linear, layout: (typeof LAYOUTS)[number]): number {
  const x = nat.alloc(R * l.in, false) as Float32Array, w = nat.alloc(l.out * l.in, false) as Float32Array, dy = nat.alloc(R * l.out, false) as Float32Array
  const outBuf = nat.alloc(Math.max(R * l.out, R * l.in, l.out * l.in), false) as Float32Array
  const rng = new Rng(9)
  for (const a of [x, w, dy]) for (let i = 0; i < a.length; i++) a[i] = rng.normal(0, 1)
  const call =
    layout === 'x·wᵀ' ? () => nat.gemm(R, l.out, l.in, 1, x, l.in, 1, w, 1, l.in, 0, outBuf, l.out)
    : layout === 'dy·w' ? () => nat.gemm(R, l.in, l.out, 1, dy, l.out, 1, w, l.in, 1, 0, outBuf, l.in)
    : () => nat.gemm(l.out, l.in, R, 1, dy, 1, l.out, x, l.in, 1, 0, outBuf, l.in)
  call()
  let n = 0
  const t0 = performance.now()
  while (performance.now() - t0 < gemmSeconds * 1000 || n < 2) {
    call()
    n++
  }
  const rate = (n * 2 * R * l.out * l.in) / ((performance.now() - t0) / 1000) / 1e9
  for (const a of [x, w, dy, outBuf]) nat.release(a)
  return rate
}
interface GemmRow { linear: string; out: number; in: number; gflops: Record<string, number>; share: Record<string, number> }
/** Each round: the peak on `threads`, then every linear in every layout; medians over rounds of rates and of ratios. */
function gemmShares(c: ModelConfig): { peak: number; rows: GemmRow[] } {
  const ls = linears(c)
  const peaks: number[] = []
  const g = ls.map(() => LAYOUTS.map(() => [] as number[])), ratio = ls.map(() => LAYOUTS.map(() => [] as number[]))
  for (let round = 0; round < rounds; round++) {
    const p = nat.peakGflops(gemmSeconds, threads)
    peaks.push(p)
    ls.forEach((l, i) => LAYOUTS.forEach((lay, j) => {
      const r = gemmGflops(B * T, l, lay)
      g[i][j].push(r)
      ratio[i][j].push(r / p)
    }))
  }
  const rows = ls.map((l, i) => ({
    linear: l.name, out: l.out, in: l.in,
    gflops: Object.fromEntries(LAYOUTS.map((lay, j) => [lay, median(g[i][j])])),
    share: Object.fromEntries(LAYOUTS.map((lay, j) => [lay, median(ratio[i][j])])),
  }))
  return { peak: median(peaks), rows }
}

// ---- the run ----
const load0 = loadavg()[0], cpu0 = cpuSec(), wall0 = performance.now()
const peakRounds = (th: number) => median(Array.from({ length: rounds }, () => nat.peakGflops(gemmSeconds, th)))
const peakOne = peakRounds(1)
const peak = { one: peakOne, all: threads === 1 ? peakOne : peakRounds(threads) }
const peakLine = `${peak.one.toFixed(1)} GFLOP/s on 1 thread${threads === 1 ? '' : `, ${peak.all.toFixed(1)} on ${threads}`}`
console.error(`FMA peak: ${peakLine}`)
const results = shapes.map(({ name, config }) => {
  const ours = { lora: ourStep(config, 'lora'), full: ourStep(config, 'full') }
  const torch = { lora: torchStep(config, 'lora'), full: torchStep(config, 'full') }
  const gemm = gemmShares(config)
  const show = (r: StepRate | string) => (typeof r === 'string' ? r : `${r.tokensPerS.toFixed(0)} tokens/s`)
  console.error(`${name}: ours LoRA ${show(ours.lora)}, full ${show(ours.full)}; PyTorch LoRA ${torch.lora.tokens_per_s.toFixed(0)}, full ${torch.full.tokens_per_s.toFixed(0)} tokens/s`)
  return { name, dims: dimsOf(config), ours, torch, gemm }
})
const load1 = loadavg()[0]

// ---- the report ----
/** The anchor's FLOP count per token (torch_cpu_step.py): 4·base + 6·LoRA with the base frozen, 6·base when all train. */
const flopsPerToken = (t: TorchLine, mode: 'lora' | 'full') => (mode === 'full' ? 6 : 4) * t.base_params + 6 * t.lora_params
const pc = (x: number) => `${(100 * x).toFixed(0)} %`
const lines: string[] = []
lines.push(`- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; node ${process.version}; load average ${load0.toFixed(1)} → ${load1.toFixed(1)} during the run. Ours: native backend, gemm kernel ${nat.gemmKernel()}; PyTorch ${torchVersion} (${o.python}, BLAS ${torchBlas}, OPENBLAS_CORETYPE ${results[0]?.torch.lora.openblas_coretype ?? 'unset'}). Both on ${threads} thread(s).`)
lines.push(`- Command: \`node bin/run-ts.mjs bench/perf/engine-anchor.ts ${process.argv.slice(2).join(' ')}\`; ${(cpuSec() - cpu0).toFixed(0)} CPU s of this process over ${((performance.now() - wall0) / 1000).toFixed(0)} s wall (PyTorch's CPU in its own processes).`)
lines.push(`- Step: forward + backward + AdamW over ${B} × ${T} tokens, vocabulary ${vocab}, random Qwen3-architecture weights (tied head); LoRA rank ${rank} (alpha ${2 * rank}) on q,k,v,o,gate,up,down with the base frozen, or every weight trained ("full"). Ours: PPO loss, klBeta 0; PyTorch: −(logprob · advantage).mean(). ${seconds} s timed per case after one warm-up step. GFLOP/s from the anchor's count (4·base + 6·LoRA frozen, 6·base full, attention left out), for both.`)
lines.push(`- Measured FMA peak (this run, median of ${rounds}): ${peakLine}.`)
lines.push('')
lines.push('| shape | step | ours tokens/s (wall / per CPU s) | PyTorch tokens/s (wall / per CPU s) | ours ÷ PyTorch (wall / CPU) | ours GFLOP/s (% of peak) | PyTorch GFLOP/s (% of peak) |')
lines.push('| --- | --- | --- | --- | --- | --- | --- |')
for (const r of results)
  for (const mode of ['lora', 'full'] as const) {
    const us = r.ours[mode], t = r.torch[mode]
    const tg = `${t.gflops.toFixed(1)} (${pc(t.gflops / peak.all)})`
    if (typeof us === 'string') {
      lines.push(`| ${r.name} | ${mode === 'lora' ? 'LoRA' : 'full'} | ${us} | ${t.tokens_per_s.toFixed(0)} / ${t.tokens_per_cpu_s.toFixed(0)} | — | — | ${tg} |`)
      continue
    }
    const ug = (flopsPerToken(t, mode) * us.tokensPerS) / 1e9
    lines.push(`| ${r.name} | ${mode === 'lora' ? 'LoRA' : 'full'} | ${us.tokensPerS.toFixed(0)} / ${us.tokensPerCpuS.toFixed(0)} | ${t.tokens_per_s.toFixed(0)} / ${t.tokens_per_cpu_s.toFixed(0)} | ${(us.tokensPerS / t.tokens_per_s).toFixed(2)}× / ${(us.tokensPerCpuS / t.tokens_per_cpu_s).toFixed(2)}× | ${ug.toFixed(1)} (${pc(ug / peak.all)}) | ${tg} |`)
  }
lines.push('')
lines.push(`Our gemm at the step's linear shapes (${B * T} rows; x·wᵀ the forward, dy·w the input gradient, dyᵀ·x the weight gradient — full-weight steps only), GFLOP/s on ${threads} thread(s) and its share of the FMA peak measured just before it (median of ${rounds} rounds of ${gemmSeconds} s each):`)
lines.push('')
lines.push(`| shape | linear | out × in | ${LAYOUTS.map((l) => `${l} GFLOP/s (% of peak)`).join(' | ')} |`)
lines.push(`| --- | --- | --- | ${LAYOUTS.map(() => '---').join(' | ')} |`)
for (const r of results)
  for (const g of r.gemm.rows)
    lines.push(`| ${r.name} | ${g.linear} | ${g.out} × ${g.in} | ${LAYOUTS.map((l) => `${g.gflops[l].toFixed(1)} (${pc(g.share[l])})`).join(' | ')} |`)
console.log(lines.join('\n'))

if (o.json)
  writeFileSync(o.json, JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, load: [load0, load1], gemmKernel: nat.gemmKernel(), torch: torchVersion, torchBlas }, settings: { vocab, rank, batch: B, seq: T, threads, seconds, gemmSeconds, rounds, torchScript }, peak: { threads1: peak.one, [`threads${threads}`]: peak.all }, shapes: results }, null, 2) + '\n')

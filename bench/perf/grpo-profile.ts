// bench/perf/grpo-profile: where one real GRPO step's CPU goes — a `train` run in this process (the shipped reader start
// by default, on an unseen recipe world, native backend) with every engine op timed in CPU seconds of the whole process
// (the native pool's threads included) under the phase that called it (sampling: prefill / decode; the learner's
// forward+backward, its old/reference log-probs, the optimizer), and the main thread's JavaScript split by what it is
// (chat template, tokenizer, env + search, trainer, engine glue, GC) from a V8 CPU profile taken over the same steps.
// Prints one table (CPU s per step and share) and each step's wall / CPU from timing.jsonl; --json writes it all,
// plus a digest of the run's metrics (sampled tokens, rewards, losses) so two trees' runs can be checked equal.
// Usage: node bin/run-ts.mjs bench/perf/grpo-profile.ts [--model curriculum/starts/reader-v0] [--world DIR | --world-seed 103]
//        [--dir /tmp/searchgym-grpo-profile] [--steps 4] [--group 16] [--batch 256] [--micro-batch 16] [--max-turns 4]
//        [--max-tokens 48] [--rank 16] [--ppo-mini-batch 64] [--ppo-epochs 2] [--warmup 1] [--json FILE]
// --warmup K: the first K steps run unmeasured (first-touch memory, JIT) and the table covers steps K+1..steps.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { buildRecipeWorlds, runTraining } from '../../curriculum'
import { resolveTrainConfig } from '../../agent'
import { ChatCodec } from '../../infra/engine/chat/codec'
import { Learner } from '../../infra/engine/learner'
import { loadNativeAddon } from '../../infra/engine/native/addon'
import { NativeBackend } from '../../infra/engine/native/native-backend'
import { machineLine, perfArgs } from './perf-kit'

const USAGE =
  'node bin/run-ts.mjs bench/perf/grpo-profile.ts [--model DIR] [--world DIR | --world-seed 103] [--dir DIR] [--steps 4] [--group 16] [--batch 256] [--micro-batch 16] [--max-turns 4] [--max-tokens 48] [--rank 16] [--ppo-mini-batch 64] [--ppo-epochs 2] [--warmup 1] [--json FILE]'
const { values: o } = perfArgs(USAGE, {
  model: { type: 'string', default: 'curriculum/starts/reader-v0' },
  world: { type: 'string' },
  'world-seed': { type: 'string', default: '103' },
  dir: { type: 'string', default: '/tmp/searchgym-grpo-profile' },
  steps: { type: 'string', default: '4' },
  warmup: { type: 'string', default: '1' },
  group: { type: 'string', default: '16' },
  batch: { type: 'string', default: '256' },
  'micro-batch': { type: 'string', default: '16' },
  'max-turns': { type: 'string', default: '4' },
  'max-tokens': { type: 'string', default: '48' },
  rank: { type: 'string', default: '16' },
  'ppo-mini-batch': { type: 'string', default: '64' },
  'ppo-epochs': { type: 'string', default: '2' },
  json: { type: 'string' },
})
const int = (k: keyof typeof o): number => {
  const x = Number(o[k])
  if (!(Number.isInteger(x) && x >= 1)) {
    process.stderr.write(`bench/perf/grpo-profile: --${k} must be a positive integer, got ${o[k]}\n`)
    process.exit(2)
  }
  return x
}
const totalSteps = int('steps'), group = int('group'), batch = int('batch')
const warmup = Number(o.warmup)
if (!(Number.isInteger(warmup) && warmup >= 0 && warmup < totalSteps)) {
  process.stderr.write(`bench/perf/grpo-profile: --warmup must be an integer in [0, --steps), got ${o.warmup}\n`)
  process.exit(2)
}
/** Steps measured. */
const steps = totalSteps - warmup
const model = resolve(o.model!)
if (!existsSync(join(model, 'config.json'))) {
  process.stderr.write(`bench/perf/grpo-profile: no model folder at ${model}\n`)
  process.exit(2)
}

// ---- CPU clocks: the process (every thread) and the main thread alone (/proc, clock ticks of 10 ms) ----
const cpuMs = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}
const mainThreadMs = (): number => {
  const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ')
  return (Number(parts[11]) + Number(parts[12])) * 10 // utime + stime (fields 14, 15), at 100 ticks/s
}

// ---- engine ops: every NativeBackend method, timed under the phase that called it ----
interface Acc { calls: number; cpuMs: number; wallMs: number; tokens: number; attended: number }
const ops = new Map<string, Acc>()
let phase = 'sampling'
const acc = (k: string): Acc => {
  let a = ops.get(k)
  if (!a) ops.set(k, (a = { calls: 0, cpuMs: 0, wallMs: 0, tokens: 0, attended: 0 }))
  return a
}
let depth = 0
const proto = NativeBackend.prototype as unknown as Record<string, unknown>
for (const name of Object.getOwnPropertyNames(NativeBackend.prototype)) {
  const f = proto[name]
  if (name === 'constructor' || typeof f !== 'function') continue
  proto[name] = function (this: unknown, ...args: unknown[]) {
    if (depth > 0) return (f as (...a: unknown[]) => unknown).apply(this, args)
    depth++
    const c0 = cpuMs(), t0 = performance.now()
    try {
      return (f as (...a: unknown[]) => unknown).apply(this, args)
    } finally {
      depth--
      const a = acc(`${phase} · ${name}`)
      a.calls++
      a.cpuMs += cpuMs() - c0
      a.wallMs += performance.now() - t0
      // Rows and attended (query, key) pairs of the sampler's stack calls: prefill and decode volume.
      if (name === 'forwardCached' || name === 'decodeSample') {
        const ids = args[name === 'forwardCached' ? 1 : 2] as Int32Array, starts = args[name === 'forwardCached' ? 4 : 4] as Int32Array
        const cu = name === 'forwardCached' ? (args[2] as Int32Array) : Int32Array.from({ length: ids.length + 1 }, (_, i) => i)
        a.tokens += ids.length
        for (let b = 0; b + 1 < cu.length; b++) {
          const T = cu[b + 1] - cu[b]
          a.attended += T * starts[b] + (T * (T + 1)) / 2
        }
      }
    }
  }
}
// The learner's entry points set the phase their ops are counted under (they are synchronous).
const lp = Learner.prototype as unknown as Record<string, unknown>
for (const [name, label] of [['forwardBackward', 'learner fwd+bwd'], ['targetLogprobs', 'learner old/ref log-probs'], ['computeLogprobs', 'learner old/ref log-probs'], ['optimStep', 'learner optimizer']] as const) {
  const f = lp[name] as (...a: unknown[]) => unknown
  lp[name] = function (this: unknown, ...args: unknown[]) {
    const was = phase
    phase = was.startsWith('learner') ? was : label
    try {
      return f.apply(this, args)
    } finally {
      phase = was
    }
  }
}
void ChatCodec // (its time is read from the CPU profile below, by file)

// ---- the world and the run folder ----
const dir = resolve(o.dir!)
mkdirSync(dir, { recursive: true })
const world = o.world
  ? resolve(o.world)
  : (await buildRecipeWorlds({ preset: 'small', config: JSON.parse(readFileSync('bench/perf/configs/world-small2x-1to2.json', 'utf8')), seeds: [int('world-seed')] }, join(dir, 'worlds'), () => undefined))[0]
const out = join(dir, 'run')
rmSync(out, { recursive: true, force: true })
const config = {
  steps: totalSteps, groupSize: group, batchSize: batch, microBatch: int('micro-batch'), maxTurns: int('max-turns'), maxTokensPerTurn: int('max-tokens'),
  lora: { rank: int('rank'), alpha: 2 * int('rank') }, checkpointEvery: totalSteps, evalEvery: 0, heldOut: 64, seed: 0, klBeta: 0, refillRounds: 0,
  lr: 3e-4, temperature: 0.8, switchSteps: totalSteps, maxHops: 1, ppoMiniBatch: int('ppo-mini-batch'), ppoEpochs: int('ppo-epochs'),
  protocol: 'search-r1', gym: { topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true, reward: 'f1' },
}

// ---- the run, under a V8 CPU profile of the main thread ----
const session = new Session()
session.connect()
const post = <T>(method: string, params?: object): Promise<T> => new Promise((res, rej) => session.post(method, params ?? {}, (e, r) => (e ? rej(e) : res(r as T))))
await post('Profiler.enable')
await post('Profiler.setSamplingInterval', { interval: 200 })
let c0 = 0, m0 = 0, t0 = 0
let started: Promise<unknown> | null = null
const start = () => {
  ops.clear()
  c0 = cpuMs()
  m0 = mainThreadMs()
  t0 = performance.now()
  started = post('Profiler.start')
}
if (warmup === 0) start()
// The loop logs `step K/N …` when step K is done: the measurement starts after the warm-up steps.
const r = await runTraining({ world, model, curriculum: 'two-stage', out, config: resolveTrainConfig(config), backend: 'native', log: (l) => void (l.startsWith(`step ${warmup}/`) && start()) })
await started
const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop')
const totalCpu = cpuMs() - c0, mainCpu = mainThreadMs() - m0, wall = performance.now() - t0

// ---- the main thread's JavaScript by file (native calls' own wall on the main thread left out: counted as ops) ----
interface CpuProfile { nodes: { id: number; callFrame: { functionName: string; url: string } }[]; samples: number[]; timeDeltas: number[] }
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const js = new Map<string, number>()
let sampled = 0
const otherTop = new Map<string, number>()
// The addon's own functions (no URL, named like its exports) are native time the op wrappers above already count.
const addonNames = new Set(Object.keys(loadNativeAddon().addon ?? {}))
const kind = (url: string, fn: string): string | null => {
  if (url.includes('native-backend.ts') || (url === '' && addonNames.has(fn))) return null // the op wrappers above count these
  if (fn === '(garbage collector)') return 'GC'
  if (fn === '(idle)' || fn === '(program)') return 'V8 / idle'
  if (url.includes('@huggingface/jinja') || url.includes('chat-template') || url.includes('/chat/')) return 'chat template + codec'
  if (url.includes('tokenizer')) return 'tokenizer'
  if (/\/(gym|world)\//.test(url) || url.includes('better-sqlite3') || url.includes('minisearch')) return 'env + search'
  if (/\/agent\/|\/curriculum\//.test(url)) return 'trainer + rollout'
  if (url.includes('/infra/engine/')) return 'engine glue (JS)'
  return 'other JS'
}
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i])!
  const dt = (profile.timeDeltas[i] ?? 0) / 1000
  sampled += dt
  const k = kind(n.callFrame.url, n.callFrame.functionName)
  if (k) js.set(k, (js.get(k) ?? 0) + dt)
  if (k === 'other JS') otherTop.set(`${n.callFrame.functionName} ${n.callFrame.url}`, (otherTop.get(`${n.callFrame.functionName} ${n.callFrame.url}`) ?? 0) + dt)
}
// Sampled JS time is wall on the main thread; scale it to the main thread's CPU left after the ops' main-thread part.
const opsCpu = [...ops.values()].reduce((a, x) => a + x.cpuMs, 0)
const opsWall = [...ops.values()].reduce((a, x) => a + x.wallMs, 0)
const jsWall = [...js.entries()].filter(([k]) => k !== 'V8 / idle').reduce((a, [, v]) => a + v, 0)
const jsCpu = Math.max(0, totalCpu - opsCpu)

// ---- the table ----
const group3 = (k: string): string => {
  const [ph, op] = k.split(' · ')
  if (ph === 'sampling') return op === 'forwardCached' ? 'sampling: prefill (forwardCached)' : op === 'decodeSample' ? 'sampling: decode + head + draw (decodeSample)' : 'sampling: KV caches and other ops'
  if (ph === 'learner fwd+bwd') {
    if (/^head|targetLogprobs|logSoftmax/.test(op)) return 'learner fwd+bwd: head'
    if (/^attention/.test(op)) return 'learner fwd+bwd: attention'
    if (/^linear/.test(op)) return 'learner fwd+bwd: linears'
    return 'learner fwd+bwd: norms, rope, swiglu, embedding, copies'
  }
  return ph
}
const rows = new Map<string, number>()
for (const [k, a] of ops) rows.set(group3(k), (rows.get(group3(k)) ?? 0) + a.cpuMs)
for (const [k, v] of js) if (k !== 'V8 / idle') rows.set(`JS: ${k}`, (jsWall > 0 ? (v / jsWall) * jsCpu : 0) + (rows.get(`JS: ${k}`) ?? 0))
const timing = readFileSync(join(out, 'timing.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>)
const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>)
const digest = createHash('sha256').update(readFileSync(join(out, 'metrics.jsonl'))).digest('hex').slice(0, 16)
const adapterDigest = createHash('sha256').update(readFileSync(join(out, 'adapter', 'adapter_model.safetensors'))).digest('hex').slice(0, 16)
const perStep = (ms: number) => ms / 1000 / steps
const lines = [
  `- ${cpus().length} × ${cpus()[0]?.model.trim()}; ${machineLine()}. Model ${o.model}; world ${o.world ?? `small2x-1to2 seed ${o['world-seed']}`}; native backend.`,
  `- ${totalSteps} GRPO steps, the first ${warmup} unmeasured: group ${group}, batch ${batch} episodes, ≤ ${o['max-turns']} turns × ${o['max-tokens']} tokens, LoRA r${o.rank}, PPO mini-batch ${o['ppo-mini-batch']} × ${o['ppo-epochs']} epochs; ${r.optimizerSteps} optimizer steps.`,
  `- Measured steps: ${(wall / 1000).toFixed(1)} s wall, ${(totalCpu / 1000).toFixed(1)} CPU s (main thread ${(mainCpu / 1000).toFixed(1)} s); engine ops ${(opsCpu / 1000).toFixed(1)} CPU s (${(opsWall / 1000).toFixed(1)} s wall on the main thread); JS sampled ${(sampled / 1000).toFixed(1)} s.`,
  ...(['forwardCached', 'decodeSample'] as const).map((n) => {
    const a = ops.get(`sampling · ${n}`) ?? { calls: 0, tokens: 0, attended: 0, cpuMs: 0 }
    return `- ${n === 'forwardCached' ? 'Prefill' : 'Decode'}: ${(a.tokens / steps).toFixed(0)} rows per step in ${(a.calls / steps).toFixed(0)} calls, ${(a.attended / steps / 1e6).toFixed(1)} M attended (query, key) pairs per step (mean context ${(a.attended / Math.max(1, a.tokens)).toFixed(0)}), ${((a.tokens / a.cpuMs) * 1000).toFixed(0)} rows per CPU s.`
  }),
  `- metrics.jsonl sha256 ${digest}…, adapter ${adapterDigest}…; sampled tokens per step ${metrics.map((m) => timing.find((t) => t.step === m.step)?.sampledTokens).join(', ')} (every step); rewards ${metrics.map((m) => m.rewardMean.toFixed(4)).join(', ')}; losses ${metrics.map((m) => m.loss.toExponential(6)).join(', ')}.`,
  '',
  '| part | CPU s per step | share |',
  '| --- | ---: | ---: |',
  ...[...rows].sort((a, b) => b[1] - a[1]).map(([k, v]) => `| ${k} | ${perStep(v).toFixed(3)} | ${((100 * v) / totalCpu).toFixed(1)} % |`),
  `| **total** | **${perStep(totalCpu).toFixed(3)}** | 100 % |`,
  '',
  '| step | wall s | CPU s | sampling s (wall) | learn s (wall) | trainer s (wall) | sampled tokens | groups kept |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...timing.filter((t) => t.step > warmup).map((t) => `| ${t.step} | ${t.seconds.toFixed(2)} | ${t.cpuS !== undefined ? t.cpuS.toFixed(2) : '—'} | ${t.samplingS.toFixed(2)} | ${t.learnS.toFixed(2)} | ${t.trainerS.toFixed(2)} | ${t.sampledTokens} | ${metrics.find((m) => m.step === t.step)?.groupsKept} |`),
]
console.log(lines.join('\n'))
if (process.env.GRPO_PROFILE_DEBUG) console.log([...otherTop].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${v.toFixed(0)} ms ${k}`).join('\n'))
if (o.json)
  writeFileSync(o.json, JSON.stringify({ steps, group, batch, wallS: wall / 1000, cpuS: totalCpu / 1000, mainThreadCpuS: mainCpu / 1000, optimizerSteps: r.optimizerSteps, metricsDigest: digest, adapterDigest, rows: Object.fromEntries([...rows].map(([k, v]) => [k, v / 1000])), ops: Object.fromEntries([...ops].map(([k, a]) => [k, { calls: a.calls, cpuS: a.cpuMs / 1000, wallS: a.wallMs / 1000, tokens: a.tokens, attended: a.attended }])), js: Object.fromEntries(js), timing, metrics }, null, 2) + '\n')

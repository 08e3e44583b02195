// curriculum/reading/run: `searchgym train reader` as a library call — the reading curriculum. Builds the recipe's
// worlds, the start model (random, with the recipe's BPE tokenizer) and the items (the oracle's solved episodes of the
// training worlds, the fact-disjoint held-out slice left out; the validation world's for the gates), then runs the
// phases in order: full-weight cross-entropy on drills sampled by the phase's mix (the loss on the target turn only),
// AdamW with warmup + cosine, a gate evaluated every few steps on the validation items, the phase's best model handed
// to the next phase. Every phase is resumable (a checkpoint every `checkpointEvery` steps; a rerun goes on from it, and
// the batches are a function of the seed, the phase and the step, so the run ends where an uninterrupted one would),
// and a finished phase can be adopted from a committed folder (`committed`), so a fresh clone resumes where the last
// run stopped. Knows the engine, the oracle and the worlds; not the CLI.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { buildDatums, microBatches, openBackend } from '../../agent'
import { tokenizerSourceOf } from '../../agent'
import { resolveRunGym, type GymOptions } from '../../gym'
import { readJsonFile } from '../../infra/config'
import { ConfigError } from '../../infra/errors'
import { canonicalJson, sha256 } from '../../infra/hash'
import { ChatCodec, chatTemplateOf, copyTokenizerFiles, initModel, Learner, loadModel, loadTokenizer, modelContextLength, saveModel, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { passPoint } from '../../infra/run-points'
import { lockDir } from '../../infra/lock'
import type { Qa } from '../../world'
import { funnelLine, runFunnel } from '../funnel'
import { CurriculumSource } from '../source'
import { curriculumPreset } from '../stages'
import { buildRecipeWorlds, WorldPool } from '../world-pool'
import type { ReaderConfig, ReaderPhase } from './config'
import { scoreDrill, type DrillScore } from './evaluate'
import { DRILL_KINDS, type DrillKind } from './kinds'
import { answerContiguity, DrillCache, playOracle, type PoolItem } from './pool'

export interface ReaderRunOptions {
  config: ReaderConfig
  /** The config file (relative paths in it are read from its folder); recorded in OUT/config.json. */
  configFile?: string
  out: string
  backend?: string
  /** Stop this invocation after this many CPU seconds of training steps (a checkpoint is written; rerun to go on). */
  cpuBudgetS?: number
  /** A folder of committed phases (NAME/config.json, model.safetensors, phase.json): a phase missing in OUT whose
   *  fingerprint matches is adopted from it; a phase finished here is written to it. */
  committed?: string
  log?: (line: string) => void
}

export interface PhaseRecord {
  name: string
  fingerprint: string
  /** steps: ran to `steps`; stopAt: ended at the phase's pinned `stopAt`; plateau: the gate stopped rising; budget: the
   *  phase's CPU budget ran out (machine-dependent). */
  reason: 'plateau' | 'steps' | 'stopAt' | 'budget'
  steps: number
  best: { step: number; value: number }
  cpuS: number
  wallS: number
  evals: Record<string, unknown>[]
}

export interface ReaderRunResult {
  /** The phases finished (adopted or run), in order. */
  phases: PhaseRecord[]
  /** True when the invocation budget stopped it before the last phase ended. */
  paused: boolean
  /** OUT/model when every phase is done. */
  model?: string
}

const cpuSeconds = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/** lr at 1-based step s of a phase: linear warmup, then cosine to lr/10 at the phase's planned steps. */
export function phaseLr(p: Pick<ReaderPhase, 'lr' | 'warmup' | 'steps'>, s: number): number {
  if (s <= p.warmup) return (p.lr * s) / Math.max(1, p.warmup)
  const x = Math.min(1, (s - p.warmup) / Math.max(1, p.steps - p.warmup))
  return p.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * x)))
}

/** The fingerprint of phase i: everything that decides its weights (the config without the later phases). */
export function phaseFingerprint(c: ReaderConfig, i: number): string {
  const { phases, ...rest } = c
  return sha256(canonicalJson({ ...rest, phases: phases.slice(0, i + 1) })).slice(0, 16)
}

/** The items of phase `p`'s batch at step `s`: (kind, item index) pairs, a function of the seed, the phase and s. */
export function drawBatch(seed: number, p: ReaderPhase, s: number, eligible: ReadonlyMap<DrillKind, readonly number[]>): { kind: DrillKind; i: number }[] {
  const kinds = DRILL_KINDS.filter((k) => (p.mix[k] ?? 0) > 0 && (eligible.get(k)?.length ?? 0) > 0)
  const w = kinds.map((k) => p.mix[k]!)
  const rng = Rng.derive(seed, 'reader-batch', p.name, s)
  const out: { kind: DrillKind; i: number }[] = []
  for (let b = 0; b < p.batch; b++) {
    const kind = kinds[rng.weightedIndex(w)]
    out.push({ kind, i: rng.pick(eligible.get(kind)!) })
  }
  return out
}

function modelFiles(from: string, to: string): void {
  mkdirSync(to, { recursive: true })
  for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(from, f), join(to, f))
}

/** Keep the lines of a JSONL file whose `step` ≤ step (the steps after a checkpoint are run again). */
function truncateJsonl(file: string, step: number): void {
  if (!existsSync(file)) return
  const kept = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { step: number }).step <= step)
  writeFileSync(file, kept.map((l) => l + '\n').join(''))
}

interface Context {
  c: ReaderConfig
  gym: GymOptions
  codec: ChatCodec
  train: DrillCache
  valid: DrillCache
  validIdx: number[]
  validPool: WorldPool
  validE2e: Qa[]
  validE2e2: Qa[]
  o: ReaderRunOptions
  backend: string
  budgetLeft: () => number
}

async function evaluate(ctx: Context, learner: Learner, p: ReaderPhase, step: number): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> = { step }
  const metrics = [...new Set([p.gate.metric, ...p.gate.report])]
  for (const m of metrics) {
    if (m === 'e2e' || m === 'e2e2') {
      const f = await runFunnel(learner.model, ctx.codec, ctx.validPool, m === 'e2e' ? ctx.validE2e : ctx.validE2e2, { protocol: ctx.c.protocol, gym: ctx.c.gym, oracleAnswer: 'read' })
      row[m] = { n: f.n, search: f.search / Math.max(1, f.n), opened: f.opened / Math.max(1, f.n), f1: f.f1, em: f.em, readF1: f.readF1, readEm: f.readEm, factF1: f.factF1, factEm: f.factEm }
      ctx.o.log?.(`reader ${p.name} step ${step}: ${m} ${funnelLine(f)}`)
    } else {
      const s: DrillScore = scoreDrill(learner.model, ctx.codec, ctx.valid, m, ctx.validIdx, ctx.gym, { n: ctx.c.eval.items })
      row[m] = { n: s.n, em: s.em, f1: s.f1, loss: s.loss, examples: s.examples.slice(0, 2) }
      ctx.o.log?.(`reader ${p.name} step ${step}: ${m} EM ${(100 * s.em).toFixed(1)}% F1 ${(100 * s.f1).toFixed(1)}% loss ${s.loss.toFixed(3)} (n ${s.n}) e.g. ${JSON.stringify(s.examples[0] ?? {})}`)
    }
  }
  return row
}

function gateValue(row: Record<string, unknown>, metric: string): number {
  const v = row[metric] as { em?: number } | undefined
  return v?.em ?? NaN
}

/** Runs (or resumes) one phase from `startModel`; returns its record, or undefined when the invocation budget paused it. */
async function runPhase(ctx: Context, i: number, startModel: string): Promise<PhaseRecord | undefined> {
  const { c, o } = ctx
  const p = c.phases[i]
  const fp = phaseFingerprint(c, i)
  const dir = join(o.out, 'phases', p.name)
  const ckpt = join(dir, 'checkpoint')
  const progressFile = join(ckpt, 'progress.json')
  const metricsFile = join(dir, 'metrics.jsonl')
  const evalFile = join(dir, 'eval.jsonl')
  const timingFile = join(dir, 'timing.jsonl')
  mkdirSync(dir, { recursive: true })
  type Progress = { fingerprint: string; step: number; best: { step: number; value: number }; bad: number; cpuS: number; wallS: number; evals: Record<string, unknown>[] }
  let prog: Progress = { fingerprint: fp, step: 0, best: { step: 0, value: -Infinity }, bad: 0, cpuS: 0, wallS: 0, evals: [] }
  const learner = new Learner(loadModel(existsSync(progressFile) ? ckpt : startModel, openBackend(ctx.backend)), { trainable: 'full', maxTokensPerPass: 8192 })
  if (existsSync(progressFile)) {
    const saved = JSON.parse(readFileSync(progressFile, 'utf8')) as Progress
    if (saved.fingerprint !== fp) throw new ConfigError('reader.resume', `${dir} holds phase ${p.name} of another config (fingerprint ${saved.fingerprint}, this config ${fp}); use a new --out or delete that folder`)
    learner.loadState(ckpt)
    prog = saved
    truncateJsonl(metricsFile, prog.step)
    truncateJsonl(evalFile, prog.step)
    truncateJsonl(timingFile, prog.step)
    o.log?.(`reader ${p.name}: resuming after step ${prog.step} (${prog.cpuS.toFixed(0)} CPU s so far)`)
  } else {
    writeFileSync(metricsFile, '')
    writeFileSync(evalFile, '')
    writeFileSync(timingFile, '')
  }
  const eligible = new Map<DrillKind, number[]>()
  for (const k of DRILL_KINDS) if ((p.mix[k] ?? 0) > 0) eligible.set(k, ctx.train.indices(k).filter((j) => ctx.train.items[j].hops <= p.maxHops))
  o.log?.(`reader ${p.name}: ${p.steps} steps${p.stopAt > 0 && p.stopAt < p.steps ? ` (ends at ${p.stopAt})` : ''} × ${p.batch}, lr ${p.lr}, mix ${Object.entries(p.mix).map(([k, w]) => `${k}=${w} (${eligible.get(k as DrillKind)?.length ?? 0} items)`).join(', ')}; gate ${p.gate.metric} EM every ${p.gate.every} steps, patience ${p.gate.patience}`)
  const c0 = cpuSeconds()
  const t0 = performance.now()
  let evalCpu = 0
  const trainCpu = () => cpuSeconds() - c0 - evalCpu
  const checkpoint = () => {
    const tmp = `${ckpt}.tmp`
    rmSync(tmp, { recursive: true, force: true })
    learner.saveState(tmp)
    const now: Progress = { ...prog, cpuS: prog.cpuS + trainCpu(), wallS: prog.wallS + (performance.now() - t0) / 1000 }
    writeFileSync(join(tmp, 'progress.json'), JSON.stringify(now) + '\n')
    rmSync(ckpt, { recursive: true, force: true })
    renameSync(tmp, ckpt)
  }
  let reason: PhaseRecord['reason'] = 'steps'
  let lastEval = prog.evals.length ? (prog.evals[prog.evals.length - 1].step as number) : -1
  const doEval = async (step: number) => {
    const e0 = cpuSeconds()
    const row = await evaluate(ctx, learner, p, step)
    evalCpu += cpuSeconds() - e0
    prog.evals.push(row)
    appendFileSync(evalFile, JSON.stringify(row) + '\n')
    // Times go apart from the evaluations (which are a function of the config): the curves per CPU-second read both.
    appendFileSync(timingFile, JSON.stringify({ step, trainCpuS: Math.round(10 * (prog.cpuS + trainCpu())) / 10, evalCpuS: Math.round(10 * (cpuSeconds() - e0)) / 10, wallS: Math.round(prog.wallS + (performance.now() - t0) / 1000) }) + '\n')
    lastEval = step
    const v = gateValue(row, p.gate.metric)
    if (v > prog.best.value + p.gate.minDelta || prog.best.step === 0) {
      prog.best = { step, value: v }
      prog.bad = 0
      rmSync(join(dir, 'best'), { recursive: true, force: true })
      saveModel(learner.model, join(dir, 'best'))
    } else prog.bad++
  }
  const first = prog.step
  const end = p.stopAt > 0 ? p.stopAt : p.steps
  if (p.stopAt > 0 && p.stopAt < p.steps) reason = 'stopAt'
  for (let s = prog.step + 1; s <= end; s++) {
    const batch = drawBatch(c.seed, p, s, eligible)
    const seqs = batch.map((b) => ctx.train.get(b.i, b.kind)!)
    const datums = buildDatums(seqs.map((q) => ({ seq: { ids: Array.from(q.ids), sampled: Array.from(q.mask), logprobs: new Array(q.ids.length).fill(0), truncatedTurns: 0 }, advantage: 0 })), 'token-mean')
    let loss = 0, tokens = 0
    for (const mb of microBatches(datums, c.optimizer.microBatch)) {
      const r = learner.forwardBackward(mb, { name: 'cross_entropy' })
      loss += r.loss
      tokens += r.metrics.tokens
    }
    const lr = phaseLr(p, s)
    const st = learner.optimStep({ lr, betas: c.optimizer.betas, weightDecay: c.optimizer.weightDecay, gradClip: c.optimizer.gradClip })
    prog.step = s
    const cpu = prog.cpuS + trainCpu()
    appendFileSync(metricsFile, JSON.stringify({ step: s, loss, tokens, lr, gradNorm: st.gradNorm }) + '\n')
    passPoint(`reader-${p.name}-step-${s}`)
    if (s % 50 === 0 || s === first + 1) {
      const rate = (s - first) / ((performance.now() - t0) / 1000)
      o.log?.(`reader ${p.name} step ${s}/${end} loss ${loss.toFixed(4)} lr ${lr.toExponential(2)} (${tokens} tokens) ${rate.toFixed(2)} steps/s, ${cpu.toFixed(0)} CPU s, ETA ${Math.round((end - s) / rate)} s`)
    }
    const budgetDone = p.cpuBudgetS > 0 && cpu >= p.cpuBudgetS
    if (s % p.gate.every === 0 || s === end || budgetDone) {
      await doEval(s)
      if (prog.bad >= p.gate.patience) {
        reason = 'plateau'
        break
      }
    }
    if (budgetDone) {
      reason = 'budget'
      o.log?.(`reader ${p.name}: the phase's CPU budget of ${p.cpuBudgetS} s is spent at step ${s}`)
      break
    }
    if (s % c.checkpointEvery === 0) checkpoint()
    if (ctx.budgetLeft() - trainCpu() <= 0) {
      checkpoint()
      o.log?.(`reader ${p.name}: this run's CPU budget is spent at step ${s}; checkpoint written — rerun the same command to go on`)
      return undefined
    }
  }
  if (lastEval !== prog.step) await doEval(prog.step)
  const rec: PhaseRecord = { name: p.name, fingerprint: fp, reason, steps: prog.step, best: prog.best, cpuS: Math.round(prog.cpuS + trainCpu()), wallS: Math.round(prog.wallS + (performance.now() - t0) / 1000), evals: prog.evals }
  const model = join(dir, 'model')
  rmSync(model, { recursive: true, force: true })
  renameSync(join(dir, 'best'), model)
  copyTokenizerFiles(startModel, model)
  writeFileSync(join(dir, 'phase.json'), JSON.stringify(rec, null, 1) + '\n')
  rmSync(ckpt, { recursive: true, force: true })
  o.log?.(`reader ${p.name}: done (${reason}) after ${prog.step} steps, ${rec.cpuS} CPU s; best ${p.gate.metric} EM ${(100 * prog.best.value).toFixed(1)}% at step ${prog.best.step}`)
  return rec
}

/** Runs the reading curriculum (see the header); resumable. */
export async function runReader(o: ReaderRunOptions): Promise<ReaderRunResult> {
  const c = o.config
  const base = o.configFile ? dirname(resolve(o.configFile)) : process.cwd()
  const backend = o.backend ?? 'auto'
  const gym = resolveRunGym(c.gym, c.protocol)
  mkdirSync(o.out, { recursive: true })
  // One writer per run folder (infra/lock, as train and train sft take it): a second is refused before any work.
  const lock = lockDir(o.out, 'train reader')
  try {
    return await runReaderLocked(o, c, base, backend, gym)
  } finally {
    lock.release()
  }
}

async function runReaderLocked(o: ReaderRunOptions, c: ReaderConfig, base: string, backend: string, gym: GymOptions): Promise<ReaderRunResult> {
  writeFileSync(join(o.out, 'config.json'), JSON.stringify(c, null, 1) + '\n')
  const budget0 = cpuSeconds()
  const budgetLeft = () => (o.cpuBudgetS === undefined ? Infinity : o.cpuBudgetS - (cpuSeconds() - budget0))
  // 1. Worlds.
  const worldConfig = typeof c.worlds.config === 'string' ? (readJsonFile(resolve(base, c.worlds.config), 'world config') as Record<string, unknown>) : c.worlds.config
  const recipe = (seeds: number[]) => ({ preset: c.worlds.preset, config: worldConfig, seeds })
  const cache = join(o.out, 'worlds')
  const trainDirs = await buildRecipeWorlds(recipe(c.worlds.train), cache, o.log)
  const validDirs = await buildRecipeWorlds(recipe(c.worlds.valid), cache, o.log)
  if (c.worlds.test.length) await buildRecipeWorlds(recipe(c.worlds.test), cache, o.log)
  // 2. The start model.
  let init: string
  if (c.init.model) init = isAbsolute(c.init.model) ? c.init.model : resolve(base, c.init.model)
  else {
    init = join(o.out, 'init')
    if (!existsSync(join(init, 'model.safetensors'))) {
      const flag = { kind: 'bpe' as const, dirs: trainDirs.slice(0, c.init.tokenizerWorlds), vocabSize: c.init.vocab }
      initModel({ arch: 'qwen3', preset: c.init.preset as 'tiny', tokenizer: await tokenizerSourceOf(flag), out: init, seed: c.init.seed, ropeTheta: c.init.ropeTheta, force: true })
      o.log?.(`reader: start model ${init} (${c.init.preset}, bpe tokenizer of ${flag.dirs.map((d) => basename(d)).join(', ')} @${c.init.vocab})`)
    }
  }
  const tokenizer = loadTokenizer(init)
  const codec = new ChatCodec(tokenizer, chatTemplateOf(tokenizer, SIMPLE_QWEN_TEMPLATE))
  const maxTokens = modelContextLength(init)
  // 3. Items: the training worlds' questions (held-out slice and its facts excluded), the validation world's.
  const trainPool = await WorldPool.open(trainDirs)
  const validPool = await WorldPool.open(validDirs)
  try {
    const src = new CurriculumSource(curriculumPreset('mixed', 1), trainPool.listQa('train'), { seed: c.seed, heldOut: c.heldOut })
    writeFileSync(join(o.out, 'heldout.json'), JSON.stringify(src.heldOut().map((q) => q.id)) + '\n')
    o.log?.(`reader: ${src.heldOutLine()}`)
    const trainable = src.trainingPool()
    const needHops2 = c.phases.some((p) => p.maxHops >= 2)
    const take = (qs: Qa[], n: number) => (n > 0 ? qs.slice(0, n) : qs)
    const perWorld = (qs: readonly Qa[]) => {
      const by = new Map<string, Qa[]>()
      for (const q of qs) {
        const w = trainPool.memberOf(q).name
        if (!by.has(w)) by.set(w, [])
        by.get(w)!.push(q)
      }
      return [...by.values()]
    }
    const chosen = perWorld(trainable).flatMap((qs) => [...take(qs.filter((q) => q.hops === 1), c.questions.hops1), ...(needHops2 ? take(qs.filter((q) => q.hops === 2 && q.type === 'simple'), c.questions.hops2) : [])])
    const t0 = performance.now()
    const trainItems = await playOracle(trainPool, chosen, { gym, maxTokens, log: o.log, label: 'train' })
    const validQs = [...validPool.listQa('train'), ...validPool.listQa('bench')].filter((q) => q.type === 'simple' && q.hops <= (needHops2 ? 2 : 1))
    const validOrder = Rng.derive(c.seed, 'reader-valid').shuffle(validQs.slice())
    const validItems = await playOracle(validPool, validOrder.slice(0, Math.max(4 * c.eval.items, 1000)), { gym, maxTokens, label: 'valid' })
    o.log?.(`reader: items — training ${trainItems.items.length} solved episodes of ${chosen.length} questions (${trainItems.unsolved} unsolved), validation ${validItems.items.length}; ${((performance.now() - t0) / 1000).toFixed(0)} s`)
    const train = new DrillCache(trainItems.items, codec, gym.leadSpace, maxTokens)
    const valid = new DrillCache(validItems.items, codec, gym.leadSpace, maxTokens)
    // Validation items in a fixed order, one-hop first (the answer kinds read one page); two-hop ones serve `hop`.
    const validIdx = validItems.items.map((_, j) => j).sort((a, b) => validItems.items[a].hops - validItems.items[b].hops || a - b)
    // The contiguity share renders every page drill once (about a minute at the recipe's size): measured on the first
    // run of a folder and read back from items.json on a resume (the items are a function of the config).
    const itemsFile = join(o.out, 'items.json')
    const before = existsSync(itemsFile) ? (JSON.parse(readFileSync(itemsFile, 'utf8')) as { trainQuestions: number; trainSolved: number; contiguity?: { n: number; contiguous: number } }) : undefined
    const cont = before?.contiguity && before.trainQuestions === chosen.length && before.trainSolved === trainItems.items.length ? before.contiguity : answerContiguity(train, codec)
    o.log?.(`reader: the answer's tokens are contiguous in the page's in ${cont.contiguous}/${cont.n} page drills (${((100 * cont.contiguous) / Math.max(1, cont.n)).toFixed(1)}%, leadSpace ${gym.leadSpace})`)
    writeFileSync(itemsFile, JSON.stringify({ trainQuestions: chosen.length, trainSolved: trainItems.items.length, validSolved: validItems.items.length, contiguity: cont }) + '\n')
    const validE2e = validOrder.filter((q) => q.hops === 1).slice(0, c.eval.e2e)
    const validE2e2 = validOrder.filter((q) => q.hops === 2).slice(0, c.eval.e2e)
    const ctx: Context = { c, gym, codec, train, valid, validIdx, validPool, validE2e, validE2e2, o, backend, budgetLeft }
    // 4. The phases.
    const records: PhaseRecord[] = []
    let prev = init
    for (let i = 0; i < c.phases.length; i++) {
      const p = c.phases[i]
      const fp = phaseFingerprint(c, i)
      const dir = join(o.out, 'phases', p.name)
      const doneFile = join(dir, 'phase.json')
      const committed = o.committed ? join(o.committed, p.name) : undefined
      if (existsSync(doneFile) && (JSON.parse(readFileSync(doneFile, 'utf8')) as PhaseRecord).fingerprint === fp) {
        o.log?.(`reader ${p.name}: done before, skipped`)
      } else if (committed && existsSync(join(committed, 'phase.json')) && (JSON.parse(readFileSync(join(committed, 'phase.json'), 'utf8')) as PhaseRecord).fingerprint === fp) {
        rmSync(dir, { recursive: true, force: true })
        modelFiles(committed, join(dir, 'model'))
        copyTokenizerFiles(init, join(dir, 'model'))
        copyFileSync(join(committed, 'phase.json'), doneFile)
        o.log?.(`reader ${p.name}: adopted the committed phase ${committed}`)
      } else {
        if (existsSync(doneFile)) throw new ConfigError('reader.resume', `${dir} holds phase ${p.name} of another config; use a new --out or delete that folder`)
        const rec = await runPhase(ctx, i, prev)
        if (!rec) return { phases: records, paused: true }
        if (committed) {
          modelFiles(join(dir, 'model'), committed)
          copyFileSync(doneFile, join(committed, 'phase.json'))
          o.log?.(`reader ${p.name}: written to ${committed} (commit it so a fresh clone resumes from here)`)
        }
      }
      records.push(JSON.parse(readFileSync(doneFile, 'utf8')) as PhaseRecord)
      prev = join(dir, 'model')
    }
    const final = join(o.out, 'model')
    rmSync(final, { recursive: true, force: true })
    modelFiles(prev, final)
    copyTokenizerFiles(init, final)
    return { phases: records, paused: false, model: final }
  } finally {
    await trainPool.close()
    await validPool.close()
  }
}

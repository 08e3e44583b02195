// bench/experiment/run: `searchgym experiment run FILE --out DIR` as a library call — builds the missing worlds of the
// recipe (training and never-trained evaluation seeds), the model (world tokenizer), the shared start (SFT across the
// training worlds, or a given adapter), the evaluation question lists, then every arm × seed as a `train` run folder
// followed by its benches (greedy engine policy on each evaluation set; a no-Access arm also without Access), and the
// report. Every phase is recorded in progress.json when done, and each is itself resumable (world build, SFT epochs,
// train checkpoints, bench logs): a killed experiment rerun with the same file continues where it stopped and ends
// with the report one uninterrupted run writes; a file whose only change is a larger train.steps lengthens the runs
// (`train --preset … --steps N`). With --results RDIR the phases are grouped into durable units (the
// start; each arm × seed): finished units are restored from RDIR into OUT before anything runs, each unit is exported
// when its last phase is done and the report is copied there (results.ts), so a fresh clone resumes from the
// committed folder and redoes only unfinished units. Knows the order of phases and which make a unit, not how any
// phase works inside.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { tokenizerSourceOf } from '../../agent'
import { buildRecipeWorlds, checkHeldOutWorlds, CurriculumSource, curriculumPreset, runSft, runTraining, WorldPool } from '../../curriculum'
import { initModel, modelContextLength } from '../../infra/engine'
import { ConfigError } from '../../infra/errors'
import { canonicalJson } from '../../infra/hash'
import { lockDir } from '../../infra/lock'
import { passPoint } from '../../infra/run-points'
import { Rng } from '../../infra/rng'
import { scoreAnswer } from '../../gym'
import { openBenchWorlds } from '../gym-world'
import { policyFactory } from '../policies'
import { runBench } from '../run'
import { benchRunConfig } from '../run-config'
import { writeExperimentReport } from './report'
import { benchModes, benchName, experimentPaths, portablePath, runName, startModes } from './layout'
import { ExperimentResults, type ResultUnit } from './results'
import { comparableSpec, evalBenchKnobs, runTrainConfig, startSftConfigs, type EvalSetSpec, type ExperimentSpec } from './spec'

interface Phase {
  name: string
  kind: 'setup' | 'sft' | 'train' | 'bench' | 'report'
  run: () => Promise<void>
  /** The durable unit the phase belongs to ('start' or ARM-sSEED); none for worlds, model and report (regenerable). */
  unit?: { name: string; dirs: string[] }
}

/** Phases every other phase needs (regenerated in a fresh clone, skipped when nothing is left to run). */
const SETUP = new Set(['worlds', 'model'])

export interface ExperimentOptions {
  log?: (line: string) => void
  /** A results folder (`--results`): durable units restored from it and exported to it. */
  results?: string
  /** Lines shown even when quiet (a GRPO run resuming from step K, or starting over); default: log. */
  notice?: (line: string) => void
}

export interface ExperimentResult {
  report: string
  ran: number
  skipped: number
  restored: string[]
}

/** One writer per experiment folder (infra/lock): a second `experiment run` (or `train --preset`) on it is a one-line
 *  error naming the first, before it reads or writes anything there. A folder this call created is removed again when
 *  it is refused before any work (it holds nothing but the lock). */
export async function runExperiment(s: ExperimentSpec, out: string, o: ExperimentOptions = {}): Promise<ExperimentResult> {
  const dir = experimentPaths(out, s).out
  const existed = existsSync(dir)
  mkdirSync(dir, { recursive: true })
  const lock = lockDir(dir, 'experiment run')
  try {
    return await runExperimentLocked(s, out, o)
  } catch (e) {
    lock.release()
    if (!existed && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true })
    throw e
  } finally {
    lock.release()
  }
}

async function runExperimentLocked(s: ExperimentSpec, out: string, o: ExperimentOptions): Promise<ExperimentResult> {
  const log = o.log ?? (() => undefined)
  const p = experimentPaths(out, s)
  // The file is part of the experiment: another one in the same folder (or results folder) is refused before anything runs.
  // It is recorded with its paths written portably (layout.portablePath: never a machine's absolute path).
  const recorded = recordedSpec(s, p)
  const text = JSON.stringify(recorded, null, 2) + '\n'
  const lengthenFrom = existsSync(p.spec) ? storedSteps(readFileSync(p.spec, 'utf8'), recorded, text, p.out) : null
  const results = o.results !== undefined ? new ExperimentResults(o.results, s, p.out) : null
  // A model-folder start is checked (sha256 against its SHA256SUMS, and against the results' start) before any work.
  const startRecord = s.start.model ? checkStart(s.start.model, p.out, p.worlds) : null
  if (startRecord && results?.has('start')) {
    const kept = join(results.dir, 'start', 'start.json')
    const sha = existsSync(kept) ? (JSON.parse(readFileSync(kept, 'utf8')) as { sha256: string }).sha256 : startRecord.sha256
    if (sha !== startRecord.sha256)
      throw new ConfigError('experiment.start_sha256', `${results.dir} was run from a start with sha256 ${sha.slice(0, 12)}…, but ${startRecord.model} now has ${startRecord.sha256.slice(0, 12)}…; restore the start folder or use another --results folder`)
  }
  mkdirSync(p.out, { recursive: true })
  writeFileSync(p.spec, text)
  results?.open()
  const done = new Set<string>(existsSync(p.progress) ? (JSON.parse(readFileSync(p.progress, 'utf8')) as { done: string[] }).done : [])

  // start/start.json records a model-folder start: its folder (written portably) and sha256 — the report's provenance.
  const modelDir = s.start.model || p.model
  if (startRecord) {
    mkdirSync(p.start, { recursive: true })
    writeAtomic(join(p.start, 'start.json'), JSON.stringify(startRecord, null, 1) + '\n')
  }
  let trainWorlds: string[] = []
  let evalWorlds: string[] = []
  // The start: a given adapter, or the last SFT phase's (start/, then start/phase-1, …).
  const phaseDir = (k: number) => (k === 0 ? p.start : join(p.start, `phase-${k}`))
  // '': the model folder itself (a model start: benched without an adapter, GRPO with a fresh LoRA).
  const startAdapter = s.start.model ? '' : s.start.adapter || join(phaseDir(s.start.phases.length), 'adapter')
  const worldsOf = (set: EvalSetSpec) => (set.worlds === 'eval' ? evalWorlds : trainWorlds)

  const phases: Phase[] = []
  phases.push({
    name: 'worlds',
    kind: 'setup',
    // Always run (cheap when built): later phases need the folders. A complete world of the same config is reused.
    run: async () => {
      trainWorlds = await buildRecipeWorlds({ preset: s.worlds.preset, config: s.worlds.config, seeds: s.worlds.trainSeeds }, p.worlds, log)
      evalWorlds = await buildRecipeWorlds({ preset: s.worlds.preset, config: s.worlds.config, seeds: s.worlds.evalSeeds }, p.worlds, log)
      checkHeldOutWorlds(trainWorlds, evalWorlds)
    },
  })
  if (!s.start.model) phases.push({
    name: 'model',
    kind: 'setup',
    run: async () => {
      const tmp = p.model + '.tmp'
      rmSync(tmp, { recursive: true, force: true })
      initModel({
        arch: 'qwen3',
        preset: s.model.preset,
        // The first training world's documents: names of the other worlds are spelled in the pieces it learned.
        tokenizer: await tokenizerSourceOf({ kind: 'world', dir: trainWorlds[0], vocabSize: s.model.vocab }, { names: s.model.nameTokens, tags: s.model.nameTokens }),
        out: tmp,
        seed: s.model.seed,
        embedStd: s.model.embedStd,
        qkNormWeight: s.model.qkNormWeight,
      })
      rmSync(p.model, { recursive: true, force: true })
      renameSync(tmp, p.model)
    },
  })
  // The start unit: the start's folder (SFT adapters or start.json), the evaluation lists, the start's benches.
  const startUnit = { name: 'start', dirs: ['start', 'eval'] }
  const firstStartPhase = phases.length
  if (!s.start.adapter && !s.start.model) {
    // SFT across the training worlds with the GRPO runs' protocol and gym options; the held-out slice is the runs'.
    // Each phase's SFT config resolved once, here, before any phase runs (experiment/spec: startSftConfigs).
    const [startConfig, ...phaseConfigs] = startSftConfigs(s, (i) => join(phaseDir(i), 'adapter'))
    phases.push({
      name: 'start',
      kind: 'sft',
      run: async () => {
        await runSft({ model: p.model, world: trainWorlds, out: phaseDir(0), log: (l) => log(`  start: ${l}`) }, startConfig)
      },
    })
    phaseConfigs.forEach((phaseConfig, i) => {
      phases.push({
        name: `start:phase-${i + 1}`,
        kind: 'sft',
        run: async () => {
          await runSft({ model: p.model, world: trainWorlds, out: phaseDir(i + 1), log: (l) => log(`  start phase ${i + 1}: ${l}`) }, phaseConfig)
        },
      })
    })
  }
  for (const set of s.eval.sets)
    phases.push({ name: `eval:${set.name}`, kind: 'setup', run: async () => (set.split === 'heldout' ? writeHeldOutIds(p.evalDir, set, trainWorlds, s.seeds[0], s.train.heldOut, log) : writeEvalIds(p.evalDir, set, worldsOf(set))) })
  const benchPhase = (label: string, adapter: string, set: EvalSetSpec, access: boolean, unit: { name: string; dirs: string[] }): Phase => {
    unit.dirs.push(`bench/${benchName(label, set.name, access)}`)
    return {
      name: `bench:${benchName(label, set.name, access)}`,
      kind: 'bench',
      run: () => benchOne(s, p, modelDir, join(p.bench, benchName(label, set.name, access)), adapter, set, worldsOf(set), access),
      unit,
    }
  }
  for (const access of startModes(s)) for (const set of s.eval.sets) phases.push(benchPhase('start', startAdapter, set, access, startUnit))
  for (const ph of phases.slice(firstStartPhase)) ph.unit = startUnit
  // Each run is trained and benched before the next starts: a stopped experiment leaves whole runs behind.
  for (const arm of s.arms)
    for (const seed of s.seeds) {
      const name = runName(arm.name, seed)
      const dir = join(p.runs, name)
      const unit = { name, dirs: [`runs/${name}`] }
      phases.push({
        name: `train:${name}`,
        kind: 'train',
        unit,
        run: async () => {
          await runTraining({ world: trainWorlds, model: modelDir, ...(startAdapter ? { adapter: startAdapter } : {}), curriculum: arm.curriculum, out: dir, config: runTrainConfig(s, seed, arm), backend: s.backend, log: (l) => log(`  ${name}: ${l}`), ...(o.notice ? { notice: (l: string) => o.notice!(`${name}: ${l}`) } : {}) })
        },
      })
      for (const access of benchModes(arm)) for (const set of s.eval.sets) phases.push(benchPhase(name, join(dir, 'adapter'), set, access, unit))
    }
  phases.push({
    name: 'report',
    kind: 'report',
    run: async () => {
      writeExperimentReport(p.out)
      results?.copyReport()
    },
  })

  const units: ResultUnit[] = []
  for (const ph of phases)
    if (ph.unit) {
      const u = units.find((x) => x.name === ph.unit!.name)
      if (u) u.phases.push(ph.name)
      else units.push({ name: ph.unit.name, phases: [ph.name], dirs: ph.unit.dirs })
    }
  // A larger train.steps alone lengthens the runs (each goes on from its last checkpoint, as `train --steps` does): their
  // train phases, their benches (of the old adapters; removed) and the report run again; the start's are kept.
  if (lengthenFrom !== null) {
    log(`experiment ${s.name}: lengthening the runs from ${lengthenFrom} to ${s.train.steps} steps`)
    for (const ph of phases)
      if (ph.kind === 'train' || ph.kind === 'report' || (ph.kind === 'bench' && ph.unit?.name !== 'start')) {
        done.delete(ph.name)
        if (ph.kind === 'bench') rmSync(join(p.bench, ph.name.slice('bench:'.length)), { recursive: true, force: true })
      }
  }
  const saveProgress = () => writeAtomic(p.progress, JSON.stringify({ done: phases.map((x) => x.name).filter((n) => done.has(n)) }, null, 1) + '\n')
  const unitDone = (u: ResultUnit) => u.phases.every((n) => done.has(n))
  if (lengthenFrom !== null) saveProgress()
  const restored: string[] = []
  if (results) {
    for (const u of results.restore(units, (n) => done.has(n))) {
      for (const n of u.phases) done.add(n)
      restored.push(u.name)
    }
    if (restored.length > 0) saveProgress()
    // Units this folder finished before (a run without --results, or one killed between a phase and its export).
    for (const u of units) if (unitDone(u) && !results.has(u.name)) results.export(u, p.worlds)
    const left = units.filter((u) => !unitDone(u)).map((u) => u.name)
    log(`experiment ${s.name}: results ${results.shown()}: ${restored.length > 0 ? `restored ${restored.join(', ')}` : 'nothing to restore'}; ${left.length > 0 ? `${left.length} of ${units.length} units to run: ${left.join(', ')}` : `all ${units.length} units done`}`)
  }
  // Worlds and model are needed only while some unit phase is left to run (a fully restored experiment builds nothing).
  const needSetup = phases.some((ph) => !SETUP.has(ph.name) && ph.kind !== 'report' && !done.has(ph.name))

  const t0 = performance.now()
  const spent: Record<Phase['kind'], number[]> = { setup: [], sft: [], train: [], bench: [], report: [] }
  let ran = 0
  for (let i = 0; i < phases.length; i++) {
    const ph = phases[i]
    // World folders are needed by every later phase: their phase runs even when recorded (it only opens built worlds).
    if (SETUP.has(ph.name) && !needSetup) continue
    if (done.has(ph.name) && ph.name !== 'worlds' && ph.name !== 'report') continue
    log(`experiment ${s.name}: [${i + 1}/${phases.length}] ${ph.name}${eta(phases.slice(i), done, spent)}`)
    const t = performance.now()
    await ph.run()
    spent[ph.kind].push((performance.now() - t) / 1000)
    if (!done.has(ph.name)) {
      done.add(ph.name)
      saveProgress()
      ran++
    }
    const u = ph.unit && units.find((x) => x.name === ph.unit!.name)
    if (results && u && unitDone(u) && !results.has(u.name)) {
      results.export(u, p.worlds)
      log(`experiment ${s.name}: unit ${u.name} exported to ${results.shown()}`)
    }
    // A run point right after a phase is recorded (a kill here must resume).
    passPoint(`experiment-${ph.name}`)
  }
  // The counts and the report's path are `experiment run`'s result line (stdout): the log says only the time.
  log(`experiment ${s.name}: done in ${((performance.now() - t0) / 1000).toFixed(0)} s${results ? ` (report copied to ${results.shown()})` : ''}`)
  return { report: join(p.out, 'report.md'), ran, skipped: phases.length - ran, restored }
}

/** ' (ETA … s)': the remaining GRPO (train) and bench phases × the mean time of phases of their kind run so far (the
 *  setup, SFT and report phases come first or are short); nothing until both kinds have been timed. */
function eta(rest: Phase[], done: Set<string>, spent: Record<Phase['kind'], number[]>): string {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const todo = rest.filter((ph) => !done.has(ph.name) && (ph.kind === 'train' || ph.kind === 'bench'))
  if (todo.some((ph) => spent[ph.kind].length === 0)) return ''
  return ` (ETA ${todo.reduce((a, ph) => a + mean(spent[ph.kind]), 0).toFixed(0)} s)`
}

/** The spec as OUT/experiment.json records it: the start's model and adapter and the world cache written portably
 *  (relative to OUT inside it, 'worlds/…' in the cache, relative to the checkout's root inside one, else the last
 *  name), so the folder names no path of this machine and a moved or copied folder resumes. */
export function recordedSpec(s: ExperimentSpec, p: ReturnType<typeof experimentPaths>): ExperimentSpec {
  const at = (x: string) => (x ? portablePath(x, p.out, p.worlds) : '')
  return { ...s, worlds: { ...s.worlds, cache: at(s.worlds.cache) }, start: { ...s.start, model: at(s.start.model), adapter: at(s.start.adapter) } }
}

/** The stored experiment.json against this one: null when the same; the stored train.steps when the only change is a
 *  larger train.steps (the runs are lengthened); otherwise a one-line refusal (another experiment, or fewer steps). */
function storedSteps(stored: string, s: ExperimentSpec, text: string, out: string): number | null {
  if (stored === text) return null
  let was: ExperimentSpec | null = null
  try {
    was = JSON.parse(stored) as ExperimentSpec
  } catch {
    was = null
  }
  // Compared by what each block's episodes get (comparableSpec: a folder written before the limits moved resumes).
  const rest = (x: ExperimentSpec) => canonicalJson(comparableSpec({ ...x, train: { ...x.train, steps: 0 } }))
  const steps = was?.train?.steps
  if (steps === s.train.steps && was !== null && rest(was) === rest(s)) return null
  if (was === null || typeof steps !== 'number' || rest(was) !== rest(s))
    throw new ConfigError('experiment.resume_mismatch', `${out} holds another experiment (experiment.json differs); rerun with the same file or choose a new --out`)
  if (s.train.steps < steps)
    throw new ConfigError('experiment.resume_shorten', `${out} holds runs of ${steps} steps; ${s.train.steps} steps would shorten them (give at least ${steps}, or a new --out)`)
  return steps
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(path + '.tmp', text)
  renameSync(path + '.tmp', path)
}

/** sha256 (hex) of a file's bytes. */
export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

/** Checks a model-folder start (model.safetensors present; its sha256 equal to SHA256SUMS' line when the folder has
 *  one) and returns its record: the folder written portably (layout.portablePath) and the sha256. */
function checkStart(model: string, out: string, worlds: string): { model: string; sha256: string } {
  const weights = join(model, 'model.safetensors')
  if (!existsSync(weights)) throw new ConfigError('experiment.start', `experiment.start.model ${model} has no model.safetensors; give a model folder (e.g. curriculum/starts/reader-v0)`)
  const sha = fileSha256(weights)
  const sums = join(model, 'SHA256SUMS')
  if (existsSync(sums)) {
    const pinned = readFileSync(sums, 'utf8').split('\n').map((l) => l.trim().split(/\s+\*?/)).find((f) => f[1] === 'model.safetensors')?.[0]
    if (pinned !== undefined && pinned !== sha)
      throw new ConfigError('experiment.start_sha256', `experiment.start.model: ${weights} has sha256 ${sha.slice(0, 12)}…, but its SHA256SUMS pins ${pinned.slice(0, 12)}…; restore the folder (git checkout) or fix SHA256SUMS`)
  }
  return { model: portablePath(model, out, worlds), sha256: sha }
}

/** OUT/eval/SET.json: the set's question ids over its worlds (pooled ids when several), a seeded sample per world. */
async function writeEvalIds(dir: string, set: EvalSetSpec, worlds: string[]): Promise<void> {
  const bw = await openBenchWorlds(worlds)
  try {
    const qs = bw.questions(set.split).filter((q) => set.maxHops === 0 || q.hops <= set.maxHops)
    const ids: string[] = []
    for (const w of worlds) {
      const name = basename(w)
      const mine = worlds.length === 1 ? qs : qs.filter((q) => q.id.startsWith(name + '/'))
      const picked = set.perWorld > 0 ? Rng.derive(0, 'experiment-eval', set.name, name).shuffle(mine.slice()).slice(0, set.perWorld) : mine
      ids.push(...picked.map((q) => q.id).sort())
    }
    if (ids.length === 0) throw new ConfigError('experiment.eval', `evaluation set '${set.name}' holds no questions (split ${set.split}, at most ${set.maxHops || 'any'} hops) in ${worlds.map((w) => basename(w)).join(', ')}`)
    mkdirSync(dir, { recursive: true })
    writeAtomic(join(dir, `${set.name}.json`), JSON.stringify({ set: set.name, worlds: worlds.map((w) => basename(w)), split: set.split, ids }, null, 1) + '\n')
  } finally {
    await bw.close()
  }
}

/** OUT/eval/SET.json of a held-out set: the slice `train` holds out of the training worlds' train split with the run's
 *  seed (the same CurriculumSource draw, so no run trains on it or on a question sharing a fact with it). */
async function writeHeldOutIds(dir: string, set: EvalSetSpec, worlds: string[], seed: number, heldOut: number, log: (line: string) => void): Promise<void> {
  const pool = await WorldPool.open(worlds)
  try {
    const src = new CurriculumSource(curriculumPreset('mixed', 1), pool.listQa('train'), { seed, heldOut })
    const ids = src.heldOut().filter((q) => set.maxHops === 0 || q.hops <= set.maxHops).map((q) => q.id)
    if (ids.length === 0) throw new ConfigError('experiment.eval', `evaluation set '${set.name}' holds no questions (the held-out slice of ${heldOut}, at most ${set.maxHops || 'any'} hops)`)
    log(`  eval ${set.name}: ${src.heldOutLine()}`)
    mkdirSync(dir, { recursive: true })
    writeAtomic(join(dir, `${set.name}.json`), JSON.stringify({ set: set.name, worlds: worlds.map((w) => basename(w)), split: set.split, ids }, null, 1) + '\n')
  } finally {
    await pool.close()
  }
}

/** One bench run: the engine policy (greedy) of the model + adapter on the set's questions, resumable by runBench; its
 *  config resolved like any bench run's (bench/run-config) from the evaluation's knobs (spec: evalBenchKnobs). */
async function benchOne(s: ExperimentSpec, p: ReturnType<typeof experimentPaths>, model: string, out: string, adapter: string, set: EvalSetSpec, worlds: string[], access: boolean): Promise<void> {
  // The context the engine will give the model: config.json's max_position_embeddings (required, no default).
  const knobs = evalBenchKnobs(s, { model, adapter, set, ids: join(p.evalDir, `${set.name}.json`), access, maxContext: modelContextLength(model) })
  const bw = await openBenchWorlds(worlds)
  try {
    const config = benchRunConfig(knobs, bw.id, worlds)
    await runBench(out, config, { world: bw, policyFor: policyFactory(config, bw), scorer: scoreAnswer, quiet: true })
  } finally {
    await bw.close()
  }
}

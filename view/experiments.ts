// view/experiments: experiment folders (`searchgym experiment run SPEC --out DIR`) as the viewer sees them — the
// report's figures exactly as bench/experiment/report wrote them (report.json; built by that same code when the
// folder has none yet), its GRPO runs and bench runs opened as run folders, and per arm a band across seeds of every
// numeric metrics.jsonl key. Also finds experiment folders among the folders the viewer is given. Knows nothing of
// HTTP routes or the page.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, join, relative, resolve, isAbsolute } from 'node:path'
import { benchModes, benchName, buildExperimentReport, runName, startModes, type ExperimentReport, type ExperimentSpec } from '../bench'
import { ViewError } from './errors'
import { shownPath } from './shown-path'
import { RunFolder } from './runs'
import type { ExperimentCurves, ExperimentSummary, ExperimentView, SeedBand } from './types'

/** A name read from experiment.json (arm, evaluation set) as the experiment file's own rule has it (bench/experiment/
 *  spec's NAME: letters, digits, '.', '_', '-'), '.' and '..' excluded: it becomes part of a folder name, so a name
 *  from a file is checked like a name from a flag before any path is built from it. */
const FILE_NAME = /^[A-Za-z0-9._-]+$/
export function checkSpecName(name: unknown, what: string, file: string): string {
  if (typeof name !== 'string' || !FILE_NAME.test(name) || name === '.' || name === '..')
    throw new ViewError('view.bad_experiment', `${file}: ${what} ${JSON.stringify(name)?.slice(0, 80)} is not a name (letters, digits, '.', '_' or '-'); the viewer opens no folder named by it`)
  return name
}

/** Whether `path` (resolved through symlinks) lies inside `root` (also resolved): every folder the viewer opens for an
 *  experiment must, so a crafted name or a symlink cannot make it serve a folder it was not given. */
export function isWithin(root: string, path: string): boolean {
  const r = relative(realpathSync(root), realpathSync(path))
  return r !== '' && !r.startsWith('..') && !isAbsolute(r)
}

/** Whether DIR is an experiment folder (it holds the runner's experiment.json). */
export const isExperimentDir = (dir: string) => existsSync(join(dir, 'experiment.json')) && existsSync(join(dir, 'runs'))

/**
 * Per-step statistics across seeds of one metric (each seed's steps and values; NaN / missing steps skipped), bucketed
 * into at most `points` buckets (mean of the means and of the sds, min of the mins, max of the maxes). sd is the
 * sample standard deviation (0 with one seed).
 */
export function seedBand(perSeed: { steps: number[]; ys: number[] }[], points: number): SeedBand {
  const at = new Map<number, number[]>()
  for (const s of perSeed)
    s.steps.forEach((step, i) => {
      const y = s.ys[i]
      if (!Number.isFinite(y) || !Number.isFinite(step)) return
      const xs = at.get(step)
      if (xs) xs.push(y)
      else at.set(step, [y])
    })
  const steps = [...at.keys()].sort((a, b) => a - b)
  const row = steps.map((step) => {
    const ys = at.get(step)!
    const mean = ys.reduce((a, b) => a + b, 0) / ys.length
    const sd = ys.length > 1 ? Math.sqrt(ys.reduce((a, y) => a + (y - mean) ** 2, 0) / (ys.length - 1)) : 0
    return { step, mean, sd, min: Math.min(...ys), max: Math.max(...ys), seeds: ys.length }
  })
  const out: SeedBand = { x: [], mean: [], sd: [], min: [], max: [], seeds: [], n: row.length }
  const per = Math.max(1, row.length / points)
  for (let b = 0; b * per < row.length; b++) {
    const part = row.slice(Math.floor(b * per), Math.min(row.length, Math.floor((b + 1) * per)))
    if (!part.length) continue
    const avg = (f: (r: (typeof row)[number]) => number) => part.reduce((a, r) => a + f(r), 0) / part.length
    out.x.push(b === 0 ? part[0].step : part[part.length - 1].step)
    out.mean.push(avg((r) => r.mean))
    out.sd.push(avg((r) => r.sd))
    out.min.push(Math.min(...part.map((r) => r.min)))
    out.max.push(Math.max(...part.map((r) => r.max)))
    out.seeds.push(Math.min(...part.map((r) => r.seeds)))
  }
  return out
}

/** A file read again only when its size or mtime changed. */
function stampOf(path: string): string {
  if (!existsSync(path)) return ''
  const st = statSync(path)
  return `${st.size}:${st.mtimeMs}`
}

export class ExperimentFolder {
  readonly name: string
  readonly dir: string
  readonly spec: ExperimentSpec
  /** GRPO runs by arm × seed (only those whose folder is a run folder when the viewer started). */
  readonly trainRuns: { arm: string; seed: number; run: RunFolder | null }[]
  /** Bench runs: the start's (arm null) and every run's. */
  readonly benchRuns: { arm: string | null; seed: number | null; set: string; access: boolean; run: RunFolder }[]
  private cached: { stamp: string; report: ExperimentReport; source: ExperimentView['source'] } | null = null

  private constructor(dir: string, name: string, used: Set<string>) {
    this.dir = dir
    this.name = name
    try {
      this.spec = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')) as ExperimentSpec
    } catch (e) {
      throw new ViewError('view.bad_experiment', `${join(dir, 'experiment.json')} is not valid JSON: ${(e as Error).message}`)
    }
    if (!Array.isArray(this.spec.arms) || !Array.isArray(this.spec.seeds) || !Array.isArray(this.spec.eval?.sets))
      throw new ViewError('view.bad_experiment', `${join(dir, 'experiment.json')} is not an experiment spec as searchgym experiment run writes it (arms, seeds, eval.sets)`)
    const file = join(dir, 'experiment.json')
    for (const a of this.spec.arms) checkSpecName((a as { name?: unknown } | null)?.name, 'arm name', file)
    for (const e of this.spec.eval.sets) checkSpecName((e as { name?: unknown } | null)?.name, 'evaluation set name', file)
    for (const seed of this.spec.seeds)
      if (!Number.isInteger(seed) || seed < 0) throw new ViewError('view.bad_experiment', `${file}: seed ${JSON.stringify(seed)?.slice(0, 40)} is not a non-negative integer`)
    const open = (folder: string): RunFolder | null => {
      if (!existsSync(folder)) return null
      if (!isWithin(dir, folder)) throw new ViewError('view.outside', `${folder} resolves outside the experiment folder ${dir} (a symbolic link?); the viewer serves only folders it was given`)
      try {
        return RunFolder.open(folder, unique(basename(folder), used), name)
      } catch (e) {
        if (e instanceof ViewError) return null // started, nothing written yet
        throw e
      }
    }
    this.trainRuns = this.spec.arms.flatMap((a) => this.spec.seeds.map((seed) => ({ arm: a.name, seed, run: open(join(dir, 'runs', runName(a.name, seed))) })))
    this.benchRuns = []
    for (const set of this.spec.eval.sets) {
      for (const access of startModes(this.spec)) {
        const run = open(join(dir, 'bench', benchName('start', set.name, access)))
        if (run) this.benchRuns.push({ arm: null, seed: null, set: set.name, access, run })
      }
      for (const a of this.spec.arms)
        for (const seed of this.spec.seeds)
          for (const access of benchModes(a)) {
            const run = open(join(dir, 'bench', benchName(runName(a.name, seed), set.name, access)))
            if (run) this.benchRuns.push({ arm: a.name, seed, set: set.name, access, run })
          }
    }
  }

  static open(dir: string, used: Set<string>): ExperimentFolder {
    const abs = resolve(dir)
    if (!isExperimentDir(abs)) throw new ViewError('view.not_experiment', `${dir} is not an experiment folder (no experiment.json and runs/): run searchgym experiment run SPEC --out ${dir}`)
    return new ExperimentFolder(abs, unique(basename(abs), used), used)
  }

  /** Every run folder of the experiment (GRPO runs, then bench runs). */
  runFolders(): RunFolder[] {
    return [...this.trainRuns.flatMap((r) => (r.run ? [r.run] : [])), ...this.benchRuns.map((b) => b.run)]
  }

  /** The report: report.json as written (re-read when it changes), else built now by the report's own code. */
  report(): { report: ExperimentReport; source: ExperimentView['source'] } {
    const file = join(this.dir, 'report.json')
    const stamp = existsSync(file) ? `report:${stampOf(file)}` : `progress:${stampOf(join(this.dir, 'progress.json'))}`
    if (this.cached?.stamp !== stamp) {
      let report: ExperimentReport
      let source: ExperimentView['source']
      if (stamp.startsWith('report:')) {
        try {
          report = JSON.parse(readFileSync(file, 'utf8')) as ExperimentReport
        } catch (e) {
          throw new ViewError('view.bad_experiment', `${file} is not valid JSON: ${(e as Error).message}`)
        }
        source = 'report.json'
      } else {
        report = buildExperimentReport(this.dir)
        source = 'computed'
      }
      this.cached = { stamp, report, source }
    }
    return { report: this.cached.report, source: this.cached.source }
  }

  summary(): ExperimentSummary {
    const { report } = this.report()
    return { name: this.name, dir: shownPath(this.dir), arms: report.arms, seeds: report.seeds, steps: report.steps, runsDone: report.runsDone, runsTotal: report.runsTotal }
  }

  view(): ExperimentView {
    const { report, source } = this.report()
    return {
      ...this.summary(),
      source,
      sets: report.sets,
      runs: this.trainRuns.map((t) => ({
        arm: t.arm,
        seed: t.seed,
        run: t.run?.name ?? null,
        benches: this.benchRuns.filter((b) => b.arm === t.arm && b.seed === t.seed).map((b) => ({ set: b.set, access: b.access, run: b.run.name })),
      })),
      start: this.benchRuns.filter((b) => b.arm === null).map((b) => ({ set: b.set, access: b.access, run: b.run.name })),
    }
  }

  /** Per arm, a band across its seeds for each of `keys` (every numeric key when empty), at most `points` buckets. */
  async curves(keys: string[], points: number): Promise<ExperimentCurves> {
    const runs = this.trainRuns.filter((t) => t.run)
    const all = [...new Set((await Promise.all(runs.map((t) => t.run!.metricKeys()))).flat())]
    const want = keys.length ? keys.filter((k) => all.includes(k)) : all
    const arms: ExperimentCurves['arms'] = []
    for (const a of this.spec.arms) {
      const mine = runs.filter((t) => t.arm === a.name).map((t) => t.run!)
      const series: Record<string, SeedBand> = {}
      for (const k of want) series[k] = seedBand(await Promise.all(mine.map((r) => r.metricColumn(k))), points)
      arms.push({ arm: a.name, runs: mine.map((r) => r.name), series })
    }
    return { experiment: this.name, keys: all, arms }
  }
}

function unique(base: string, used: Set<string>): string {
  let name = base
  for (let i = 2; used.has(name); i++) name = `${base}-${i}`
  used.add(name)
  return name
}

/**
 * What the viewer was given: each folder is an experiment folder, a run folder, or a folder holding experiment
 * folders (each one opened); anything else is the run folder's one-line error.
 */
export function openSources(dirs: string[]): { runs: RunFolder[]; experiments: ExperimentFolder[] } {
  const used = new Set<string>()
  const runs: RunFolder[] = []
  const experiments: ExperimentFolder[] = []
  const addExperiment = (d: string) => {
    const e = ExperimentFolder.open(d, used)
    experiments.push(e)
    runs.push(...e.runFolders())
  }
  for (const d of dirs) {
    if (existsSync(d) && statSync(d).isDirectory()) {
      if (isExperimentDir(d)) {
        addExperiment(d)
        continue
      }
      const inside = readdirSync(d, { withFileTypes: true }).filter((x) => x.isDirectory() && isExperimentDir(join(d, x.name))).map((x) => join(d, x.name)).sort()
      if (inside.length && !existsSync(join(d, 'metrics.jsonl')) && !existsSync(join(d, 'trajectories.jsonl')) && !existsSync(join(d, 'summary.json'))) {
        for (const e of inside) addExperiment(e)
        continue
      }
    }
    runs.push(RunFolder.open(d, unique(basename(resolve(d)), used)))
  }
  return { runs, experiments }
}

// view/runs: the run folders the viewer was given — bench runs (config.json, trajectories.jsonl, summary.json) and
// training runs (config.json, metrics.jsonl, timing.jsonl, checkpoints/; a trajectories.jsonl too when one was
// saved). Every JSONL file is indexed in the background (view/jsonl-index: chunked, cached by size and mtime, a grown
// file read from where it stopped); trajectories are kept as byte offsets plus a summary per question and read one
// at a time; a malformed record is flagged and skipped. Knows nothing of HTTP routes or the page.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import type { TrajectoryRecord } from '../agent'
import { HttpError } from '../infra/http/errors'
import { ViewError } from './errors'
import { shownPath } from './shown-path'
import { JsonlIndex, type FlaggedLine } from './jsonl-index'
import type { Indexed, MetricBatch } from './records'
import type { CurveSeries, ListPage, RunCurves, RunInfo, TrajectoryPage, TrajectorySummary } from './types'

export type Outcome = 'correct' | 'partial' | 'wrong' | 'error'

export interface TrajectoryFilters {
  outcome?: Outcome
  type?: string
  hops?: number
  id?: string
}

export const OUTCOMES: readonly Outcome[] = ['correct', 'partial', 'wrong', 'error']

/** correct: EM 1; partial: F1 > 0; wrong: F1 0; error: the episode did not run to an end (endpoint or env failure). */
export function outcomeOf(t: Pick<TrajectorySummary, 'status' | 'em' | 'f1'>): Outcome {
  if (t.status !== 'ok') return 'error'
  return t.em >= 1 ? 'correct' : t.f1 > 0 ? 'partial' : 'wrong'
}

function readJson(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (e) {
    throw new ViewError('view.bad_run', `${path} is not valid JSON: ${(e as Error).message}`)
  }
}

/** The protocol a run folder's config.json says its policy wrote: a bench run's `protocol`, a train run's
 *  `train.protocol`; null when it names none. */
export function protocolOf(config: Record<string, unknown> | null): string | null {
  const p = config?.protocol ?? (config?.train as Record<string, unknown> | undefined)?.protocol
  return typeof p === 'string' ? p : null
}

/** A small JSON file (config.json, summary.json) read again only when its size or mtime changed. */
class JsonFile {
  private stamp = ''
  private value: Record<string, unknown> | null = null
  constructor(readonly path: string) {}
  get(): Record<string, unknown> | null {
    if (!existsSync(this.path)) return null
    const st = statSync(this.path)
    const stamp = `${st.size}:${st.mtimeMs}`
    if (stamp !== this.stamp) {
      this.value = readJson(this.path)
      this.stamp = stamp
    }
    return this.value
  }
}

/** metrics.jsonl / timing.jsonl as columns: one array of steps, one array per numeric key (NaN where absent). */
class MetricColumns {
  readonly steps: number[] = []
  readonly cols = new Map<string, number[]>()
  readonly stages: { step: number; stage: string }[] = []
  readonly index: JsonlIndex
  constructor(path: string, stageKey: boolean) {
    this.index = new JsonlIndex(
      path,
      'metrics',
      (e) => {
        const b = e as MetricBatch
        const base = this.steps.length
        for (const [k, xs] of Object.entries(b.cols)) {
          let col = this.cols.get(k)
          if (!col) this.cols.set(k, (col = []))
          while (col.length < base) col.push(NaN)
          if (xs.length <= 10_000) col.push(...xs)
          else for (const x of xs) col.push(x)
        }
        b.steps.forEach((step, i) => {
          const stage = b.stages[i]
          if (stageKey && stage !== null && stage !== this.stages.at(-1)?.stage) this.stages.push({ step, stage })
          this.steps.push(step)
        })
      },
      () => {
        this.steps.length = 0
        this.cols.clear()
        this.stages.length = 0
      },
    )
  }
  column(k: string): number[] {
    const c = this.cols.get(k) ?? []
    while (c.length < this.steps.length) c.push(NaN)
    return c
  }
}

/** min/max/mean per bucket of at most `points` buckets over x (x ascending); fewer points pass through as they are. */
export function downsample(xs: number[], ys: number[], points: number): CurveSeries {
  const X: number[] = []
  const Y: number[] = []
  for (let i = 0; i < xs.length; i++) if (Number.isFinite(ys[i]) && Number.isFinite(xs[i])) (X.push(xs[i]), Y.push(ys[i]))
  if (X.length <= points) return { x: X, y: Y, lo: Y, hi: Y, n: X.length }
  const out: CurveSeries = { x: [], y: [], lo: [], hi: [], n: X.length }
  const per = X.length / points
  for (let b = 0; b < points; b++) {
    const from = Math.floor(b * per)
    const to = Math.min(X.length, Math.floor((b + 1) * per))
    if (to <= from) continue
    let lo = Infinity
    let hi = -Infinity
    let sum = 0
    for (let i = from; i < to; i++) {
      const v = Y[i]
      if (v < lo) lo = v
      if (v > hi) hi = v
      sum += v
    }
    out.x.push(b === 0 ? X[0] : X[to - 1])
    out.y.push(sum / (to - from))
    out.lo.push(lo)
    out.hi.push(hi)
  }
  return out
}

/** The experiment a run belongs to: its folder name without a trailing -seedN / -sN / -N, or its parent folder when
 *  that holds an experiment report. */
export function experimentOf(name: string, dir: string): string {
  if (existsSync(`${dirname(resolve(dir))}/report.json`)) return basename(dirname(resolve(dir)))
  const m = /^(.+?)[-_](?:seed|s|rep|r)?\d+$/.exec(name)
  return m ? m[1] : name
}

export class RunFolder {
  readonly name: string
  readonly dir: string
  readonly kind: 'bench' | 'train'
  private byId = new Map<string, Indexed>()
  private readonly traj: JsonlIndex
  private readonly metrics: MetricColumns
  private readonly timing: MetricColumns
  private readonly config: JsonFile
  private readonly summaryFile: JsonFile
  /** The last few records read in full, by id (a 5,000-turn record is parsed once, then paged). */
  private recent = new Map<string, { start: number; record: TrajectoryRecord }>()

  /** The experiment folder this run was opened from (overrides the name-prefix grouping). */
  private experimentName?: string

  private constructor(name: string, dir: string, kind: 'bench' | 'train') {
    this.name = name
    this.dir = dir
    this.kind = kind
    this.traj = new JsonlIndex(
      this.path('trajectories.jsonl'),
      'trajectories',
      (e) => {
        const t = e as Indexed
        this.byId.set(t.id, t)
      },
      () => {
        this.byId.clear()
        this.recent.clear()
      },
    )
    this.metrics = new MetricColumns(this.path('metrics.jsonl'), true)
    this.timing = new MetricColumns(this.path('timing.jsonl'), false)
    this.config = new JsonFile(this.path('config.json'))
    this.summaryFile = new JsonFile(this.path('summary.json'))
  }

  /** A bench or training run folder; anything else is a ViewError naming what is missing. */
  static open(dir: string, name = basename(resolve(dir)), experiment?: string): RunFolder {
    const r = RunFolder.openKind(dir, name)
    r.experimentName = experiment
    return r
  }

  private static openKind(dir: string, name: string): RunFolder {
    if (!existsSync(dir)) throw new ViewError('view.missing_run', `no run folder at ${dir}`)
    if (!statSync(dir).isDirectory()) throw new ViewError('view.missing_run', `${dir} is not a folder: give a bench run (searchgym bench run --out DIR) or a training run (searchgym train --out DIR)`)
    const has = (f: string) => existsSync(`${dir}/${f}`)
    if (has('metrics.jsonl')) return new RunFolder(name, dir, 'train')
    if (has('trajectories.jsonl') || has('summary.json')) return new RunFolder(name, dir, 'bench')
    throw new ViewError('view.not_run', `${dir} is not a run folder: no trajectories.jsonl or summary.json (bench run) and no metrics.jsonl (training run)`)
  }

  private path(f: string): string {
    return `${this.dir}/${f}`
  }

  /** Start (or continue) indexing every file of the run in the background; returns at once. */
  refresh(): void {
    this.traj.refresh()
    this.metrics.index.refresh()
    this.timing.index.refresh()
  }

  /** Wait until every file is indexed to its current end. */
  async ready(): Promise<void> {
    await Promise.all([this.traj.ready(), this.metrics.index.ready(), this.timing.index.ready()])
  }

  /** The run as it stands now (never waits for indexing; `indexing` says how far it got). */
  info(): RunInfo {
    this.refresh()
    const p = this.traj.progress()
    const config = this.config.get()
    return {
      name: this.name,
      dir: shownPath(this.dir),
      kind: this.kind,
      experiment: this.experimentName ?? experimentOf(this.name, this.dir),
      trajectories: this.byId.size,
      steps: this.metrics.steps.length,
      config,
      closedBook: config?.policy === 'closed-book',
      protocol: protocolOf(config),
      indexing: { bytes: p.bytes, total: p.total, complete: p.complete && this.metrics.index.progress().complete },
      flagged: this.traj.flagged.length + this.metrics.index.flagged.length + this.timing.index.flagged.length,
    }
  }

  /** Malformed lines of every file of the run (file, line, reason). */
  flaggedLines(): (FlaggedLine & { file: string })[] {
    return [
      ...this.traj.flagged.map((f) => ({ ...f, file: 'trajectories.jsonl' })),
      ...this.metrics.index.flagged.map((f) => ({ ...f, file: 'metrics.jsonl' })),
      ...this.timing.index.flagged.map((f) => ({ ...f, file: 'timing.jsonl' })),
    ]
  }

  /** One page of the trajectories indexed so far (`complete`: the whole file is indexed). */
  listTrajectories(f: TrajectoryFilters, offset: number, limit: number): TrajectoryPage {
    this.refresh()
    const items: TrajectorySummary[] = []
    let total = 0
    for (const t of this.byId.values()) {
      if ((f.outcome && outcomeOf(t) !== f.outcome) || (f.type && t.type !== f.type) || (f.hops !== undefined && t.hops !== f.hops) || (f.id && t.id !== f.id)) continue
      if (total >= offset && items.length < limit) items.push(strip(t))
      total++
    }
    const p = this.traj.progress()
    return { items, total, offset, limit, complete: p.complete, indexed: p, flagged: this.traj.flagged.slice(0, 50), flaggedTotal: this.traj.flagged.length }
  }

  /** Every indexed summary (after indexing finishes), for paired comparisons. */
  async summaries(): Promise<Map<string, Indexed>> {
    await this.traj.ready()
    return this.byId
  }

  /** The summary of one question, or undefined (waits for indexing). */
  async has(id: string): Promise<TrajectorySummary | undefined> {
    await this.traj.ready()
    return this.byId.get(id)
  }

  /** One full trajectory record, read from its line (waits for indexing only when the id is not indexed yet). */
  async trajectory(id: string): Promise<TrajectoryRecord> {
    let t = this.byId.get(id)
    if (!t) {
      await this.traj.ready()
      t = this.byId.get(id)
    }
    if (!t) throw new HttpError(404, 'view.unknown_trajectory', `run '${this.name}' has no trajectory for question '${id}'${this.byId.size === 0 ? ' (this run saved no trajectories.jsonl)' : ''}`)
    const hit = this.recent.get(id)
    if (hit && hit.start === t.start) return hit.record
    const fh = await open(this.path('trajectories.jsonl'), 'r')
    let record: TrajectoryRecord
    try {
      const buf = Buffer.alloc(t.end - t.start)
      await fh.read(buf, 0, buf.length, t.start)
      record = JSON.parse(buf.toString('utf8')) as TrajectoryRecord
    } finally {
      await fh.close()
    }
    this.recent.set(id, { start: t.start, record })
    if (this.recent.size > 4) this.recent.delete(this.recent.keys().next().value!)
    return record
  }

  summary(): Record<string, unknown> | null {
    return this.summaryFile.get()
  }

  /** One numeric metrics.jsonl key as (step, value) columns, every line indexed (NaN where a line lacks it). */
  async metricColumn(key: string): Promise<{ steps: number[]; ys: number[] }> {
    await this.metrics.index.ready()
    return { steps: this.metrics.steps.slice(), ys: this.metrics.column(key).slice() }
  }

  /** The numeric keys of metrics.jsonl (every line indexed). */
  async metricKeys(): Promise<string[]> {
    await this.metrics.index.ready()
    return [...this.metrics.cols.keys()]
  }

  /** Every numeric key this run has curves for (metrics.jsonl, then timing.jsonl as timing/KEY), indexed so far. */
  private keysNow(): string[] {
    return [...this.metrics.cols.keys(), ...[...this.timing.cols.keys()].map((k) => `timing/${k}`)]
  }

  /** Every numeric key this run has curves for (waits for indexing). */
  async curveKeys(): Promise<string[]> {
    await Promise.all([this.metrics.index.ready(), this.timing.index.ready()])
    return this.keysNow()
  }

  /**
   * Curves of `keys` (all when empty) against the step or the wall clock (cumulative timing.jsonl seconds at each
   * step), each downsampled to at most `points` min/max/mean buckets. `partial`: answer at once with the lines
   * indexed so far (`complete` says whether that is all of them); else wait for indexing.
   */
  async curves(keys: string[], x: 'step' | 'time', points: number, partial = false): Promise<RunCurves> {
    this.refresh()
    if (!partial) await Promise.all([this.metrics.index.ready(), this.timing.index.ready()])
    const complete = this.metrics.index.progress().complete && this.timing.index.progress().complete
    const key = `${keys.join(',')}|${x}|${points}|${this.metrics.steps.length}|${this.timing.steps.length}|${complete}`
    if (this.curveCache?.key === key) return this.curveCache.value
    const value = this.computeCurves(keys, x, points, complete)
    this.curveCache = { key, value }
    return value
  }

  private curveCache: { key: string; value: RunCurves } | null = null

  private computeCurves(keys: string[], x: 'step' | 'time', points: number, complete: boolean): RunCurves {
    const clock = new Map<number, number>()
    if (x === 'time') {
      const secs = this.timing.column('seconds')
      let sum = 0
      this.timing.steps.forEach((s, i) => {
        if (Number.isFinite(secs[i])) sum += secs[i]
        clock.set(s, sum)
      })
    }
    const xs = (steps: number[]) => (x === 'step' ? steps : steps.map((s) => clock.get(s) ?? NaN))
    const all = this.keysNow()
    const want = keys.length ? keys.filter((k) => all.includes(k)) : all
    const series: Record<string, CurveSeries> = {}
    for (const k of want) {
      const src = k.startsWith('timing/') ? this.timing : this.metrics
      const col = src.column(k.startsWith('timing/') ? k.slice(7) : k)
      series[k] = downsample(xs(src.steps), col, points)
    }
    const at = (s: number) => (x === 'step' ? s : (clock.get(s) ?? NaN))
    return { run: this.name, x, keys: all, series, stageSwitches: this.metrics.stages.map((s) => ({ ...s, x: at(s.step) })), complete }
  }
}

function strip(t: Indexed): TrajectorySummary {
  return { id: t.id, type: t.type, hops: t.hops, question: t.question, status: t.status, stopReason: t.stopReason, f1: t.f1, em: t.em, prediction: t.prediction, turns: t.turns }
}

/** Open every run folder, giving each a unique name (folder name, then name-2, name-3 …). */
export function openRuns(dirs: string[]): RunFolder[] {
  const used = new Set<string>()
  return dirs.map((d) => {
    const base = basename(resolve(d))
    let name = base
    for (let i = 2; used.has(name); i++) name = `${base}-${i}`
    used.add(name)
    return RunFolder.open(d, name)
  })
}

export type { ListPage }

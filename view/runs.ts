// view/runs: the run folders the viewer was given — bench runs (config.json, trajectories.jsonl, summary.json) and
// training runs (config.json, metrics.jsonl, timing.jsonl, checkpoints/; a trajectories.jsonl too when one was
// saved). Trajectories are indexed once (byte offsets and a summary per question) and read one at a time.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { TrajectoryRecord } from '../agent'
import { HttpError } from '../infra/http/errors'
import { ViewError } from './errors'
import type { CurvePoint, ListPage, RunCurves, RunInfo, TrajectorySummary } from './types'

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

interface Indexed extends TrajectorySummary {
  start: number
  end: number
}

function readJson(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (e) {
    throw new ViewError('view.bad_run', `${path} is not valid JSON: ${(e as Error).message}`)
  }
}

/** Lines of a JSONL file as parsed objects; a torn last line (a killed writer) is left out. */
function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return []
  const out: Record<string, unknown>[] = []
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue
    try {
      out.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      // torn line
    }
  }
  return out
}

export class RunFolder {
  readonly name: string
  readonly dir: string
  readonly kind: 'bench' | 'train'
  private index: Indexed[] | null = null
  private byId = new Map<string, Indexed>()

  private constructor(name: string, dir: string, kind: 'bench' | 'train') {
    this.name = name
    this.dir = dir
    this.kind = kind
  }

  /** A bench or training run folder; anything else is a ViewError naming what is missing. */
  static open(dir: string, name = basename(resolve(dir))): RunFolder {
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

  /** Index trajectories.jsonl: one summary per question (a later line for the same id supersedes an earlier one). */
  private trajectories(): Indexed[] {
    if (this.index) return this.index
    const p = this.path('trajectories.jsonl')
    const byId = new Map<string, Indexed>()
    if (existsSync(p)) {
      const buf = readFileSync(p)
      let start = 0
      while (start < buf.length) {
        let end = buf.indexOf(10, start)
        if (end < 0) end = buf.length
        const line = buf.subarray(start, end).toString('utf8')
        if (line.trim()) {
          try {
            const r = JSON.parse(line) as TrajectoryRecord
            if (typeof r.id === 'string')
              byId.set(r.id, {
                id: r.id,
                type: r.type,
                hops: r.hops,
                question: r.question,
                status: r.status,
                stopReason: r.stopReason ?? null,
                f1: r.f1 ?? 0,
                em: r.em ?? 0,
                prediction: r.prediction ?? null,
                turns: Array.isArray(r.turns) ? r.turns.length : 0,
                start,
                end,
              })
          } catch {
            // a torn last line (a killed run): bench run cuts it off on resume
          }
        }
        start = end + 1
      }
    }
    this.byId = byId
    this.index = [...byId.values()]
    return this.index
  }

  info(): RunInfo {
    const metrics = this.kind === 'train' ? readJsonl(this.path('metrics.jsonl')).length : 0
    return { name: this.name, dir: this.dir, kind: this.kind, trajectories: this.trajectories().length, steps: metrics, config: readJson(this.path('config.json')) }
  }

  listTrajectories(f: TrajectoryFilters, offset: number, limit: number): ListPage<TrajectorySummary> {
    const all = this.trajectories().filter(
      (t) => (!f.outcome || outcomeOf(t) === f.outcome) && (!f.type || t.type === f.type) && (f.hops === undefined || t.hops === f.hops) && (!f.id || t.id === f.id),
    )
    const items = all.slice(offset, offset + limit).map(({ start: _s, end: _e, ...t }) => t)
    return { items, total: all.length, offset, limit }
  }

  has(id: string): TrajectorySummary | undefined {
    this.trajectories()
    return this.byId.get(id)
  }

  /** One full trajectory record, read from its line. */
  trajectory(id: string): TrajectoryRecord {
    this.trajectories()
    const t = this.byId.get(id)
    if (!t) throw new HttpError(404, 'view.unknown_trajectory', `run '${this.name}' has no trajectory for question '${id}'${this.index!.length === 0 ? ' (this run saved no trajectories.jsonl)' : ''}`)
    const fd = openSync(this.path('trajectories.jsonl'), 'r')
    try {
      const buf = Buffer.alloc(t.end - t.start)
      readSync(fd, buf, 0, buf.length, t.start)
      return JSON.parse(buf.toString('utf8')) as TrajectoryRecord
    } finally {
      closeSync(fd)
    }
  }

  summary(): Record<string, unknown> | null {
    return readJson(this.path('summary.json'))
  }

  /** Training curves: every numeric field of metrics.jsonl and timing.jsonl by step, and the stage switches. */
  curves(): RunCurves {
    const series: Record<string, CurvePoint[]> = {}
    const stageSwitches: RunCurves['stageSwitches'] = []
    let last: string | undefined
    const add = (rows: Record<string, unknown>[], prefix: string) => {
      for (const r of rows) {
        const step = Number(r.step)
        if (!Number.isFinite(step)) continue
        for (const [k, v] of Object.entries(r)) if (k !== 'step' && typeof v === 'number' && Number.isFinite(v)) (series[prefix + k] ??= []).push({ step, value: v })
        if (prefix === '' && typeof r.stage === 'string' && r.stage !== last) {
          stageSwitches.push({ step, stage: r.stage })
          last = r.stage
        }
      }
    }
    add(readJsonl(this.path('metrics.jsonl')), '')
    add(readJsonl(this.path('timing.jsonl')), 'timing/')
    return { run: this.name, series, stageSwitches }
  }
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

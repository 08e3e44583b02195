// bench/experiment/results: the durable units of an experiment in a results folder of the repo (`experiment run
// --results DIR`) — the start unit (eval question lists, the start's record or SFT adapters, the start's benches) and
// every arm × seed unit (its metrics.jsonl, timing.jsonl, resolved config.json, final adapter, its benches' config and
// summary and a compact trajectory log: the scores the report reads, no transcripts). Exported when a unit's last
// phase is done (units.json written last, so a killed export is a unit not done), restored into a fresh --out before
// the runner starts; the report is copied there too. Paths inside the kept JSON files are written portably (relative
// to the experiment folder, see layout.portablePath). Knows the folder layout and which files are durable, not which
// phases make a unit (the runner says) nor how any phase runs.
import { createHash } from 'node:crypto'
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { ConfigError } from '../../infra/errors'
import { experimentPaths, portablePath } from './layout'
import type { ExperimentSpec } from './spec'

/** One unit: the phases that make it and the folders (relative to OUT) that hold its durable outputs. */
export interface ResultUnit {
  name: string
  phases: string[]
  /** OUT-relative folders exported (filtered to the durable files below) when the unit is done. */
  dirs: string[]
}

/** The fields of a bench trajectory record kept in the results folder: what the report reads (scores, type, hops),
 *  and the question and prediction to read; not the turns, initial prompt, infra calls or latency (a clock). */
const KEPT_RECORD_FIELDS = ['v', 'id', 'type', 'hops', 'question', 'golds', 'status', 'prediction', 'stopReason', 'formatValid', 'f1', 'em', 'counts', 'tokens', 'error', 'judge']
/** Files of a run or bench folder that are durable (small); everything else (checkpoints, transcripts, charts, the
 *  bench's report.md) is regenerable or a view of these. */
const KEPT_FILES = new Set(['metrics.jsonl', 'timing.jsonl', 'config.json', 'trajectories.jsonl', 'summary.json', 'floor.json', 'start.json', 'sft.json', 'heldout.json', 'adapter_model.safetensors', 'adapter_config.json'])
const KEPT_DIRS = /^(adapter|phase-\d+)$/
/** The report's files, copied beside the units when the report phase is done. */
export const REPORT_FILES = ['report.md', 'report.json', 'curves.svg', 'gains.svg']

const PROGRESS = 'units.json'

/** The results folder's copy of the spec: OUT/experiment.json with machine paths written portably and the world
 *  cache left out (where worlds are built does not change results). */
function portableSpec(s: ExperimentSpec, out: string): string {
  const { cache: _cache, ...worlds } = s.worlds
  const at = (p: string) => (p ? portablePath(p, out, experimentPaths(out, s).worlds) : '')
  return JSON.stringify({ ...s, worlds, start: { ...s.start, model: at(s.start.model), adapter: at(s.start.adapter) } }, null, 2) + '\n'
}

export class ExperimentResults {
  readonly dir: string
  private readonly out: string
  private readonly units: Set<string>
  private readonly spec: string

  /** Checks the folder (not OUT, not inside OUT or around it, not a file, not another experiment's) and reads which
   *  units it holds; writes nothing (open() does), so every refusal comes before any work. */
  constructor(dir: string, s: ExperimentSpec, out: string) {
    this.dir = resolve(dir)
    this.out = resolve(out)
    const inside = (a: string, b: string) => a === b || a.startsWith(b + sep)
    if (inside(this.dir, this.out) || inside(this.out, this.dir))
      throw new ConfigError('experiment.results_flag', `--results ${this.dir} ${this.dir === this.out ? 'is' : inside(this.dir, this.out) ? 'is inside' : 'holds'} the --out folder ${this.out}; give a separate folder (e.g. curriculum/results/${s.name})`)
    if (existsSync(this.dir) && !statSync(this.dir).isDirectory()) throw new ConfigError('experiment.results_flag', `--results ${this.dir} is a file; give a folder`)
    this.spec = portableSpec(s, this.out)
    const specFile = join(this.dir, 'experiment.json')
    if (existsSync(specFile) && readFileSync(specFile, 'utf8') !== this.spec)
      throw new ConfigError('experiment.results_mismatch', `${this.dir} holds the results of another experiment (experiment.json differs); use the same file or another --results folder`)
    if (!existsSync(specFile) && existsSync(this.dir) && readdirSync(this.dir).length > 0)
      throw new ConfigError('experiment.results_flag', `--results ${this.dir} is a folder of something else (not empty, no experiment.json); give a new or an experiment's results folder`)
    const f = join(this.dir, PROGRESS)
    const progress = existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { units: string[]; sha256?: Record<string, string> }) : { units: [] }
    this.units = new Set(progress.units)
    this.sums = new Map(Object.entries(progress.sha256 ?? {}))
  }

  /** Each exported unit's content digest (unitDigest), recorded in units.json at export and checked at restore. */
  private readonly sums: Map<string, string>

  /** Creates the folder and its experiment.json. */
  open(): void {
    mkdirSync(this.dir, { recursive: true })
    const f = join(this.dir, 'experiment.json')
    if (!existsSync(f)) writeAtomic(f, this.spec)
  }

  has(unit: string): boolean {
    return this.units.has(unit)
  }

  /** Copies every exported unit that OUT has not finished (`doneInOut`) into OUT, replacing what OUT holds of it (a
   *  run killed half way here is finished there), and returns the units restored. */
  restore(units: ResultUnit[], doneInOut: (phase: string) => boolean): ResultUnit[] {
    const restored: ResultUnit[] = []
    for (const u of units) {
      if (!this.units.has(u.name) || u.phases.every(doneInOut)) continue
      // A run or bench folder is always exported; one missing was deleted by hand (the start's folder may not exist).
      const lost = u.dirs.filter((d) => /^(runs|bench)\//.test(d) && !existsSync(join(this.dir, d)))
      if (lost.length > 0)
        throw new ConfigError('experiment.results_torn', `${this.dir}: unit ${u.name} is recorded done in units.json but ${lost.join(', ')} is missing; restore it (git checkout) or remove '${u.name}' from units.json to run it again`)
      // What was exported is what is restored: a file edited since (a trajectories.jsonl, a summary) would change the
      // report. Units exported before digests were recorded are restored as they are.
      const sum = this.sums.get(u.name)
      if (sum !== undefined && unitDigest(this.dir, u.dirs) !== sum)
        throw new ConfigError('experiment.results_edited', `${this.dir}: unit ${u.name} changed since it was exported (its files no longer hash to the sha256 units.json recorded); restore it (git checkout) or remove '${u.name}' from units.json to run it again`)
    }
    for (const u of units) {
      if (!this.units.has(u.name) || u.phases.every(doneInOut)) continue
      for (const d of u.dirs) {
        const from = join(this.dir, d)
        const to = join(this.out, d)
        rmSync(to, { recursive: true, force: true })
        if (!existsSync(from)) continue
        mkdirSync(dirname(to), { recursive: true })
        cpSync(from, to, { recursive: true })
      }
      restored.push(u)
    }
    return restored
  }

  /** Exports a finished unit: its folders, filtered to the durable files; recorded in units.json last. */
  export(u: ResultUnit, worlds: string): void {
    if (this.units.has(u.name)) return
    for (const d of u.dirs) {
      const from = join(this.out, d)
      const to = join(this.dir, d)
      const tmp = to + '.tmp'
      rmSync(tmp, { recursive: true, force: true })
      if (existsSync(from)) copyDurable(from, tmp, { out: this.out, worlds })
      rmSync(to, { recursive: true, force: true })
      if (!existsSync(tmp)) continue
      mkdirSync(dirname(to), { recursive: true })
      renameSync(tmp, to)
    }
    this.units.add(u.name)
    this.sums.set(u.name, unitDigest(this.dir, u.dirs))
    const sha256 = Object.fromEntries([...this.sums].filter(([k]) => this.units.has(k)).sort(([a], [b]) => (a < b ? -1 : 1)))
    writeAtomic(join(this.dir, PROGRESS), JSON.stringify({ units: [...this.units].sort(), sha256 }, null, 1) + '\n')
  }

  /** The report's files copied beside the units (each atomically). */
  copyReport(): void {
    for (const f of REPORT_FILES) {
      if (!existsSync(join(this.out, f))) continue
      copyFileSync(join(this.out, f), join(this.dir, f + '.tmp'))
      renameSync(join(this.dir, f + '.tmp'), join(this.dir, f))
    }
  }

  /** The folder relative to the working directory when inside it, else absolute (for progress lines). */
  shown(): string {
    const r = relative(process.cwd(), this.dir)
    return r === '' ? '.' : r.startsWith('..') ? this.dir : r
  }
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(path + '.tmp', text)
  renameSync(path + '.tmp', path)
}

function copyDurable(from: string, to: string, where: { out: string; worlds: string }): void {
  mkdirSync(to, { recursive: true })
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name)
    if (e.isDirectory()) {
      if (KEPT_DIRS.test(e.name)) copyDurable(src, join(to, e.name), where)
      continue
    }
    const evalList = e.name.endsWith('.json') && dirname(src).endsWith(sep + 'eval')
    if (!e.isFile() || !(KEPT_FILES.has(e.name) || evalList)) continue
    if (e.name === 'trajectories.jsonl') writeFileSync(join(to, e.name), compactTrajectories(readFileSync(src, 'utf8')))
    else if (e.name.endsWith('.json')) writeFileSync(join(to, e.name), portableJson(readFileSync(src, 'utf8'), where, from))
    else copyFileSync(src, join(to, e.name))
  }
}

/** A JSON file with every absolute path among its strings written portably (layout.portablePath); same layout. A run
 *  folder's own records keep their paths relative to that folder (`dir`, where the file is in OUT): those (the
 *  RECORDED_PATH_KEYS, and an adapter's base_model_name_or_path) are written from where they point, and an older
 *  folder's keys from its absolute `origin`, so every path in the results folder is read the same way (portablePath). */
export function portableJson(text: string, where: { out: string; worlds: string }, dir?: string): string {
  const at = (p: string) => portablePath(p, where.out, where.worlds)
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith('/') && v.length > 1 ? at(v) : v
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    const o = v as Record<string, unknown>
    const origin = o.origin !== null && typeof o.origin === 'object' ? (o.origin as Record<string, unknown>) : undefined
    return Object.fromEntries(
      Object.entries(o).map(([k, x]) => {
        if (origin && k !== 'origin' && k in origin && x !== null && origin[k] !== null) return [k, walk(origin[k])]
        if (k === 'base_model_name_or_path' && dir && typeof x === 'string' && !x.startsWith('/') && (x.startsWith('.') || x.includes('/'))) return [k, at(resolve(dir, x))]
        if (RECORDED_PATH_KEYS.has(k) && dir) {
          const rel = (y: unknown) => (typeof y === 'string' && (y === '.' || y.startsWith('./') || y.startsWith('../')) ? at(resolve(dir, y)) : walk(y))
          return [k, Array.isArray(x) ? x.map(rel) : rel(x)]
        }
        return [k, walk(x)]
      }),
    )
  }
  const compact = !text.includes('\n') || text.indexOf('\n') === text.length - 1
  return JSON.stringify(walk(JSON.parse(text)), null, compact ? undefined : /^\{\n( +)/.exec(text)?.[1].length ?? 2) + (text.endsWith('\n') ? '\n' : '')
}

/** Keys whose values a run folder records relative to itself (infra/recorded-path): train config.json, sft.json,
 *  pretrain.json, a bench's config.json. */
const RECORDED_PATH_KEYS = new Set(['world', 'worlds', 'model', 'adapter', 'initAdapter', 'evalWorld'])

/** sha256 over a unit's exported files (their paths under the results folder and their bytes, in path order). */
export function unitDigest(root: string, dirs: readonly string[]): string {
  const h = createHash('sha256')
  const walk = (rel: string) => {
    const abs = join(root, rel)
    if (!existsSync(abs)) return
    if (statSync(abs).isDirectory()) {
      for (const e of readdirSync(abs).sort()) walk(rel ? `${rel}/${e}` : e)
      return
    }
    h.update(`${rel}\0`)
    h.update(readFileSync(abs))
    h.update('\0')
  }
  for (const d of [...dirs].sort()) walk(d)
  return h.digest('hex')
}

/** A bench log without transcripts and clocks: one line per record, the kept fields in their order. */
export function compactTrajectories(text: string): string {
  return (
    text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        const r = JSON.parse(l) as Record<string, unknown>
        return JSON.stringify(Object.fromEntries(KEPT_RECORD_FIELDS.filter((k) => k in r).map((k) => [k, r[k]])))
      })
      .join('\n') + '\n'
  )
}

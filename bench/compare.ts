// bench/compare: paired comparison of runs on the same questions — mean difference (run − baseline) of F1, EM and
// judge accuracy, overall and by type and hops, with paired bootstrap 95% CIs, a sign-flip permutation p-value and
// an exact sign test; rendered as a printed table, compare.md and a forest chart. The first run is the baseline.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { BenchError } from '../infra/errors'
import { pct, table } from './report'
import { RUN_FILES } from './run'
import { pairedDifference, type PairedEstimate } from './stats'
import { forestChart } from './svg'
import { latestById, loadTrajectories } from './trajectory-log'
import type { TrajectoryRecord } from './types'

export interface LoadedRun {
  dir: string
  name: string
  records: Map<string, TrajectoryRecord>
}

export type CompareMetric = 'f1' | 'em' | 'judge'

export interface ComparisonRow {
  run: string
  baseline: string
  /** 'all', 'type=simple', 'hops=3', ... */
  group: string
  metric: CompareMetric
  baselineMean: number
  runMean: number
  diff: PairedEstimate
}

export interface Comparison {
  baseline: string
  runs: string[]
  /** Questions paired per run: scored in both the baseline and that run (none lost to the endpoint). */
  paired: Record<string, number>
  /** Questions left out of the pairing, per run: in one run's log only, or lost to the endpoint in either. */
  unpaired: Record<string, number>
  /** Why they were left out, per run (the counts overlap when a question is lost in both). */
  leftOut: Record<string, LeftOut>
  rows: ComparisonRow[]
}

export interface LeftOut {
  /** In the baseline's log only / in the run's log only. */
  baselineOnly: number
  runOnly: number
  /** Lost to the endpoint (status infra_error) in the baseline / in the run: never scored, so never paired. */
  lostBaseline: number
  lostRun: number
}

/** Scored: the episode ran (status ok, or error = scored 0); a question lost to the endpoint was never scored. */
export function scored(r: TrajectoryRecord): boolean {
  return r.status !== 'infra_error'
}

export function loadRun(dir: string): LoadedRun {
  const path = join(dir, RUN_FILES.trajectories)
  if (!existsSync(path)) throw new BenchError('bench.no_run', `${dir} is not a bench run (no ${RUN_FILES.trajectories}); pass run directories written by 'searchgym bench run'`)
  return { dir, name: basename(resolve(dir)), records: latestById(loadTrajectories(path).records) }
}

function metricOf(r: TrajectoryRecord, m: CompareMetric): number | undefined {
  if (m === 'judge') return r.judgeError !== undefined ? undefined : r.judge ? (r.judge.correct ? 1 : 0) : r.status !== 'ok' ? 0 : undefined
  return r[m]
}

export function compareRuns(runs: LoadedRun[], opts: { resamples: number; seed: number }): Comparison {
  if (runs.length < 2) throw new BenchError('bench.compare_args', 'bench compare needs at least two run directories (the first is the baseline)')
  const base = runs[0]
  const cmp: Comparison = { baseline: base.name, runs: runs.slice(1).map((r) => r.name), paired: {}, unpaired: {}, leftOut: {}, rows: [] }
  for (const run of runs.slice(1)) {
    const shared = [...base.records.keys()].filter((id) => run.records.has(id))
    if (shared.length === 0) throw new BenchError('bench.compare_disjoint', `${run.dir} and ${base.dir} share no question ids; compare runs on the same world and split`)
    const lostBase = (id: string) => !scored(base.records.get(id)!)
    const lostRun = (id: string) => !scored(run.records.get(id)!)
    const ids = shared.filter((id) => !lostBase(id) && !lostRun(id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    if (ids.length === 0)
      throw new BenchError('bench.compare_nothing_scored', `${run.dir} and ${base.dir} have no question scored in both (the shared ones were lost to the endpoint); rerun with --retry-errors first`)
    cmp.paired[run.name] = ids.length
    cmp.leftOut[run.name] = {
      baselineOnly: base.records.size - shared.length,
      runOnly: run.records.size - shared.length,
      lostBaseline: [...base.records.values()].filter((r) => !scored(r)).length,
      lostRun: [...run.records.values()].filter((r) => !scored(r)).length,
    }
    cmp.unpaired[run.name] = new Set([...base.records.keys(), ...run.records.keys()]).size - ids.length
    const groups: [string, string[]][] = [['all', ids]]
    const byKey = (key: (r: TrajectoryRecord) => string, prefix: string) => {
      const m = new Map<string, string[]>()
      for (const id of ids) {
        const k = key(base.records.get(id)!)
        const g = m.get(k)
        if (g) g.push(id)
        else m.set(k, [id])
      }
      const keys = [...m.keys()].sort((a, b) => (prefix === 'hops' ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0))
      for (const k of keys) groups.push([`${prefix}=${k}`, m.get(k)!])
    }
    byKey((r) => r.type, 'type')
    byKey((r) => String(r.hops), 'hops')
    for (const metric of ['f1', 'em', 'judge'] as const) {
      for (const [group, gids] of groups) {
        const a: number[] = []
        const b: number[] = []
        for (const id of gids) {
          const x = metricOf(base.records.get(id)!, metric)
          const y = metricOf(run.records.get(id)!, metric)
          if (x === undefined || y === undefined) continue
          a.push(x)
          b.push(y)
        }
        if (a.length === 0) continue
        const diff = pairedDifference(a, b, { resamples: opts.resamples, seed: opts.seed, label: `${run.name}:${group}:${metric}` })
        cmp.rows.push({ run: run.name, baseline: base.name, group, metric, baselineMean: a.reduce((s, v) => s + v, 0) / a.length, runMean: b.reduce((s, v) => s + v, 0) / b.length, diff })
      }
    }
  }
  return cmp
}

function pv(p: number): string {
  return p < 0.001 ? '<0.001' : p.toFixed(3)
}

export function comparisonRows(c: Comparison, filter: (r: ComparisonRow) => boolean = () => true): string[][] {
  return c.rows.filter(filter).map((r) => [
    r.run,
    r.group,
    r.metric.toUpperCase(),
    String(r.diff.n),
    pct(r.baselineMean),
    pct(r.runMean),
    `${r.diff.mean >= 0 ? '+' : ''}${pct(r.diff.mean)} [${pct(r.diff.lo)}, ${pct(r.diff.hi)}]`,
    `${r.diff.wins}/${r.diff.losses}/${r.diff.ties}`,
    pv(r.diff.pPermutation) + (r.diff.exact ? '' : '~'),
    pv(r.diff.pSign),
  ])
}

export const COMPARE_HEADER = ['run', 'group', 'metric', 'n', 'baseline %', 'run %', 'diff pp [95% CI]', 'win/loss/tie', 'p (perm)', 'p (sign)']

/** A fixed-width text table for the terminal. */
export function formatComparisonText(c: Comparison, groups: 'all' | 'every' = 'every'): string {
  const rows = comparisonRows(c, (r) => groups === 'every' || r.group === 'all')
  const all = [COMPARE_HEADER, ...rows]
  const w = COMPARE_HEADER.map((_, i) => Math.max(...all.map((r) => r[i].length)))
  const line = (r: string[]) => r.map((v, i) => (i < 3 ? v.padEnd(w[i]) : v.padStart(w[i]))).join('  ')
  const out = [`baseline: ${c.baseline}; paired questions (scored in both runs): ${Object.entries(c.paired).map(([k, v]) => `${k} ${v}`).join(', ')}`]
  for (const k of Object.keys(c.paired)) if (c.unpaired[k]) out.push(`warning: ${k}: ${leftOutText(c, k)}`)
  out.push(line(COMPARE_HEADER), ...rows.map(line))
  return out.join('\n') + '\n'
}

/** '3 left out: 2 lost to the endpoint in run B, 1 only in the baseline's log' (or '' when none). */
export function leftOutText(c: Comparison, run: string): string {
  const n = c.unpaired[run] ?? 0
  const lo = c.leftOut[run]
  if (!n || !lo) return ''
  const parts: string[] = []
  if (lo.lostBaseline) parts.push(`${lo.lostBaseline} lost to the endpoint in ${c.baseline}`)
  if (lo.lostRun) parts.push(`${lo.lostRun} lost to the endpoint in ${run}`)
  if (lo.baselineOnly) parts.push(`${lo.baselineOnly} only in ${c.baseline}'s log`)
  if (lo.runOnly) parts.push(`${lo.runOnly} only in ${run}'s log`)
  return `${n} question${n === 1 ? '' : 's'} left out of the pairing (${parts.join('; ')}); rerun with --retry-errors / the same --limit to pair them`
}

export function renderComparison(c: Comparison): { markdown: string; svg: string } {
  const md: string[] = []
  md.push(`# Paired comparison against \`${c.baseline}\``)
  md.push('')
  md.push('Differences are run − baseline in percentage points over the questions both runs scored (a question lost to the endpoint in either run, or in one run’s log only, is left out and counted below); 95% CIs are paired percentile ' +
    'bootstrap intervals (questions resampled together); p (perm) is a two-sided sign-flip permutation test (exact when ≤ 20 non-zero ' +
    'differences, otherwise Monte Carlo, marked ~); p (sign) is an exact two-sided sign test.')
  md.push('')
  for (const [k, v] of Object.entries(c.paired)) md.push(`- \`${k}\`: ${v} paired questions${c.unpaired[k] ? `; **${leftOutText(c, k)}**` : ''}`)
  md.push('')
  md.push(table(COMPARE_HEADER, comparisonRows(c)))
  md.push('')
  md.push('![paired differences](compare.svg)')
  md.push('')
  const rows = c.rows.filter((r) => r.metric === 'f1' && (r.group === 'all' || r.group.startsWith('type=')))
  const svg = forestChart({
    title: `F1 difference vs ${c.baseline} (95% paired bootstrap CI)`,
    xLabel: 'difference in F1, percentage points (run − baseline)',
    rows: rows.map((r) => ({ label: `${r.run} ${r.group}`, estimate: 100 * r.diff.mean, lo: 100 * r.diff.lo, hi: 100 * r.diff.hi })),
  })
  return { markdown: md.join('\n'), svg }
}

export function writeComparison(outDir: string, c: Comparison): void {
  mkdirSync(outDir, { recursive: true })
  const { markdown, svg } = renderComparison(c)
  writeFileSync(join(outDir, 'compare.md'), markdown)
  writeFileSync(join(outDir, 'compare.svg'), svg)
  writeFileSync(join(outDir, 'compare.json'), JSON.stringify(c, null, 2) + '\n')
}

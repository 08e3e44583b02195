// bench/experiment/report: an experiment's report from its folders alone (experiment.json, eval/SET.json, bench/*,
// runs/*/metrics.jsonl) — per evaluation set and Access setting: the start and every arm (mean over seeds, 95 % CI
// from a two-way bootstrap over seeds and questions), paired gains against the start and between arms (paired by
// question and seed), the same by question type and hops, and the training curves of every run. Writes report.json,
// report.md, curves.svg and gains.svg; only relative names and numbers that are a function of the runs' outputs
// (no clock, no absolute path), so a resumed experiment writes the same bytes as an uninterrupted one.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { noUpdateLine } from '../../agent'
import { ConfigError } from '../../infra/errors'
import { loadRun, scored } from '../compare'
import { ci, pct, table } from '../report'
import { bootstrapSeedsQuestions, type Estimate } from '../stats'
import { forestChart, lineChart } from '../svg'
import type { TrajectoryRecord } from '../types'
import { benchModes, benchName, runName, startModes } from './layout'
import { floorOver, type FloorRecord } from '../floor-record'
import { type ExperimentSpec } from './spec'

export interface ArmResult {
  arm: string
  /** Mean F1 of each seed's run over the set's questions. */
  seedF1: Record<string, number>
  f1: Estimate
  em: number
  /** Paired against the start on the same questions (every seed): F1, and EM (a gain of whole answers, not words). */
  gain: Estimate
  emGain: Estimate
  groups: { group: string; n: number; start: number; mean: number; gain: Estimate }[]
}

export interface SetResult {
  set: string
  access: boolean
  /** Questions scored in every run of this table (none lost to an engine failure). */
  questions: number
  start: { f1: Estimate; em: number }
  /** The floor of the same questions: the best constant answer per relation (bench/floor-record, from the start bench's
   *  floor.json); null when that bench has none (written before the floor). */
  floor: { n: number; f1: number; em: number } | null
  arms: ArmResult[]
  /** Arm b − arm a, paired by question and seed. */
  between: { a: string; b: string; diff: Estimate }[]
}

export interface ExperimentReport {
  name: string
  worlds: { preset: string; trainSeeds: number[]; evalSeeds: number[] }
  arms: ExperimentSpec['arms']
  seeds: number[]
  steps: number
  runsDone: number
  runsTotal: number
  sets: SetResult[]
  curves: Record<string, { step: number; rewardMean: number; f1: number }[]>
  /** A model-folder start: the folder (relative to the experiment's out folder) and its model.safetensors sha256. */
  start: { model: string; sha256: string } | null
  /** Per trained run, read from its metrics.jsonl: what happened, not what was asked. */
  runs: RunProvenance[]
  /** Some run made 0 optimizer steps or saw only constant groups (flagged loudly in report.md). */
  warning: boolean
  /** One line per evaluation table and arm: the start's F1 → the arm's, after how many steps and optimizer steps, the
   *  paired gain with its CI and the verdict (noUpdateLine's sentence when the arm's runs trained nothing: 0 optimizer steps, or lr 0). */
  summary: string[]
}

export interface RunProvenance {
  run: string
  /** Resolved GRPO config of the run (its arm and seed). */
  config: { lr: number; groupSize: number; steps: number; epsLow: number; epsHigh: number; klBeta: number; ppoMiniBatch: number; ppoEpochs: number }
  /** Metric lines written (steps made). */
  stepsMade: number
  optimizerSteps: number
  trainedTokens: number
  /** First step whose curriculum stage differs from step 1's (null: one stage throughout). */
  switchStep: number | null
  /** Every group of every step was constant (all rewards equal): nothing to learn from. */
  constantOnly: boolean
  /** Per curriculum stage, in the order met: the groups drawn (one per question, refills included) and how many were
   *  informative — not constant (every rollout's reward equal), so they carried an advantage. */
  informative: StageGroups[]
  warning: boolean
}

export interface StageGroups {
  stage: string
  /** Groups drawn (one per question, refills included). */
  groups: number
  /** Of them, groups whose rollouts' rewards were not all equal. */
  informative: number
}

/** The informative share of GRPO groups per stage from a run's metric lines (`questions` groups drawn, `constant` of them
 *  constant; lines written before `questions` was recorded count nothing). */
export function informativeByStage(lines: readonly { stage?: string; questions?: number; all0?: number; all1?: number; constant?: number }[]): StageGroups[] {
  const by = new Map<string, { groups: number; constant: number }>()
  for (const m of lines) {
    const k = m.stage ?? '–'
    const e = by.get(k) ?? { groups: 0, constant: 0 }
    e.groups += m.questions ?? 0
    // A constant group is one of three kinds in the trainer's metrics: every reward 0 (all0), every reward 1 (all1), or
    // another value shared by the whole group (constant); none of them trains anything.
    e.constant += (m.all0 ?? 0) + (m.all1 ?? 0) + (m.constant ?? 0)
    by.set(k, e)
  }
  return [...by].map(([stage, e]) => ({ stage, groups: e.groups, informative: e.groups - e.constant }))
}

/** `stage1 42.0% of 1,024, stage2 31.5% of 512`. */
export function informativeText(xs: readonly StageGroups[]): string {
  return xs.map((x) => `${x.stage} ${x.groups > 0 ? `${((100 * x.informative) / x.groups).toFixed(1)}%` : '–'} of ${x.groups.toLocaleString('en-US')}`).join(', ') || '–'
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)

function groupKeys(r: TrajectoryRecord): string[] {
  return [`type=${r.type}`, `hops=${r.hops}`]
}

export function buildExperimentReport(out: string): ExperimentReport {
  const specFile = join(out, 'experiment.json')
  if (!existsSync(specFile)) throw new ConfigError('experiment.no_run', `${out} is not an experiment folder (no experiment.json); run searchgym experiment run FILE --out ${out} first`)
  const s = JSON.parse(readFileSync(specFile, 'utf8')) as ExperimentSpec
  const B = { resamples: s.bootstrap, seed: 0 }
  const benchDir = (name: string) => join(out, 'bench', name)
  const have = (name: string) => existsSync(join(benchDir(name), 'summary.json'))
  const sets: SetResult[] = []
  for (const set of s.eval.sets)
    for (const access of startModes(s)) {
      const startName = benchName('start', set.name, access)
      if (!have(startName)) continue
      const start = loadRun(benchDir(startName)).records
      const arms = s.arms.filter((a) => benchModes(a).includes(access))
      // Runs of an arm that are benched (a partial experiment reports what is done, and says so in runsDone).
      const runs = new Map(arms.map((a) => [a.name, s.seeds.filter((seed) => have(benchName(runName(a.name, seed), set.name, access))).map((seed) => ({ seed, rec: loadRun(benchDir(benchName(runName(a.name, seed), set.name, access))).records }))]))
      const ids = [...start.keys()].filter((id) => scored(start.get(id)!) && [...runs.values()].every((rs) => rs.every((r) => r.rec.has(id) && scored(r.rec.get(id)!)))).sort()
      const label = `${set.name}${access ? '' : '+noaccess'}`
      const startF1 = ids.map((id) => start.get(id)!.f1)
      const res: SetResult = {
        set: set.name,
        access,
        questions: ids.length,
        start: { f1: bootstrapSeedsQuestions([startF1], { ...B, label: `${label}:start` }), em: mean(ids.map((id) => start.get(id)!.em)) },
        floor: floorOfBench(benchDir(startName), ids),
        arms: [],
        between: [],
      }
      const grids = new Map<string, number[][]>()
      for (const a of arms) {
        const rs = runs.get(a.name)!
        if (rs.length === 0) continue
        const grid = rs.map((r) => ids.map((id) => r.rec.get(id)!.f1))
        grids.set(a.name, grid)
        const gainGrid = grid.map((row) => row.map((v, j) => v - startF1[j]))
        const startEm = ids.map((id) => start.get(id)!.em)
        const emGainGrid = rs.map((r) => ids.map((id, j) => r.rec.get(id)!.em - startEm[j]))
        const groups: ArmResult['groups'] = []
        const keys = [...new Set(ids.flatMap((id) => groupKeys(start.get(id)!)))].sort((x, y) => groupOrder(x) - groupOrder(y) || (x < y ? -1 : x > y ? 1 : 0))
        for (const g of keys) {
          const cols = ids.map((id, j) => (groupKeys(start.get(id)!).includes(g) ? j : -1)).filter((j) => j >= 0)
          groups.push({
            group: g,
            n: cols.length,
            start: mean(cols.map((j) => startF1[j])),
            mean: mean(grid.flatMap((row) => cols.map((j) => row[j]))),
            gain: bootstrapSeedsQuestions(gainGrid.map((row) => cols.map((j) => row[j])), { ...B, label: `${label}:${a.name}:${g}` }),
          })
        }
        res.arms.push({
          arm: a.name,
          seedF1: Object.fromEntries(rs.map((r, i) => [`s${r.seed}`, mean(grid[i])])),
          f1: bootstrapSeedsQuestions(grid, { ...B, label: `${label}:${a.name}` }),
          em: mean(rs.flatMap((r) => ids.map((id) => r.rec.get(id)!.em))),
          gain: bootstrapSeedsQuestions(gainGrid, { ...B, label: `${label}:${a.name}:gain` }),
          emGain: bootstrapSeedsQuestions(emGainGrid, { ...B, label: `${label}:${a.name}:em-gain` }),
          groups,
        })
      }
      const names = [...grids.keys()]
      for (let i = 0; i < names.length; i++)
        for (let j = i + 1; j < names.length; j++) {
          const A = grids.get(names[i])!
          const Bg = grids.get(names[j])!
          const k = Math.min(A.length, Bg.length)
          const diff = Array.from({ length: k }, (_, si) => Bg[si].map((v, q) => v - A[si][q]))
          res.between.push({ a: names[i], b: names[j], diff: bootstrapSeedsQuestions(diff, { ...B, label: `${label}:${names[j]}-${names[i]}` }) })
        }
      sets.push(res)
    }
  const curves: ExperimentReport['curves'] = {}
  const provenance: RunProvenance[] = []
  let runsDone = 0
  for (const a of s.arms)
    for (const seed of s.seeds) {
      const dir = join(out, 'runs', runName(a.name, seed))
      if (existsSync(join(dir, 'adapter'))) runsDone++
      const f = join(dir, 'metrics.jsonl')
      if (!existsSync(f)) continue
      const lines = readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { step: number; rewardMean: number; f1: number; stage?: string; optimizerSteps?: number; trainedTokens?: number; groupsKept?: number; questions?: number; constant?: number })
      curves[runName(a.name, seed)] = lines.map((m) => ({ step: m.step, rewardMean: m.rewardMean, f1: m.f1 }))
      const c = s.train
      const optimizerSteps = lines.reduce((x, m) => x + (m.optimizerSteps ?? 0), 0)
      const constantOnly = lines.length > 0 && lines.every((m) => (m.groupsKept ?? 0) === 0)
      const switchAt = lines.find((m) => m.stage !== lines[0].stage)
      provenance.push({
        run: runName(a.name, seed),
        config: { lr: c.lr, groupSize: c.groupSize, steps: c.steps, epsLow: c.epsLow, epsHigh: c.epsHigh, klBeta: c.klBeta, ppoMiniBatch: c.ppoMiniBatch, ppoEpochs: c.ppoEpochs },
        stepsMade: lines.length,
        optimizerSteps,
        trainedTokens: lines.reduce((x, m) => x + (m.trainedTokens ?? 0), 0),
        switchStep: switchAt ? switchAt.step : null,
        constantOnly,
        informative: informativeByStage(lines),
        warning: optimizerSteps === 0 || constantOnly || c.lr === 0,
      })
    }
  const startFile = join(out, 'start', 'start.json')
  const start = existsSync(startFile) ? (JSON.parse(readFileSync(startFile, 'utf8')) as { model: string; sha256: string }) : null
  const steps = s.train.steps
  const summary = sets.flatMap((set) => set.arms.map((a) => summaryLine(set, a, scoredRuns(a, s.seeds, provenance))))
  return { name: s.name, worlds: { preset: s.worlds.preset, trainSeeds: s.worlds.trainSeeds, evalSeeds: s.worlds.evalSeeds }, arms: s.arms, seeds: s.seeds, steps, runsDone, runsTotal: s.arms.length * s.seeds.length, sets, curves, start, runs: provenance, warning: provenance.some((r) => r.warning), summary }
}

/** The floor over `ids` from a bench folder's floor.json (null when it has none). */
function floorOfBench(dir: string, ids: readonly string[]): SetResult['floor'] {
  const f = join(dir, 'floor.json')
  return existsSync(f) ? floorOver(JSON.parse(readFileSync(f, 'utf8')) as FloorRecord, ids) : null
}

/** The runs an arm's scores come from (those benched: a seed in its seedF1), not one still training beside them, so a
 *  result line's step and optimizer-step counts are those of the runs it reports. */
export function scoredRuns<R extends { run: string }>(a: Pick<ArmResult, 'arm' | 'seedF1'>, seeds: readonly number[], runs: readonly R[]): R[] {
  return runs.filter((x) => seeds.some((seed) => `s${seed}` in a.seedF1 && x.run === runName(a.arm, seed)))
}

/** `SET F1 (N questions): start X% → ARM Y% after S GRPO steps (O optimizer steps); paired gain ±G pp [95% CI lo, hi]:
 *  verdict; EM X% → Y%, paired gain ±G pp [95% CI lo, hi]; floor F1 F% EM E% (…)` — the verdict read off the CI, or noUpdateLine's sentence when nothing was trained (`train --preset` prints it last). */
function summaryLine(set: SetResult, a: ArmResult, runs: RunProvenance[]): string {
  const pp = (x: number) => (100 * x).toFixed(1)
  const sign = (x: number) => (x >= 0 ? '+' : '') + pp(x)
  const optimizerSteps = runs.reduce((x, r) => x + r.optimizerSteps, 0)
  const steps = Math.min(...runs.map((r) => r.stepsMade))
  const verdict = noUpdateLine(optimizerSteps, runs[0]?.config.lr ?? 1) ?? (a.gain.lo > 0 ? 'a gain (CI above 0)' : a.gain.hi < 0 ? 'a loss (CI below 0)' : 'no gain at this size (CI includes 0)')
  return (
    `${set.set}${set.access ? '' : ' without Access'} F1 (${set.questions} questions): start ${pp(set.start.f1.mean)}% → ${a.arm} ${pp(a.f1.mean)}% ` +
    `after ${steps} GRPO steps${runs.length > 1 ? ` × ${runs.length} seeds` : ''} (${optimizerSteps} optimizer steps); paired gain ${sign(a.gain.mean)} pp [95% CI ${sign(a.gain.lo)}, ${sign(a.gain.hi)}]: ${verdict}` +
    (a.emGain ? `; EM ${pp(set.start.em)}% → ${pp(a.em)}%, paired gain ${sign(a.emGain.mean)} pp [95% CI ${sign(a.emGain.lo)}, ${sign(a.emGain.hi)}]` : '') +
    (set.floor ? `; floor F1 ${pp(set.floor.f1)}% EM ${pp(set.floor.em)}% (a constant answer per relation)` : '')
  )
}

/** report.md's provenance: the start's sha256, per run its resolved config and what the run made, a WARNING line per
 *  run that trained nothing (0 optimizer steps, or constant groups only). */
function provenanceLines(r: ExperimentReport): string[] {
  const md: string[] = ['## Provenance', '']
  if (r.start) md.push(`Start: model folder \`${r.start.model}\` (model.safetensors sha256 \`${r.start.sha256}\`), GRPO with a fresh LoRA.`, '')
  for (const run of r.runs.filter((x) => x.warning))
    md.push(`WARNING: run \`${run.run}\` ${run.optimizerSteps === 0 ? 'made 0 optimizer steps' : run.config.lr === 0 ? 'trained at lr 0' : 'trained on constant groups only'} (${run.stepsMade} steps): its adapter is the start, not a trained arm.`, '')
  if (r.runs.length > 0) {
    const rows = r.runs.map((x) => [x.run, String(x.config.lr), String(x.config.groupSize), `${x.stepsMade}/${x.config.steps}`, `${x.config.epsLow}/${x.config.epsHigh}`, String(x.config.klBeta), `${x.config.ppoMiniBatch}×${x.config.ppoEpochs}`, x.switchStep === null ? '–' : String(x.switchStep), String(x.optimizerSteps), String(x.trainedTokens), informativeText(x.informative), x.warning ? 'WARNING' : ''])
    md.push(table(['run', 'lr', 'group', 'steps made/asked', 'clip ε low/high', 'KL β', 'PPO mini-batch × epochs', 'stage switch at step', 'optimizer steps', 'tokens trained', 'informative groups per stage', 'flag'], rows), '')
    // Per arm: the informative share per stage over its seeds' runs (a stage where nearly every group is constant
    // trains almost nothing, whatever its step count).
    const arms = r.arms.map((a) => {
      const runs = r.runs.filter((x) => r.seeds.some((seed) => x.run === runName(a.name, seed)))
      const merged = new Map<string, StageGroups>()
      for (const x of runs.flatMap((x) => x.informative)) {
        const e = merged.get(x.stage) ?? { stage: x.stage, groups: 0, informative: 0 }
        e.groups += x.groups
        e.informative += x.informative
        merged.set(x.stage, e)
      }
      return [a.name, String(runs.length), informativeText([...merged.values()])]
    })
    md.push('Informative GRPO groups (not constant: the rollouts\' rewards differ) per arm and stage, over its runs:', '')
    md.push(table(['arm', 'runs', 'informative groups per stage'], arms), '')
  }
  return md
}

function groupOrder(g: string): number {
  return g.startsWith('type=') ? 0 : 1000 + Number(g.slice(5))
}

const gainText = (e: Estimate) => `${e.mean >= 0 ? '+' : ''}${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`

export function renderExperimentReport(r: ExperimentReport): { markdown: string; curves: string; gains: string } {
  const md: string[] = [`# Experiment \`${r.name}\``, '']
  md.push(`Worlds: preset \`${r.worlds.preset}\`, trained on seeds ${r.worlds.trainSeeds.join(', ')}; evaluated on never-trained seeds ${r.worlds.evalSeeds.join(', ') || '–'}.`)
  md.push(`Arms: ${r.arms.map((a) => `\`${a.name}\` (${a.curriculum}, reward ${a.reward}${a.access ? '' : ', no Access'})`).join(', ')}; seeds ${r.seeds.join(', ')}; ${r.steps} GRPO steps per run. Runs finished: ${r.runsDone}/${r.runsTotal}.`)
  md.push('')
  if (r.summary.length > 0) md.push('## Result', '', ...r.summary.flatMap((l) => [l, '']))
  md.push('F1 in %, greedy. Arm rows: mean over seeds and questions with a 95 % CI from a two-way bootstrap (seeds and questions resampled independently), so the interval includes seed variance. Gains are paired by question (and by seed between arms), in percentage points.')
  md.push('')
  for (const set of r.sets) {
    md.push(`## ${set.set}${set.access ? '' : ' — without Access'} (${set.questions} questions)`, '')
    const rows = [['start', '–', ci(set.start.f1), pct(set.start.em), '–', '–']]
    for (const a of set.arms) rows.push([a.arm, Object.entries(a.seedF1).map(([k, v]) => `${k} ${pct(v)}`).join(', '), ci(a.f1), pct(a.em), gainText(a.gain), a.emGain ? gainText(a.emGain) : '–'])
    // The floor beside F1 and EM: the best constant answer per relation on the same questions.
    if (set.floor) rows.push(['floor: a constant answer per relation', '–', pct(set.floor.f1), pct(set.floor.em), '–', '–'])
    md.push(table(['run', 'per seed F1', 'F1 [95% CI]', 'EM', 'F1 gain vs start, pp [95% CI]', 'EM gain vs start, pp [95% CI]'], rows), '')
    if (set.floor) md.push(`The floor: the F1 and EM of the best constant answer per relation on these ${set.floor.n} questions, held out (each question answered with the constant that scores best on the other questions of its relation; what a policy that never reads scores); read a score and a gain against it, not against 0.`, '')
    if (set.between.length) {
      md.push('Between arms (b − a):', '')
      md.push(table(['b − a', 'diff pp [95% CI]'], set.between.map((b) => [`${b.b} − ${b.a}`, gainText(b.diff)])), '')
    }
    if (set.arms.length) {
      const groups = set.arms[0].groups.map((g) => g.group)
      md.push('By type and hops (F1 %, gain vs start in pp [95% CI]):', '')
      md.push(table(['group', 'n', 'start', ...set.arms.map((a) => a.arm)], groups.map((g) => {
        const first = set.arms[0].groups.find((x) => x.group === g)!
        return [g, String(first.n), pct(first.start), ...set.arms.map((a) => {
          const x = a.groups.find((y) => y.group === g)
          return x ? `${pct(x.mean)} (${gainText(x.gain)})` : '–'
        })]
      })), '')
    }
  }
  md.push(...provenanceLines(r))
  md.push('## Training curves', '', '![reward per step](curves.svg)', '', '![gains against the start](gains.svg)', '')
  const names = Object.keys(r.curves)
  const maxStep = Math.max(0, ...names.map((n) => r.curves[n].length))
  const curves = lineChart({
    title: 'GRPO reward (mean) per step, every run',
    categories: Array.from({ length: maxStep }, (_, i) => String(i + 1)),
    series: names.map((n) => ({ name: n, values: Array.from({ length: maxStep }, (_, i) => r.curves[n].find((m) => m.step === i + 1)?.rewardMean ?? NaN) })),
    xLabel: 'step',
    yLabel: 'reward',
    emptyNote: 'no run has a metrics line yet',
  })
  const gains = forestChart({
    title: 'F1 gain against the start (95% CI over seeds and questions)',
    xLabel: 'percentage points',
    rows: r.sets.flatMap((set) => set.arms.map((a) => ({ label: `${a.arm} @ ${set.set}${set.access ? '' : ' no-Access'}`, estimate: 100 * a.gain.mean, lo: 100 * a.gain.lo, hi: 100 * a.gain.hi }))),
  })
  return { markdown: md.join('\n') + '\n', curves, gains }
}

/** Re-render OUT/report.{json,md}, curves.svg and gains.svg from the experiment's folders. */
export function writeExperimentReport(out: string): ExperimentReport {
  const r = buildExperimentReport(out)
  const { markdown, curves, gains } = renderExperimentReport(r)
  writeFileSync(join(out, 'report.json'), JSON.stringify(r, null, 2) + '\n')
  writeFileSync(join(out, 'report.md'), markdown)
  writeFileSync(join(out, 'curves.svg'), curves)
  writeFileSync(join(out, 'gains.svg'), gains)
  return r
}

// tests/view-experiment: the viewer's experiment API over loopback on a real experiment folder (the shipped tiny
// experiment run by the real CLI) — the folder is found under the folder the viewer is given, its GRPO runs and bench
// runs open as runs, the arms × seeds figures are report.json's own, and each arm's band across seeds is the
// per-step min / max / mean / sd of its runs' metrics.jsonl lines (recomputed here from the files).
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { openSources, startViewer, type ExperimentCurves, type ExperimentSummary, type ExperimentView, type RunInfo, type RunningViewer } from '../view'
import { makeViewExperiment, type ViewExperiment } from './helpers/view-experiment'
import { shownPath } from '../view/shown-path'

const LONG = 600_000
let exp: ViewExperiment
let viewer: RunningViewer

interface Report {
  name: string
  arms: { name: string }[]
  seeds: number[]
  runsDone: number
  runsTotal: number
  sets: unknown[]
}

beforeAll(async () => {
  exp = await makeViewExperiment()
  const src = openSources([exp.parent])
  viewer = await startViewer({ world: null, ...src }, { host: '127.0.0.1', port: 0 })
}, LONG)
afterAll(async () => {
  await viewer?.close()
  if (exp) rmSync(exp.parent, { recursive: true, force: true })
})

async function get<T>(path: string, status = 200): Promise<T> {
  const r = await fetch(new URL(path, viewer.url))
  const body = (await r.json()) as T
  expect({ path, status: r.status }).toEqual({ path, status })
  return body
}

const report = () => JSON.parse(readFileSync(join(exp.dir, 'report.json'), 'utf8')) as Report

describe('searchgym view: experiment folders', () => {
  test('the experiment under the given folder is found; its runs and benches are loaded runs grouped under it', async () => {
    const list = await get<ExperimentSummary[]>('/api/experiments')
    const r = report()
    expect(list).toEqual([{ name: 'tiny', dir: shownPath(exp.dir), arms: r.arms, seeds: r.seeds, steps: 2, runsDone: 4, runsTotal: 4 }])
    const runs = await get<RunInfo[]>('/api/runs')
    const names = runs.map((x) => x.name).sort()
    const train = ['mixed-s0', 'mixed-s1', 'two-stage-s0', 'two-stage-s1']
    const benches = ['start', ...train].flatMap((n) => [`${n}@searchgymbench`, `${n}@unseen`])
    expect(names).toEqual([...train, ...benches].sort())
    expect(runs.every((x) => x.experiment === 'tiny')).toBe(true)
    expect(runs.filter((x) => x.kind === 'train').map((x) => x.name).sort()).toEqual(train)
  })

  test("the arms × seeds figures are report.json's, and every arm × seed names its run and its benches", async () => {
    const v = await get<ExperimentView>('/api/experiments/tiny')
    const r = report()
    expect(v.source).toBe('report.json')
    expect(v.sets).toEqual(r.sets)
    expect(v.runs).toHaveLength(r.arms.length * r.seeds.length)
    for (const row of v.runs) {
      expect(row.run).toBe(`${row.arm}-s${row.seed}`)
      expect(row.benches.map((b) => b.run).sort()).toEqual([`${row.arm}-s${row.seed}@searchgymbench`, `${row.arm}-s${row.seed}@unseen`])
    }
    expect(v.start.map((b) => b.run).sort()).toEqual(['start@searchgymbench', 'start@unseen'])
    // A bench run of the experiment opens like any bench run.
    const summary = await get<{ overall: { f1: { mean: number } } }>(`/api/runs/${encodeURIComponent('mixed-s1@unseen')}/summary`)
    expect(typeof summary.overall.f1.mean).toBe('number')
  })

  test("each arm's curve is the per-step mean with min/max and sd across its seeds' metrics.jsonl", async () => {
    const c = await get<ExperimentCurves>('/api/experiments/tiny/curves?keys=rewardMean,f1,responseTokens')
    expect(c.keys).toEqual(expect.arrayContaining(['rewardMean', 'f1', 'kl', 'gradNorm', 'truncationRate']))
    expect(c.arms.map((a) => a.arm)).toEqual(['two-stage', 'mixed'])
    for (const a of c.arms) {
      expect(a.runs.sort()).toEqual([`${a.arm}-s0`, `${a.arm}-s1`])
      for (const key of ['rewardMean', 'f1', 'responseTokens']) {
        const lines = a.runs.map((run) => readFileSync(join(exp.dir, 'runs', run, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, number>))
        const steps = [...new Set(lines.flat().map((m) => m.step))].sort((x, y) => x - y)
        const ys = steps.map((s) => lines.map((ls) => ls.find((m) => m.step === s)![key]))
        const mean = ys.map((v) => v.reduce((p, q) => p + q, 0) / v.length)
        const s = a.series[key]
        expect(s.x).toEqual(steps)
        expect(s.seeds).toEqual(steps.map(() => 2))
        expect(s.min).toEqual(ys.map((v) => Math.min(...v)))
        expect(s.max).toEqual(ys.map((v) => Math.max(...v)))
        s.mean.forEach((m, i) => expect(m).toBeCloseTo(mean[i], 12))
        s.sd.forEach((d, i) => expect(d).toBeCloseTo(Math.sqrt(ys[i].reduce((p, y) => p + (y - mean[i]) ** 2, 0)), 12))
      }
    }
  })

  test('unknown experiments and bad parameters are JSON 4xx with one line', async () => {
    const e = await get<{ error: { message: string; code: string } }>('/api/experiments/nope', 404)
    expect(e.error.message).toBe("no experiment named 'nope'; loaded experiments: tiny")
    const p = await get<{ error: { code: string } }>('/api/experiments/tiny/curves?points=1', 400)
    expect(p.error.code).toBe('view.bad_param')
  })
})

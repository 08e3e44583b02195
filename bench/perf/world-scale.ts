// bench/perf/world-scale: the whole checked world build (graph, docs, write, index, verify, qa, check, split, rephrase)
// with per-stage wall and CPU seconds (user+sys of the whole process, worker threads included), the peak RSS after each
// stage, the work each stage did (edges, doc words, verification queries, QA, checked questions) and its CPU per unit.
//
// The issue-19 "Must show" run is ONE command (each build in a child process of its own, so peak RSS is that build's):
//   node bin/run-ts.mjs bench/perf/world-scale.ts --scales 1,3,10 --twice 10 --gym-check 10 --md /tmp/world-scale.md
// builds 1×, 3× and 10× (the 10× twice: same seed must give the same hash), runs `searchgym gym check` on the 10× world
// (every served question solved?), and prints a markdown report: per-stage CPU/wall/peak RSS per scale, growth ratios
// of CPU and of CPU per unit of work against 1×, drops by cause, bench counts and overlap, the hash comparison.
// Report only: node bin/run-ts.mjs bench/perf/world-scale.ts --report RUNS.jsonl [--md F]   (builds made apart with --json)
// One build:   node bin/run-ts.mjs bench/perf/world-scale.ts --scale 3 [--seed 11] [--qa-target N] [--out DIR] [--json F]
//              node bin/run-ts.mjs bench/perf/world-scale.ts --preset paper-x10 [--out DIR] [--json F]
// Scale K: K = 1, 10, 100 are the presets paper, paper-x10, paper-x100; any other K is the paper's entities ×K with the
// QA target interpolated between the presets on a log scale (3× → 63,000; see scaleConfig). Without --out the world
// is deleted after (--keep keeps it). Prints its result as JSON; --json F also appends it to F as one line.
import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHECKED_WORLD_STAGES } from '../../agent'
import { buildWorld, presetConfig, type WorldConfig } from '../../world'
import type { Stage } from '../../world'
import { openDb } from '../../infra/store'
import { perfArgs } from './perf-args'

const { values: a } = perfArgs('node bin/run-ts.mjs bench/perf/world-scale.ts --scales 1,3,10 | --scale K | --preset P | --report RUNS.jsonl [--twice K] [--gym-check K] [--seed 11] [--qa-target N] [--out DIR] [--json F] [--md F] [--keep]', {
  scale: { type: 'string' },
  scales: { type: 'string' },
  twice: { type: 'string' },
  'gym-check': { type: 'string' },
  preset: { type: 'string' },
  seed: { type: 'string', default: '11' },
  'qa-target': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  md: { type: 'string' },
  report: { type: 'string' },
  keep: { type: 'boolean', default: false },
})
const die = (m: string): never => {
  process.stderr.write(`world-scale: ${m}\n`)
  process.exit(2)
}
const positiveInt = (v: string, what: string): number => {
  const k = Number(v)
  if (!Number.isInteger(k) || k < 1) die(`${what} must be a positive integer, got ${v}`)
  return k
}

/** Config of scale K: the presets at 1, 10, 100; otherwise paper entities ×K, QA target on the presets' log curve. */
function scaleConfig(k: number): WorldConfig {
  if (k === 1) return presetConfig('paper')
  if (k === 10) return presetConfig('paper-x10')
  if (k === 100) return presetConfig('paper-x100')
  const config = presetConfig('paper')
  config.entities = Object.fromEntries(Object.entries(config.entities).map(([t, n]) => [t, n * k]))
  // Presets: 41,000 at 1×, 100,000 at 10×, 250,000 at 100× — piecewise power law through them, rounded to 1,000.
  const [t1, t10, t100] = [config.qa.target, presetConfig('paper-x10').qa.target, presetConfig('paper-x100').qa.target]
  const target = k < 10 ? t1 * (t10 / t1) ** Math.log10(k) : t10 * (t100 / t10) ** Math.log10(k / 10)
  config.qa.target = Math.round(target / 1000) * 1000
  return config
}

interface BuildReport {
  label: string
  scale?: number
  seed: number
  qaTarget: number
  date: string
  cores: number
  loadAvgStart: number
  loadAvgEnd: number
  wallSeconds: number
  cpuSeconds: number
  peakRssMB: number
  stages: Record<string, { wall: number; cpu: number; peakRssMB: number }>
  work: Record<string, number>
  perUnit: Record<string, { unit?: string; cpuMicrosPerUnit: number }>
  split: Record<string, number>
  benchByType: Record<string, number>
  benchHops: number[]
  overlap: Record<string, number>
  benchTrainSameQuestion: number
  dropped: number
  droppedPercent: number
  dropCauses: Record<string, number>
  docsOver7800Chars: number
  hash: string
  gymCheck?: { exitCode: number | null; summary: string; wallSeconds: number }
  dir: string
}

if (a.report !== undefined) report(a.report)
else if (a.scales !== undefined) await orchestrate()
else await buildOne()

/** The markdown report of builds already made (JSON lines from --json), e.g. a 1× and a 3× run made apart. */
function report(file: string): void {
  const reports = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as BuildReport)
  if (reports.length === 0) die(`${file} holds no build reports`)
  const counts = new Map<number, number>()
  for (const r of reports) if (r.scale !== undefined) counts.set(r.scale, (counts.get(r.scale) ?? 0) + 1)
  const twice = [...counts].find(([, n]) => n >= 2)?.[0]
  const md = markdown(reports, twice)
  process.stdout.write(md)
  if (a.md) writeFileSync(a.md, md)
}

/** Parent: one child process per build, then the report. */
async function orchestrate(): Promise<void> {
  if (a.scale !== undefined || a.preset !== undefined) die('--scales runs its own builds: give no --scale or --preset with it')
  const scales = a.scales!.split(',').map((s) => positiveInt(s.trim(), '--scales entry'))
  const twice = a.twice !== undefined ? positiveInt(a.twice, '--twice') : undefined
  const gymCheck = a['gym-check'] !== undefined ? positiveInt(a['gym-check'], '--gym-check') : undefined
  if (twice !== undefined && !scales.includes(twice)) die(`--twice ${twice} is not one of --scales ${a.scales}`)
  if (gymCheck !== undefined && !scales.includes(gymCheck)) die(`--gym-check ${gymCheck} is not one of --scales ${a.scales}`)
  const script = fileURLToPath(import.meta.url)
  const runTs = resolve(script, '../../../bin/run-ts.mjs')
  const tmp = mkdtempSync(join(tmpdir(), 'sg-world-scale-runs-'))
  const plan = scales.flatMap((k) => (k === twice ? [k, k] : [k]))
  const reports: BuildReport[] = []
  const t0 = performance.now()
  for (const [i, k] of plan.entries()) {
    const json = join(tmp, `run-${i}.json`)
    const args = [runTs, script, '--scale', String(k), '--seed', a.seed!, '--json', json]
    if (k === gymCheck && !reports.some((r) => r.scale === k)) args.push('--gym-check', '1')
    const elapsed = (performance.now() - t0) / 1000
    process.stderr.write(`world-scale: build ${i + 1}/${plan.length} (${k}×, seed ${a.seed}) starting; ${elapsed.toFixed(0)} s elapsed\n`)
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] })
    if (r.status !== 0) die(`the ${k}× build exited with ${r.status ?? r.signal}; its log is above`)
    const rep = JSON.parse(readFileSync(json, 'utf8').trim().split('\n').pop()!) as BuildReport
    reports.push(rep)
    if (a.json) appendFileSync(a.json, JSON.stringify(rep) + '\n')
  }
  rmSync(tmp, { recursive: true, force: true })
  const md = markdown(reports, twice)
  process.stdout.write(md)
  if (a.md) writeFileSync(a.md, md)
}

function markdown(reports: BuildReport[], twice?: number): string {
  const firstOf = new Map<number, BuildReport>()
  for (const r of reports) if (r.scale !== undefined && !firstOf.has(r.scale)) firstOf.set(r.scale, r)
  const runs = [...firstOf.values()].sort((x, y) => x.scale! - y.scale!)
  if (runs.length === 0) die('no report names its scale (build with --scale K)')
  const base = firstOf.get(Math.min(...firstOf.keys()))!
  const stages = Object.keys(base.stages)
  const f = (x: number, d = 1) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })
  const L: string[] = []
  L.push(`### World scale run (${base.date}, seed ${base.seed})`, '')
  L.push(`Machine: ${cpus()[0]?.model ?? '?'}, ${availableParallelism()} cores, ${f(totalmem() / 2 ** 30, 0)} GiB; Node ${process.version}. ` +
    `Load average at the start of each build: ${reports.map((r) => `${r.label} ${r.loadAvgStart}`).join(', ')}.`, '')
  L.push('| scale | entities | edges | QA pool | wall s | CPU s | peak RSS MB | hash |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
  for (const r of reports) L.push(`| ${r.label} | ${f(r.work.entities, 0)} | ${f(r.work.edges, 0)} | ${f(r.work.qaPool, 0)} | ${f(r.wallSeconds)} | ${f(r.cpuSeconds)} | ${f(r.peakRssMB, 0)} | \`${r.hash.slice(0, 12)}…\` |`)
  L.push('', 'Per stage — CPU s (wall s) and peak RSS MB after the stage:', '')
  L.push(`| stage | ${runs.map((r) => r.label).join(' | ')} |`, `| --- |${runs.map(() => ' ---: |').join('')}`)
  for (const s of stages) L.push(`| ${s} | ${runs.map((r) => (r.stages[s] ? `${f(r.stages[s].cpu, 2)} (${f(r.stages[s].wall, 2)}) · ${f(r.stages[s].peakRssMB, 0)}` : '—')).join(' | ')} |`)
  L.push('', `Growth against ${base.label}: CPU ratio / work ratio = CPU-per-unit ratio (1.0 = linear in its work):`, '')
  L.push(`| stage | unit | ${runs.slice(1).map((r) => r.label).join(' | ')} |`, `| --- | --- |${runs.slice(1).map(() => ' ---: |').join('')}`)
  for (const s of stages) {
    const unit = base.perUnit[s]?.unit ?? '—'
    const cells = runs.slice(1).map((r) => {
      // Stages that did nothing here (write, rephrase without a model) have no ratio.
      if (!r.stages[s] || !base.stages[s] || base.stages[s].cpu < 0.05) return '—'
      const c = r.stages[s].cpu / base.stages[s].cpu
      const u = unitOf(r, s) / (unitOf(base, s) || 1)
      return `${f(c, 2)}× / ${f(u, 2)}× = ${f(c / u, 2)}`
    })
    L.push(`| ${s} | ${unit} | ${cells.join(' | ')} |`)
  }
  L.push('', '| scale | dropped by the check | causes | bench simple/parallel/combo | bench hops | overlap (question, path, sub-path, start) | docs > 7,800 chars | `gym check` |', '| --- | ---: | --- | --- | --- | --- | ---: | --- |')
  for (const r of reports) {
    const b = r.benchByType
    L.push(`| ${r.label} | ${f(r.dropped, 0)} (${f(r.droppedPercent, 3)}%) | ${Object.entries(r.dropCauses).map(([c, n]) => `${c} ${n}`).join(', ') || '—'} | ${b.simple ?? 0}/${b.parallel ?? 0}/${b.combo ?? 0} | ${r.benchHops.length ? `${Math.min(...r.benchHops)}–${Math.max(...r.benchHops)} (${r.benchHops.length})` : '—'} | ${r.overlap.question ?? '?'}, ${r.overlap.path ?? '?'}, ${r.overlap.subPath ?? '?'}, ${r.overlap.startEntity ?? '?'} (same text: ${r.benchTrainSameQuestion}) | ${r.docsOver7800Chars} | ${r.gymCheck ? `${r.gymCheck.summary} (exit ${r.gymCheck.exitCode}, ${f(r.gymCheck.wallSeconds)} s)` : '—'} |`)
  }
  if (twice !== undefined) {
    const same = reports.filter((r) => r.scale === twice)
    const equal = same.length === 2 && same[0].hash === same[1].hash
    L.push('', `Same seed, same hash at ${twice}×: ${equal ? '**yes**' : '**NO**'} — ${same.map((r) => `\`${r.hash}\``).join(' vs ')}`)
  }
  return L.join('\n') + '\n'
}

function unitOf(r: BuildReport, stage: string): number {
  const w = r.work
  const u: Record<string, number> = {
    graph: w.edges, docs: w.docWords, write: w.docWords, index: w.docWords, verify: w.verifyQueries, qa: w.qaPool, check: w.checked, split: w.qaPool, rephrase: w.qaPool,
  }
  return u[stage] ?? 1
}

/** Child (or a single run): build one world and report it. */
async function buildOne(): Promise<void> {
  if ((a.scale === undefined) === (a.preset === undefined)) die('give exactly one of --scales LIST, --scale K (paper entities ×K) or --preset NAME')
  let config: WorldConfig
  let label: string
  let scale: number | undefined
  if (a.preset !== undefined) {
    config = presetConfig(a.preset)
    label = a.preset
    scale = ({ paper: 1, 'paper-x10': 10, 'paper-x100': 100 } as Record<string, number>)[a.preset]
  } else {
    scale = positiveInt(a.scale!, '--scale')
    config = scaleConfig(scale)
    label = `${scale}×`
  }
  config.seed = Number(a.seed)
  if (a['qa-target'] !== undefined) config.qa.target = positiveInt(a['qa-target'], '--qa-target')
  const dir = a.out ?? join(mkdtempSync(join(tmpdir(), 'sg-world-scale-')), 'w')

  interface StageCost { wall: number; cpu: number; peakRssMB: number }
  const costs: Record<string, StageCost> = {}
  const cpuNow = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1e6
  }
  // Wrap each stage to time it; names and hash rows are the stages' own, so the content hash is the CLI's.
  const timed: Stage[] = CHECKED_WORLD_STAGES.map((s) => ({
    ...s,
    async run(ctx) {
      const w0 = performance.now()
      const c0 = cpuNow()
      await s.run(ctx)
      costs[s.name] = { wall: (performance.now() - w0) / 1000, cpu: cpuNow() - c0, peakRssMB: process.resourceUsage().maxRSS / 1024 }
      process.stderr.write(`world-scale ${label}: ${s.name} ${costs[s.name].wall.toFixed(1)} s wall, ${costs[s.name].cpu.toFixed(1)} s CPU, peak RSS ${costs[s.name].peakRssMB.toFixed(0)} MB (load ${loadavg()[0].toFixed(1)})\n`)
    },
  }))

  const load0 = loadavg()[0]
  const w0 = performance.now()
  const c0 = cpuNow()
  const res = await buildWorld({ config, dir, quiet: true, stages: timed })
  const wall = (performance.now() - w0) / 1000
  const cpu = cpuNow() - c0

  const db = openDb(res.dbPath, { readonly: true })
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n
  const hasTable = (t: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined
  const work = {
    entities: count('SELECT COUNT(*) AS n FROM entities'),
    edges: count('SELECT COUNT(*) AS n FROM edges'),
    docWords: count("SELECT SUM(LENGTH(text) - LENGTH(REPLACE(text, ' ', '')) + 1) AS n FROM docs"),
    verifyQueries: count('SELECT COUNT(*) AS n FROM verification_queries') + (hasTable('lookup_verification') ? count('SELECT COUNT(*) AS n FROM lookup_verification') : 0),
    qaPool: count('SELECT COUNT(*) AS n FROM qa'),
    checked: count('SELECT COUNT(*) AS n FROM qa_check'),
  }
  const rows = <T>(sql: string) => db.prepare(sql).all() as T[]
  const split = Object.fromEntries(rows<{ split: string; n: number }>('SELECT split, COUNT(*) AS n FROM qa GROUP BY split ORDER BY split').map((r) => [r.split, r.n]))
  const benchByType = Object.fromEntries(rows<{ type: string; n: number }>("SELECT type, COUNT(*) AS n FROM qa WHERE split = 'bench' GROUP BY type ORDER BY type").map((r) => [r.type, r.n]))
  const benchHops = db.prepare("SELECT DISTINCT hops FROM qa WHERE split = 'bench' ORDER BY hops").pluck().all() as number[]
  const dropCauses = Object.fromEntries(rows<{ cause: string; n: number }>("SELECT substr(reason, 1, instr(reason, ':') - 1) AS cause, COUNT(*) AS n FROM qa_check WHERE ok = 0 GROUP BY cause ORDER BY cause").map((r) => [r.cause, r.n]))
  const dropped = count('SELECT COUNT(*) AS n FROM qa_check WHERE ok = 0')
  const overlapRow = db.prepare("SELECT value_json FROM split_stats WHERE key = 'overlap'").pluck().get() as string | undefined
  const overlap = overlapRow ? (JSON.parse(overlapRow) as Record<string, number>) : {}
  const benchTrainSameQuestion = count("SELECT COUNT(*) AS n FROM qa b JOIN qa t ON t.question = b.question AND t.split = 'train' WHERE b.split = 'bench'")
  const paged = count('SELECT COUNT(*) AS n FROM docs WHERE LENGTH(text) > 7800')
  db.close()

  let gymCheck: BuildReport['gymCheck']
  if (a['gym-check'] !== undefined) {
    // The CLI's own `gym check` over every served question (train + bench), in a process of its own.
    const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/searchgym.mjs')
    const g0 = performance.now()
    process.stderr.write(`world-scale ${label}: gym check ${dir}\n`)
    const r = spawnSync(process.execPath, [bin, 'gym', 'check', dir], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 })
    const first = (r.stdout ?? '').split('\n')[0] ?? ''
    gymCheck = { exitCode: r.status, summary: /: (\d+\/\d+ solved \([^)]*\))/.exec(first)?.[1] ?? first.slice(0, 120), wallSeconds: +((performance.now() - g0) / 1000).toFixed(1) }
    process.stderr.write(`world-scale ${label}: gym check ${gymCheck.summary}, exit ${gymCheck.exitCode}\n`)
  }
  const unit: Record<string, [string, number]> = {
    graph: ['edges', work.edges], docs: ['doc words', work.docWords], write: ['doc words', work.docWords], index: ['doc words', work.docWords],
    verify: ['queries', work.verifyQueries], qa: ['QA', work.qaPool], check: ['questions', work.checked], split: ['QA', work.qaPool], rephrase: ['QA', work.qaPool],
  }
  const perUnit = Object.fromEntries(Object.entries(costs).map(([s, c]) => [s, { unit: unit[s]?.[0], cpuMicrosPerUnit: +((1e6 * c.cpu) / (unit[s]?.[1] || 1)).toFixed(2) }]))
  const out: BuildReport = {
    label, scale, seed: config.seed, qaTarget: config.qa.target, date: new Date().toISOString(), cores: availableParallelism(),
    loadAvgStart: +load0.toFixed(1), loadAvgEnd: +loadavg()[0].toFixed(1),
    wallSeconds: +wall.toFixed(1), cpuSeconds: +cpu.toFixed(1), peakRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(0),
    stages: Object.fromEntries(Object.entries(costs).map(([s, c]) => [s, { wall: +c.wall.toFixed(2), cpu: +c.cpu.toFixed(2), peakRssMB: +c.peakRssMB.toFixed(0) }])),
    work, perUnit, split, benchByType, benchHops, overlap, benchTrainSameQuestion, dropped, droppedPercent: work.checked ? +((100 * dropped) / work.checked).toFixed(3) : 0,
    dropCauses, docsOver7800Chars: paged, hash: res.hash, gymCheck, dir,
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  if (a.json) appendFileSync(a.json, JSON.stringify(out) + '\n')
  if (!a.keep && a.out === undefined) rmSync(join(dir, '..'), { recursive: true, force: true })
}

// bench/perf/world-scale: the whole checked world build (graph, docs, index, verify, qa, check, split) at one scale,
// with per-stage wall and CPU seconds (user+sys of the whole process, worker threads included), the peak RSS after
// each stage, the work each stage did (entities, edges, verification queries, QA, checked questions) and its cost
// per unit of work — run it at 1×, 3×, 10× (and 100×) and compare the per-unit costs to see whether a stage is linear.
// Prints the result as JSON; with --json F also appends it to F as one line. Without --out the world is deleted after.
// Usage: node bin/run-ts.mjs bench/perf/world-scale.ts --scale 3 [--seed 11] [--qa-target N] [--out DIR] [--json F]
//        node bin/run-ts.mjs bench/perf/world-scale.ts --preset paper-x10 [--out DIR] [--json F]
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CHECKED_WORLD_STAGES } from '../../agent'
import { buildWorld, presetConfig, type WorldConfig } from '../../world'
import type { Stage } from '../../world'
import { openDb } from '../../infra/store'

const { values: a } = parseArgs({
  options: {
    scale: { type: 'string' },
    preset: { type: 'string' },
    seed: { type: 'string', default: '11' },
    'qa-target': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
})
const die = (m: string): never => {
  process.stderr.write(`world-scale: ${m}\n`)
  process.exit(2)
}
if ((a.scale === undefined) === (a.preset === undefined)) die('give exactly one of --scale K (paper entities ×K) or --preset NAME')
let config: WorldConfig
let label: string
if (a.preset !== undefined) {
  config = presetConfig(a.preset)
  label = a.preset
} else {
  const k = Number(a.scale)
  if (!Number.isInteger(k) || k < 1) die(`--scale must be a positive integer, got ${a.scale}`)
  config = presetConfig('paper')
  config.entities = Object.fromEntries(Object.entries(config.entities).map(([t, n]) => [t, n * k]))
  label = `paper×${k}`
}
config.seed = Number(a.seed)
if (a['qa-target'] !== undefined) config.qa.target = Number(a['qa-target'])
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
const work = {
  entities: count('SELECT COUNT(*) AS n FROM entities'),
  edges: count('SELECT COUNT(*) AS n FROM edges'),
  docWords: count("SELECT SUM(LENGTH(text) - LENGTH(REPLACE(text, ' ', '')) + 1) AS n FROM docs"),
  verifyQueries: count('SELECT COUNT(*) AS n FROM verification_queries') + count('SELECT COUNT(*) AS n FROM lookup_verification'),
  qaPool: count('SELECT COUNT(*) AS n FROM qa'),
  checked: count('SELECT COUNT(*) AS n FROM qa_check'),
}
const split = Object.fromEntries((db.prepare('SELECT split, COUNT(*) AS n FROM qa GROUP BY split ORDER BY split').all() as { split: string; n: number }[]).map((r) => [r.split, r.n]))
const benchByType = Object.fromEntries((db.prepare("SELECT type, COUNT(*) AS n FROM qa WHERE split = 'bench' GROUP BY type ORDER BY type").all() as { type: string; n: number }[]).map((r) => [r.type, r.n]))
const benchHops = (db.prepare("SELECT DISTINCT hops FROM qa WHERE split = 'bench' ORDER BY hops").pluck().all() as number[])
const dropCauses = Object.fromEntries((db.prepare("SELECT substr(reason, 1, instr(reason, ':') - 1) AS cause, COUNT(*) AS n FROM qa_check WHERE ok = 0 GROUP BY cause ORDER BY cause").all() as { cause: string; n: number }[]).map((r) => [r.cause, r.n]))
const paged = count('SELECT COUNT(*) AS n FROM docs WHERE LENGTH(text) > 7800')
db.close()
// Work units per stage: the quantity the stage's time should be linear in.
const unit: Record<string, [string, number]> = {
  graph: ['edges', work.edges], docs: ['doc words', work.docWords], index: ['doc words', work.docWords],
  verify: ['queries', work.verifyQueries], qa: ['QA', work.qaPool], check: ['questions', work.checked], split: ['QA', work.qaPool],
}
const perUnit = Object.fromEntries(Object.entries(costs).map(([s, c]) => [s, { unit: unit[s]?.[0], cpuMicrosPerUnit: +((1e6 * c.cpu) / (unit[s]?.[1] || 1)).toFixed(2) }]))
const out = {
  label, seed: config.seed, qaTarget: config.qa.target, date: new Date().toISOString(), cores: availableParallelism(),
  loadAvgStart: +load0.toFixed(1), loadAvgEnd: +loadavg()[0].toFixed(1),
  wallSeconds: +wall.toFixed(1), cpuSeconds: +cpu.toFixed(1), peakRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(0),
  stages: Object.fromEntries(Object.entries(costs).map(([s, c]) => [s, { wall: +c.wall.toFixed(2), cpu: +c.cpu.toFixed(2), peakRssMB: +c.peakRssMB.toFixed(0) }])),
  work, perUnit, split, benchByType, benchHops, dropCauses, docsOver7800Chars: paged, hash: res.hash, dir,
}
const line = JSON.stringify(out)
process.stdout.write(JSON.stringify(out, null, 2) + '\n')
if (a.json) appendFileSync(a.json, line + '\n')
if (!a.keep && a.out === undefined) rmSync(join(dir, '..'), { recursive: true, force: true })

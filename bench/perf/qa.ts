// bench/perf/qa: the qa and split stages on the paper preset — wall and CPU seconds of each, the volume, the bench
// mix and hop coverage, and the bench/train overlap; optionally re-checks every QA against the world.
// Usage: node bin/run-ts.mjs bench/perf/qa.ts [WORLD_DIR] [--check]
//   WORLD_DIR: a built paper world with verification results; without it a paper world is built in a temp
//   folder, and when this checkout's pipeline has no verify stage a seeded stand-in (85% of edges kept) is
//   written in the verify stage's table format — the numbers then say so.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashString32 } from '../../infra/rng'
import { openDb } from '../../infra/store'
import { buildWorld } from '../../world/build/build'
import { presetConfig } from '../../world/config'
import { openWorld } from '../../world/store/open'
import { SearchHandle } from '../../world/indexing/search-handle'
import { WORLD_STAGES } from '../../world/build/stages'
import { makeQaChecker } from '../../world/qa/check'
import { docText, loadQaView } from '../../world/qa/load'
import { qaStage } from '../../world/qa/qa-stage'
import { splitStage } from '../../world/split/split-stage'
import { readQa, readSplitStats } from '../../world/qa/store'
import type { SplitStats } from '../../world/split/split'
import { perfArgs } from './perf-args'

const { values: opt, positionals: pos } = perfArgs('node bin/run-ts.mjs bench/perf/qa.ts [WORLD_DIR] [--check]', { check: { type: 'boolean', default: false } })
const check = opt.check
let dir = pos[0]
let temp = ''
let verification = 'verify stage of the world'
if (!dir) {
  temp = mkdtempSync(join(tmpdir(), 'sg-bench-qa-'))
  dir = temp
  const config = presetConfig('paper')
  const base = WORLD_STAGES.filter((s) => s.name !== 'qa' && s.name !== 'split')
  await buildWorld({ config, dir, quiet: true, stages: base })
  if (!base.some((s) => s.name === 'verify')) {
    verification = 'STAND-IN: seeded 85% of edges kept (no verify stage in this pipeline)'
    const db = openDb(join(dir, 'world.db'))
    db.exec('CREATE TABLE IF NOT EXISTS edge_verification (edge_id TEXT PRIMARY KEY, hits INTEGER NOT NULL, kept INTEGER NOT NULL)')
    const ins = db.prepare('INSERT OR REPLACE INTO edge_verification VALUES (?, ?, ?)')
    db.transaction(() => {
      for (const r of db.prepare('SELECT id FROM edges ORDER BY id').all() as { id: string }[]) {
        const kept = hashString32(`${r.id}:kept`) % 100 < 85
        ins.run(r.id, kept ? 9 : 1, kept ? 1 : 0)
      }
    })()
    db.close()
  }
}

const w = openWorld(dir, { allowIncomplete: true })
const config = w.config
w.close()
const db = openDb(join(dir, 'world.db'))
const ctx = { db, config, dir, search: new SearchHandle(), quiet: true, log: () => {} }
const times: Record<string, { wall: number; cpu: number }> = {}
for (const s of [qaStage, splitStage]) {
  s.init(db)
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  await s.run(ctx)
  const c = process.cpuUsage(c0)
  times[s.name] = { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }
}
const stats = readSplitStats(db) as unknown as SplitStats
const total = times.qa.wall + times.split.wall
const result = {
  world: temp ? 'paper preset (fresh temp build)' : dir,
  verification,
  entities: (db.prepare('SELECT COUNT(*) AS n FROM entities').get() as { n: number }).n,
  edges: (db.prepare('SELECT COUNT(*) AS n FROM edges').get() as { n: number }).n,
  keptEdges: (db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n,
  seconds: { qa: times.qa, split: times.split, totalWall: total, totalCpu: times.qa.cpu + times.split.cpu },
  goalSeconds: 30,
  ratioToGoal: Number((total / 30).toFixed(2)),
  pool: stats.pool,
  trainPlusBench: stats.train + stats.bench,
  train: stats.train,
  bench: stats.benchByType,
  benchHops: Object.keys(stats.benchByHops).map(Number),
  excluded: stats.excluded,
  excludedBy: stats.excludedBy,
  overlap: stats.overlap,
  loadAvg: (await import('node:os')).loadavg().map((x) => Number(x.toFixed(2))),
}
console.log(JSON.stringify(result, null, 2))
if (check) {
  const t0 = performance.now()
  const all = readQa(db, ['train', 'bench', 'excluded'])
  const checker = makeQaChecker(loadQaView(db), (u) => docText(db, u))
  const problems = all.flatMap((q) => checker(q))
  console.log(JSON.stringify({ checked: all.length, problems: problems.length, firstProblems: problems.slice(0, 5), seconds: Number(((performance.now() - t0) / 1000).toFixed(1)) }))
}
db.close()
if (temp) rmSync(temp, { recursive: true, force: true })
const ok = stats.train + stats.bench >= config.qa.target && stats.benchByType.simple === config.split.bench.simple && stats.benchByType.parallel === config.split.bench.parallel && stats.benchByType.combo === config.split.bench.combo && Object.values(stats.overlap).every((v) => v === 0)
if (!ok) {
  console.error('bench/perf/qa: a "must show" property failed (volume, bench mix or overlap)')
  process.exit(1)
}

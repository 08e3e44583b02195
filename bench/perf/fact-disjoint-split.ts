// bench/perf/fact-disjoint-split: what config.split.factDisjoint would do to a built world, without rebuilding it —
// the split stage's own computation (splitBench over the stored pool, the oracle check's failures left out) with the
// option off and on. Checks that off reproduces the stored labels and that on keeps the stored bench; prints the
// counts as JSON and the split stage's log line. Usage: npx tsx bench/perf/fact-disjoint-split.ts WORLD_DIR
import { openWorld } from '../../world'
import { readQaForSplit } from '../../world/qa/store'
import { checkFailures, formatSplitLine } from '../../world/split/split-stage'
import { splitBench } from '../../world/split/split'
import { splitItemOf } from '../../world/split/split-item'

const dir = process.argv[2]
if (!dir) {
  process.stderr.write('usage: npx tsx bench/perf/fact-disjoint-split.ts WORLD_DIR\n')
  process.exit(2)
}
const w = openWorld(dir)
try {
  const failed = checkFailures(w.db)
  const items = readQaForSplit(w.db).filter((q) => !failed.has(q.id)).map(splitItemOf)
  const stored = new Map((w.db.prepare('SELECT id, split FROM qa').all() as { id: string; split: string }[]).map((r) => [r.id, r.split]))
  for (const factDisjoint of [false, true]) {
    const t = performance.now()
    const { labels, stats } = splitBench(items, { ...w.config.split, factDisjoint }, w.config.seed)
    const sameBench = [...labels].every(([id, l]) => (l === 'bench') === (stored.get(id) === 'bench'))
    const sameLabels = [...labels].every(([id, l]) => l === stored.get(id))
    const row = { factDisjoint, seconds: +((performance.now() - t) / 1000).toFixed(2), sameBenchAsStored: sameBench, sameLabelsAsStored: sameLabels, train: stats.train, excluded: stats.excluded, bench: stats.benchByType, factExcluded: stats.factDisjoint ?? null, trainByType: stats.trainByType, trainByHops: stats.trainByHops }
    process.stdout.write(JSON.stringify(row) + '\n' + formatSplitLine(stats) + '\n')
    if (!sameBench) process.exitCode = 1
  }
} finally {
  w.close()
}

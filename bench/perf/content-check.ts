// bench/perf/content-check: how long the content check at open takes (world/build/content-check: the content hash
// recomputed from the rows) on a built world — the cost `world stats`, `gym serve` and `bench run` pay once each.
// node bin/run-ts.mjs bench/perf/content-check.ts worlds/paper [repeats]
import { CHECKED_WORLD_STAGES } from '../../agent'
import { checkWorldContent, openWorld } from '../../world'

const [dir, repeats = '3'] = process.argv.slice(2)
if (!dir) {
  console.error('usage: node bin/run-ts.mjs bench/perf/content-check.ts WORLD_DIR [repeats]')
  process.exit(2)
}
const w = openWorld(dir, { check: true })
try {
  const ms: number[] = []
  for (let i = 0; i < Number(repeats); i++) ms.push(checkWorldContent(w, CHECKED_WORLD_STAGES).ms)
  console.log(JSON.stringify({ world: dir, hash: w.hash, ms: ms.map((m) => Math.round(m)) }))
} finally {
  w.close()
}

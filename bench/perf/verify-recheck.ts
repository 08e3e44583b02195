// bench/perf/verify-recheck: re-runs the stored verification queries of a sample of kept edges on the world's own
// search index (the engine it was verified with) and checks d_v is in the top-K for >= minHits of them.
// Usage: node bin/run-ts.mjs bench/perf/verify-recheck.ts WORLD_DIR [--edges 200] [--meili-url URL]
import { perfArgs } from './perf-kit'
import { Rng } from '../../infra/rng'
import { openWorld } from '../../world/store/open'
import { openSearchIndex } from '../../world/indexing/open'

const { values, positionals } = perfArgs('bench/perf/verify-recheck.ts WORLD_DIR [--edges N] [--meili-url URL]', { edges: { type: 'string', default: '200' }, 'meili-url': { type: 'string' } }, 1)
const w = openWorld(positionals[0])
const t0 = performance.now()
const index = await openSearchIndex(w, { meiliUrl: values['meili-url'] })
const openSec = (performance.now() - t0) / 1000
try {
  const { topK, minHits, queriesPerEdge } = w.config.verification
  const kept = (w.db.prepare('SELECT edge_id FROM edge_verification WHERE kept = 1 ORDER BY edge_id').all() as { edge_id: string }[]).map((r) => r.edge_id)
  const sample = new Rng(99).sample(kept, Number(values.edges))
  const qStmt = w.db.prepare('SELECT query, rank, top_urls FROM verification_queries WHERE edge_id = ? ORDER BY qi')
  const target = w.db.prepare('SELECT t.url FROM edges e JOIN entities t ON t.id = e.target WHERE e.id = ?')
  let ok = 0
  let sameTop = 0
  let queries = 0
  let minFound = Infinity
  for (const id of sample) {
    const qs = qStmt.all(id) as { query: string; rank: number; top_urls: string }[]
    const url = (target.get(id) as { url: string }).url
    const res = await index.searchMany(qs.map((q) => q.query), { k: topK })
    const found = res.filter((hits) => hits.some((h) => h.url === url)).length
    res.forEach((hits, i) => (sameTop += JSON.stringify(hits.map((h) => h.url)) === qs[i].top_urls ? 1 : 0))
    queries += qs.length
    minFound = Math.min(minFound, found)
    if (found >= minHits) ok++
  }
  console.log(JSON.stringify({ world: positionals[0], engine: index.engine, openSec: Number(openSec.toFixed(1)), keptEdges: kept.length, sampled: sample.length, passedAgain: ok, minFoundOf: `${minFound}/${queriesPerEdge}`, topKIdenticalToStored: `${sameTop}/${queries}` }))
  if (ok !== sample.length) process.exitCode = 1
} finally {
  await index.close()
  w.close()
}

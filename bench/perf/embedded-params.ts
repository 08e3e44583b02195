// bench/perf/embedded-params: how the embedded engine's BM25 parameters (k1, body b, title weight) change retrieval
// of d_v for verification queries on a sample of a world's edges (query hit rate at top-5, edges passing 5 of 15).
// Usage: node bin/run-ts.mjs bench/perf/embedded-params.ts WORLD_DIR [--edges 800]
import { perfArgs } from './perf-kit'
import { Rng } from '../../infra/rng'
import { openWorld } from '../../world/store/open'
import { EmbeddedIndex } from '../../world/search/embedded'
import { readSearchDocs } from '../../world/indexing/open'
import { ENTITY_TYPES, RELATIONS } from '../../world/schema'
import { edgeQueries, edgeQueryRng } from '../../world/verify/verify-queries'

const { values, positionals } = perfArgs('bench/perf/embedded-params.ts WORLD_DIR [--edges N]', { edges: { type: 'string', default: '800' } }, 1)
const w = openWorld(positionals[0])
const docs = readSearchDocs(w.db)
const all = w.db
  .prepare(
    `SELECT e.id, e.relation, s.name AS sourceName, s.type AS sourceType, t.type AS targetType, t.url AS targetUrl
     FROM edges e JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target ORDER BY e.id`,
  )
  .all() as { id: string; relation: string; sourceName: string; sourceType: string; targetType: string; targetUrl: string }[]
w.close()
const edges = new Rng(2).sample(all, Number(values.edges))
const rels = new Map(RELATIONS.map((r) => [r.name, r] as const))
const nouns = new Map(ENTITY_TYPES.map((t) => [t.name, t.noun] as const))
const perEdge = edges.map((e) =>
  edgeQueries(
    { relation: rels.get(e.relation)!, sourceName: e.sourceName, sourceNoun: nouns.get(e.sourceType)!, targetNoun: nouns.get(e.targetType)! },
    15,
    edgeQueryRng(11, e.id),
  ),
)
const flat = perEdge.flat().map((q) => q.query)
console.log(`world ${positionals[0]}: sample ${edges.length} edges, ${flat.length} queries`)
const grid: [number, number, number][] = [
  [1.2, 0.75, 3], [1.2, 0.3, 3], [1.2, 0.1, 3], [0.6, 0.3, 3], [0.3, 0.3, 3], [0.3, 0.1, 3], [0.6, 0.1, 2], [0.5, 0, 3], [0.3, 0, 3], [0.2, 0, 3], [0.1, 0.1, 2],
]
for (const [k1, b, titleWeight] of grid) {
  const idx = new EmbeddedIndex({ k1, b, titleWeight })
  idx.upsertSync(docs)
  const res = await idx.searchMany(flat, { k: 5, snippet: false })
  let at = 0
  let hits = 0
  let kept = 0
  perEdge.forEach((qs, i) => {
    let h = 0
    for (let j = 0; j < qs.length; j++) if (res[at++].some((x) => x.url === edges[i].targetUrl)) h++
    hits += h
    if (h >= 5) kept++
  })
  console.log(JSON.stringify({ k1, b, titleWeight, queryHitRate: Number((hits / flat.length).toFixed(3)), edgePassRate: Number((kept / edges.length).toFixed(3)) }))
}

// bench/perf/search-prune: the embedded engine's CPU per query with MaxScore pruning against the exhaustive path, on
// built worlds of several sizes — a sample of each world's stored verification queries (k=5, no snippets, as
// verification asks) and of its questions (k=5 with snippets, as the oracle check asks) — and a check that both paths
// return the same urls, order and scores (bit for bit) on every sampled query. One JSON line per world and query kind.
// Usage: node bin/run-ts.mjs bench/perf/search-prune.ts WORLD_DIR... [--queries 5000] [--exhaustive 1000]
import { machineLine, perfArgs } from './perf-kit'
import { openWorld } from '../../world/store/open'
import { readSearchDocs } from '../../world/indexing/open'
import { EmbeddedIndex } from '../../world/search/embedded'
import type { SearchOptions } from '../../world/search/types'

const { values, positionals } = perfArgs(
  'bench/perf/search-prune.ts WORLD_DIR... [--queries N] [--exhaustive N]',
  { queries: { type: 'string', default: '5000' }, exhaustive: { type: 'string', default: '1000' } },
  1,
)
const nQueries = Number(values.queries)
const nExhaustive = Number(values.exhaustive)
if (!(nQueries > 0) || !(nExhaustive > 0)) {
  process.stderr.write('--queries and --exhaustive must be positive numbers\n')
  process.exit(2)
}

/** About `n` values of `column` spread evenly over the table (every k-th row, streamed: no 2.3 M-row array at 10×). */
function spread(db: ReturnType<typeof openWorld>['db'], table: string, column: string, n: number): string[] {
  const total = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n
  const every = Math.max(1, Math.floor(total / n))
  const out: string[] = []
  let i = 0
  for (const r of db.prepare(`SELECT ${column} AS q FROM ${table}`).iterate() as Iterable<{ q: string }>) {
    if (i++ % every === 0) out.push(r.q)
    if (out.length === n) break
  }
  return out
}

/** CPU ms per query of `queries` on `idx` (after a warm-up), and documents scored to the end per query. */
function cpuPerQuery(idx: EmbeddedIndex, queries: string[], opts: SearchOptions): { ms: number; scored: number } {
  for (let i = 0; i < Math.min(300, queries.length); i++) idx.searchSync(queries[i], opts)
  let scored = 0
  const c0 = process.cpuUsage()
  for (const q of queries) {
    idx.searchSync(q, opts)
    scored += idx.lastStats.scored
  }
  const c = process.cpuUsage(c0)
  return { ms: (c.user + c.system) / 1000 / queries.length, scored: scored / queries.length }
}

console.log(machineLine())
for (const dir of positionals) {
  const w = openWorld(dir)
  const docs = readSearchDocs(w.db)
  const kinds: [string, string[], SearchOptions][] = [
    ['verification', spread(w.db, 'verification_queries', 'query', nQueries), { k: 5, snippet: false }],
    ['question', spread(w.db, 'qa', 'question', Math.ceil(nQueries / 4)), { k: 5 }],
  ]
  w.close()
  const pruned = new EmbeddedIndex()
  const exhaustive = new EmbeddedIndex({ prune: false })
  pruned.upsertSync(docs)
  exhaustive.upsertSync(docs)
  pruned.searchSync('warm up')
  exhaustive.searchSync('warm up')
  for (const [kind, queries, opts] of kinds) {
    let differ = 0
    const few = queries.slice(0, nExhaustive)
    for (const q of few) {
      const a = pruned.searchSync(q, opts)
      const b = exhaustive.searchSync(q, opts)
      if (a.length !== b.length || a.some((h, i) => h.url !== b[i].url || !Object.is(h.score, b[i].score) || h.snippet !== b[i].snippet)) differ++
    }
    const p = cpuPerQuery(pruned, queries, opts)
    const e = cpuPerQuery(exhaustive, few, opts)
    console.log(
      JSON.stringify({
        world: dir,
        docs: docs.length,
        kind,
        queries: queries.length,
        prunedCpuMs: Number(p.ms.toFixed(4)),
        prunedScoredPerQuery: Number(p.scored.toFixed(1)),
        exhaustiveQueries: few.length,
        exhaustiveCpuMs: Number(e.ms.toFixed(4)),
        exhaustiveScoredPerQuery: Number(e.scored.toFixed(1)),
        compared: few.length,
        differ,
      }),
    )
    if (differ > 0) process.exitCode = 1
  }
}

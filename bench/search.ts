// bench/search: search-engine benchmark — index build time, single-query p50/p99 and queries/s per engine, and
// verification-mode throughput (searchMany, k=5, no snippets). Corpus: a seeded synthetic one, or a world's docs.
// Usage: node bin/run-ts.mjs bench/search.ts [--engines embedded,sqlite,meilisearch] [--world DIR] [--queries N]
import { parseArgs } from 'node:util'
import { syntheticCorpus } from './synthetic-corpus'
import { createSearchIndex, type EngineName } from '../world/search/engines'
import type { SearchDoc } from '../world/search/types'

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'embedded,sqlite' },
    world: { type: 'string' },
    queries: { type: 'string', default: '20000' },
    single: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
  },
})

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function main(): Promise<void> {
  const nQueries = Number(values.queries)
  let docs: SearchDoc[] = []
  let queries: { query: string; target: string }[] = []
  let corpusName = ''
  if (values.world) {
    throw new Error('--world needs the world build (not landed yet)')
  } else {
    ;({ docs, queries } = syntheticCorpus(Number(values.seed), 3600, 240, nQueries))
    corpusName = 'synthetic (seed ' + values.seed + ')'
  }
  const words = docs.reduce((s, d) => s + d.text.split(/\s+/).length, 0) / docs.length
  console.log(`corpus: ${corpusName}: ${docs.length} docs, ${words.toFixed(0)} words/doc, ${queries.length} queries`)
  const nSingle = Math.min(Number(values.single), queries.length)
  for (const engine of String(values.engines).split(',') as EngineName[]) {
    const t0 = performance.now()
    const index = await createSearchIndex({ engine })
    await index.upsert(docs)
    await index.search('warm up')
    const buildMs = performance.now() - t0
    // Single queries, with snippets, one at a time (what the gym does).
    const lat: number[] = []
    const tS = performance.now()
    for (let i = 0; i < nSingle; i++) {
      const a = performance.now()
      await index.search(queries[i].query, { k: 5 })
      lat.push(performance.now() - a)
    }
    const singleQps = nSingle / ((performance.now() - tS) / 1000)
    lat.sort((a, b) => a - b)
    // Verification mode: searchMany in batches, top-5, urls only.
    const tM = performance.now()
    let hits = 0
    const batch = 1000
    for (let i = 0; i < queries.length; i += batch) {
      const part = queries.slice(i, i + batch)
      const res = await index.searchMany(part.map((q) => q.query), { k: 5, snippet: false })
      res.forEach((r, j) => (hits += r.some((h) => h.url === part[j].target) ? 1 : 0))
    }
    const manySec = (performance.now() - tM) / 1000
    const manyQps = queries.length / manySec
    await index.close()
    console.log(
      JSON.stringify({
        engine,
        buildMs: Math.round(buildMs),
        p50ms: Number(pct(lat, 50).toFixed(3)),
        p99ms: Number(pct(lat, 99).toFixed(3)),
        singleQps: Math.round(singleQps),
        manyQps: Math.round(manyQps),
        recallAt5: Number((hits / queries.length).toFixed(3)),
        projected225kSec: Number((225_000 / manyQps).toFixed(1)),
      }),
    )
  }
}

await main()

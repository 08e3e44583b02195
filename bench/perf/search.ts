// bench/perf/search: search-engine benchmark — per engine: index build time, single-query p50/p99 and queries/s (k=5,
// with snippets, one at a time, as the gym asks), verification-mode throughput (searchMany, k=5, no snippets),
// and with --verify ENGINES the wall time of a full verification of the world with those engines. Corpus: a world's documents and its stored
// verification queries (--world DIR), or a seeded synthetic corpus of 3,600 docs of ~240 words.
// Usage: node bin/run-ts.mjs bench/perf/search.ts [--engines embedded,sqlite,meilisearch] [--world DIR [--verify embedded,...]]
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { perfArgs } from './perf-kit'
import { Rng } from '../../infra/rng'
import { openDb } from '../../infra/store'
import { syntheticCorpus } from './synthetic-corpus'
import { ENGINE_NAMES, isEngineName, type EngineName } from '../../world/search/engine-names'
import { EmbeddedIndex } from '../../world/search/embedded'
import { MeiliIndex } from '../../world/search/meilisearch'
import { startMeiliServer } from '../../world/search/meili-server'
import { SqliteFtsIndex } from '../../world/search/sqlite-fts'
import type { SearchIndex } from '../../world/search/types'
import { openSearchIndex, readSearchDocs } from '../../world/indexing/open'
import type { SearchDoc } from '../../world/search/types'
import { openWorld } from '../../world/store/open'
import { ENTITY_TYPES, RELATIONS } from '../../world/schema'
import { clearVerification, verifyEdges } from '../../world/verify/verify'

const { values } = perfArgs('bench/perf/search.ts [--engines embedded,sqlite,meilisearch] [--world DIR [--verify ENGINES]] [--queries N] [--single N] [--seed S]', {
  engines: { type: 'string', default: 'embedded,sqlite' },
  world: { type: 'string' },
  queries: { type: 'string', default: '20000' },
  single: { type: 'string', default: '2000' },
  seed: { type: 'string', default: '1' },
  verify: { type: 'string', default: '' },
})

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function loadWorld(dir: string, n: number): { docs: SearchDoc[]; queries: { query: string; target: string }[] } {
  const w = openWorld(dir)
  try {
    const docs = readSearchDocs(w.db)
    const all = w.db
      .prepare('SELECT q.query, t.url AS target FROM verification_queries q JOIN edges e ON e.id = q.edge_id JOIN entities t ON t.id = e.target ORDER BY q.edge_id, q.qi')
      .all() as { query: string; target: string }[]
    if (all.length === 0) throw new Error(`world ${dir} has no verification queries; build it with the verify stage first`)
    return { docs, queries: new Rng(Number(values.seed)).sample(all, Math.min(n, all.length)) }
  } finally {
    w.close()
  }
}

async function verifyWallTime(dir: string, engine: EngineName): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'searchgym-bench-verify-'))
  try {
    const w = openWorld(dir)
    const config = { ...w.config, search: { ...w.config.search, engine, meiliUrl: '' } }
    w.close()
    copyFileSync(join(dir, 'world.db'), join(tmp, 'world.db'))
    const db = openDb(join(tmp, 'world.db'))
    clearVerification(db)
    const t0 = performance.now()
    const index = await openSearchIndex({ db, config }, { engine })
    const indexSec = (performance.now() - t0) / 1000
    const run = await verifyEdges(db, index, { schema: { relations: RELATIONS, types: ENTITY_TYPES }, seed: config.seed, ...config.verification, quiet: true })
    await index.close()
    const kept = (db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
    db.close()
    console.log(JSON.stringify({ engine, fullVerification: { edges: run.total, queries: run.total * config.verification.queriesPerEdge, indexSec: Number(indexSec.toFixed(1)), verifySec: Number(run.seconds.toFixed(1)), kept, passRate: Number((kept / run.total).toFixed(4)) } }))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** An empty index of a lexical engine for the synthetic corpus (a world's index, any engine: openSearchIndex). */
async function emptyIndex(engine: EngineName): Promise<SearchIndex> {
  if (engine === 'embedded') return new EmbeddedIndex()
  if (engine === 'sqlite') return new SqliteFtsIndex()
  if (engine !== 'meilisearch') throw new Error(`--engines ${engine}: the dense engines embed with a world's embedder; use --world DIR --verify ${engine}`)
  const server = await startMeiliServer()
  try {
    return await MeiliIndex.open({ url: server.url, apiKey: server.masterKey, indexUid: 'searchgym', fresh: true, server })
  } catch (e) {
    await server.stop()
    throw e
  }
}

async function main(): Promise<void> {
  const nQueries = Number(values.queries)
  const { docs, queries } = values.world ? loadWorld(values.world, nQueries) : syntheticCorpus(Number(values.seed), 3600, 240, nQueries)
  const corpusName = values.world ? `world ${values.world} (stored verification queries)` : `synthetic (seed ${values.seed})`
  const words = docs.reduce((s, d) => s + d.text.split(/\s+/).length, 0) / docs.length
  console.log(`corpus: ${corpusName}: ${docs.length} docs, ${words.toFixed(0)} words/doc, ${queries.length} queries`)
  const nSingle = Math.min(Number(values.single), queries.length)
  for (const engine of String(values.engines).split(',')) {
    if (!isEngineName(engine)) throw new Error(`unknown engine ${engine} (known: ${ENGINE_NAMES.join(', ')})`)
    const t0 = performance.now()
    const index = await emptyIndex(engine)
    await index.upsert(docs)
    await index.search('warm up')
    const buildMs = performance.now() - t0
    for (let i = 0; i < 200; i++) await index.search(queries[i % queries.length].query, { k: 5 }) // JIT / connection warm-up
    // Wall latency, and this process's CPU time per query (on a loaded shared box the wall p99 is mostly waiting
    // for a core; CPU time shows what the engine itself costs). Meilisearch's work is in the server: wall only.
    const lat: number[] = []
    const cpu: number[] = []
    const tS = performance.now()
    for (let i = 0; i < nSingle; i++) {
      const c = process.cpuUsage()
      const a = performance.now()
      await index.search(queries[i].query, { k: 5 })
      lat.push(performance.now() - a)
      const d = process.cpuUsage(c)
      cpu.push((d.user + d.system) / 1000)
    }
    const singleQps = nSingle / ((performance.now() - tS) / 1000)
    lat.sort((a, b) => a - b)
    cpu.sort((a, b) => a - b)
    const tM = performance.now()
    let hits = 0
    const batch = 1000
    for (let i = 0; i < queries.length; i += batch) {
      const part = queries.slice(i, i + batch)
      const res = await index.searchMany(part.map((q) => q.query), { k: 5, snippet: false })
      res.forEach((r, j) => (hits += r.some((h) => h.url === part[j].target) ? 1 : 0))
    }
    const manyQps = queries.length / ((performance.now() - tM) / 1000)
    await index.close()
    console.log(
      JSON.stringify({
        engine,
        buildMs: Math.round(buildMs),
        p50ms: Number(pct(lat, 50).toFixed(3)),
        p99ms: Number(pct(lat, 99).toFixed(3)),
        cpuP50ms: Number(pct(cpu, 50).toFixed(3)),
        cpuP99ms: Number(pct(cpu, 99).toFixed(3)),
        loadavg: Number(loadavg()[0].toFixed(1)),
        singleQps: Math.round(singleQps),
        manyQps: Math.round(manyQps),
        recallAt5: Number((hits / queries.length).toFixed(3)),
        projected225kSec: Number((225_000 / manyQps).toFixed(1)),
      }),
    )
    if (values.world && String(values.verify).split(',').includes(engine)) await verifyWallTime(values.world, engine)
  }
}

await main()

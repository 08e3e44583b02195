// bench/perf/dense: the dense and hybrid engines on a built world — embedder + index time, single-query p50/p99
// (k=5, snippets, one at a time as the gym asks) for dense exact (ONNX Gemm scan), dense IVF and hybrid, IVF
// recall@5 against exact, full verification time and pass rate with dense/hybrid, and the pass rate of the 15-query
// verification per engine side by side on a seeded sample of edges (their stored queries, re-run on each engine).
// The embedder is the tiny seeded ONNX FIXTURE (world/search/embed/tiny-model) at a real model's hidden size: its
// retrieval quality is not a real model's, and a real 6-layer encoder embeds queries more slowly.
// Usage: node bin/run-ts.mjs bench/perf/dense.ts --world DIR [--hidden 384] [--single 1000] [--sample-edges 500]
//   [--engines embedded,sqlite,meilisearch,dense,hybrid,meili-hybrid] [--full dense,hybrid]
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { worldTexts } from '../../world/store/texts'
import { oneLine } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import { openDb, type Db } from '../../infra/store'
import { openWorld } from '../../world/store/open'
import { ENTITY_TYPES, RELATIONS } from '../../world/schema'
import { DenseIndex } from '../../world/search/dense'
import { Embedder } from '../../world/search/embed/embedder'
import { writeTinyEmbedder } from '../../world/search/embed/tiny-model'
import { EmbeddedIndex } from '../../world/search/embedded'
import { isEngineName, type EngineName } from '../../world/search/engine-names'
import { HybridIndex } from '../../world/search/hybrid'
import { startMeiliServer } from '../../world/search/meili-server'
import { MeiliIndex } from '../../world/search/meilisearch'
import { openSearchIndex, readSearchDocs } from '../../world/indexing/open'
import type { SearchIndex } from '../../world/search/types'
import { clearVerification, verifyEdges } from '../../world/verify/verify'
import { perfArgs } from './perf-args'

const { values } = perfArgs('node bin/run-ts.mjs bench/perf/dense.ts --world DIR [--hidden 384] [--single 1000] [--sample-edges 500] [--engines LIST] [--full LIST] [--seed 1]', {
  world: { type: 'string' },
  hidden: { type: 'string', default: '384' },
  single: { type: 'string', default: '1000' },
  'sample-edges': { type: 'string', default: '500' },
  engines: { type: 'string', default: 'embedded,sqlite,meilisearch,dense,hybrid,meili-hybrid' },
  full: { type: 'string', default: 'dense,hybrid' },
  seed: { type: 'string', default: '1' },
})

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const log = (o: unknown) => console.log(JSON.stringify(o))
const secs = (t0: number) => Number(((performance.now() - t0) / 1000).toFixed(2))

async function latency(index: SearchIndex, queries: string[]): Promise<{ p50: number; p99: number; qps: number }> {
  for (const q of queries.slice(0, 20)) await index.search(q, { k: 5 }) // warm-up
  const ms: number[] = []
  const t0 = performance.now()
  for (const q of queries) {
    const t = performance.now()
    await index.search(q, { k: 5 })
    ms.push(performance.now() - t)
  }
  const wall = (performance.now() - t0) / 1000
  ms.sort((a, b) => a - b)
  return { p50: Number(pct(ms, 50).toFixed(3)), p99: Number(pct(ms, 99).toFixed(3)), qps: Math.round(queries.length / wall) }
}

/** Share of sampled edges whose stored queries find d_v in the top-K at least minHits times on `index`. */
async function sampledPassRate(db: Db, index: SearchIndex, edges: { id: string; url: string }[], topK: number, minHits: number): Promise<number> {
  const qStmt = db.prepare('SELECT query FROM verification_queries WHERE edge_id = ? ORDER BY qi')
  const perEdge = edges.map((e) => (qStmt.all(e.id) as { query: string }[]).map((r) => r.query))
  const res = await index.searchMany(perEdge.flat(), { k: topK, snippet: false })
  let at = 0
  let pass = 0
  edges.forEach((e, i) => {
    let hits = 0
    for (let j = 0; j < perEdge[i].length; j++) if (res[at++].some((h) => h.url === e.url)) hits++
    if (hits >= minHits) pass++
  })
  return pass / edges.length
}

async function main(): Promise<void> {
  if (!values.world) throw new Error('give --world DIR (a built world, e.g. searchgym world build --preset paper --seed 11 --out DIR)')
  const hidden = Number(values.hidden)
  // An unfinished world is fine once verified (the bench reads docs, edges and the stored verification queries).
  const w = openWorld(values.world, { allowIncomplete: true })
  const config = w.config
  const docs = readSearchDocs(w.db)
  const { topK, minHits } = config.verification
  const tmp = mkdtempSync(join(tmpdir(), 'searchgym-bench-dense-'))
  try {
    log({ machine: { load: loadavg().map((x) => Number(x.toFixed(1))), node: process.version }, world: values.world, docs: docs.length, verification: config.verification, storedEngine: JSON.parse((w.db.prepare(`SELECT value FROM verification_settings WHERE key = 'settings'`).get() as { value: string }).value).engine })

    let t0 = performance.now()
    const modelDir = join(tmp, 'model')
    const weights = writeTinyEmbedder(modelDir, { texts: [...worldTexts(values.world)], hidden, seed: 1 })
    log({ embedder: { fixture: 'tiny-model', hidden, vocab: weights.vocab, writeSec: secs(t0) } })

    const embedder = await Embedder.load(modelDir)
    t0 = performance.now()
    const dense = new DenseIndex(embedder, { ann: 'exact', ownsEmbedder: false, quiet: true })
    await dense.upsert(docs)
    const passages = [...dense.entries()].reduce((n, [, vs]) => n + vs.length, 0)
    log({ dense: { indexSec: secs(t0), passages, note: 'embedding every passage with the ONNX model' } })

    const entries = [...dense.entries()]
    const ivf = new DenseIndex(embedder, { ann: 'ivf', ownsEmbedder: false, quiet: true })
    ivf.setVectors(entries.map(([d]) => d), entries.map(([, v]) => v))
    t0 = performance.now()
    const ivfIdx = ivf.ivfIndex()
    log({ ivf: { buildSec: secs(t0), lists: ivfIdx.lists, nprobe: ivfIdx.nprobe } })
    const hybridDense = new DenseIndex(embedder, { ann: 'exact', ownsEmbedder: false, quiet: true })
    hybridDense.setVectors(entries.map(([d]) => d), entries.map(([, v]) => v))
    const lexical = new EmbeddedIndex()
    lexical.upsertSync(docs)
    const hybrid = new HybridIndex(lexical, hybridDense)

    const rng = new Rng(Number(values.seed))
    const allQ = (w.db.prepare('SELECT query FROM verification_queries ORDER BY edge_id, qi').all() as { query: string }[]).map((r) => r.query)
    const sample = rng.sample(allQ, Math.min(Number(values.single), allQ.length))
    for (const [name, idx] of [['dense (exact, Gemm scan)', dense], ['dense (IVF)', ivf], ['hybrid (BM25F + dense exact, RRF)', hybrid]] as const)
      log({ latency: name, queries: sample.length, ...(await latency(idx, sample)) })

    // IVF recall@5 against exact over the sample.
    const qv = await dense.embedQueries(sample)
    let found = 0
    for (const q of qv) {
      const exact = new Set(dense.rank(q, 5, true).map((s) => s.doc))
      for (const s of ivf.rank(q, 5, false)) if (exact.has(s.doc)) found++
    }
    log({ ivfRecallAt5: Number((found / (5 * qv.length)).toFixed(4)), queries: qv.length, lists: ivfIdx.lists, nprobe: ivfIdx.nprobe })

    // Full verification with dense / hybrid on a copy of the world file.
    for (const engine of values.full.split(',').filter(Boolean)) {
      const dbPath = join(tmp, `${engine}.db`)
      w.db.prepare('VACUUM INTO ?').run(dbPath) // a consistent copy, WAL included
      const db = openDb(dbPath)
      clearVerification(db)
      const index = engine === 'dense' ? dense : engine === 'hybrid' ? hybrid : undefined
      if (!index) throw new Error(`--full takes dense and/or hybrid, got ${engine}`)
      const run = await verifyEdges(db, index, { schema: { relations: RELATIONS, types: ENTITY_TYPES }, seed: config.seed, ...config.verification, quiet: true })
      const kept = (db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
      db.close()
      log({ fullVerification: engine, edges: run.total, queries: run.total * config.verification.queriesPerEdge, verifySec: Number(run.seconds.toFixed(1)), kept, passRate: Number((kept / run.total).toFixed(4)) })
    }

    // Pass rate per engine on a seeded sample of edges (stored queries re-run on each engine).
    const allEdges = w.db.prepare('SELECT e.id, t.url FROM edges e JOIN entities t ON t.id = e.target ORDER BY e.id').all() as { id: string; url: string }[]
    const edges = new Rng(Number(values.seed) + 1).sample(allEdges, Math.min(Number(values['sample-edges']), allEdges.length))
    const storedKept = w.db.prepare('SELECT kept FROM edge_verification WHERE edge_id = ?')
    const storedRate = edges.filter((e) => (storedKept.get(e.id) as { kept: number }).kept === 1).length / edges.length
    log({ sampledEdges: edges.length, storedEngineRateOnSample: Number(storedRate.toFixed(4)) })
    const byUrl = new Map(entries.map(([d, v]) => [d.url, v]))
    for (const engine of values.engines.split(',').filter(Boolean)) {
      if (!isEngineName(engine) && engine !== 'meili-hybrid') throw new Error(`unknown engine ${engine}`)
      t0 = performance.now()
      let index: SearchIndex
      if (engine === 'dense') index = dense
      else if (engine === 'hybrid') index = hybrid
      else if (engine === 'meili-hybrid') {
        // Meilisearch's own hybrid search, fed the dense engine's passage vectors (semanticRatio 0.5).
        const server = await startMeiliServer()
        index = await MeiliIndex.open({
          url: server.url,
          apiKey: server.masterKey,
          indexUid: 'bench_hybrid',
          fresh: true,
          server,
          vectors: { dimensions: dense.dim, semanticRatio: 0.5, docs: async (ds) => ds.map((d) => byUrl.get(d.url)!), queries: (qs) => embedder.embedQueries(qs) },
        })
        await index.upsert(docs)
      } else index = await openSearchIndex({ db: w.db, config }, { engine: engine as EngineName, allowEngineMismatch: true })
      const openSec = secs(t0)
      t0 = performance.now()
      const rate = await sampledPassRate(w.db, index, edges, topK, minHits)
      log({ sampledPassRate: engine, rate: Number(rate.toFixed(4)), openSec, searchSec: secs(t0) })
      if (engine !== 'dense' && engine !== 'hybrid') await index.close()
    }
    await hybrid.close()
    await dense.close()
    await ivf.close()
    await embedder.close()
  } finally {
    w.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(`bench/perf/dense: ${oneLine(e)}\n`)
  process.exit(1)
})

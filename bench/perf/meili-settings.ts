// bench/perf/meili-settings: chooses Meilisearch's matching strategy and stop words by measurement — for a sample of a
// world's edges, the share of verification queries that put d_v in the top-K, and the edges that would pass.
// Usage: node bin/run-ts.mjs bench/perf/meili-settings.ts WORLD_DIR [--edges 600]
import { perfArgs } from './perf-kit'
import { openDb } from '../../infra/store'
import { Rng } from '../../infra/rng'
import { startMeiliServer } from '../../world/search/meili-server'
import { MeiliIndex, QUESTION_STOP_WORDS, type MeiliSettingsChoice } from '../../world/search/meilisearch'
import { readSearchDocs } from '../../world/indexing/open'
import { EmbeddedIndex } from '../../world/search/embedded'
import { edgeQueries, edgeQueryRng } from '../../world/verify/verify-queries'
import { RELATIONS, ENTITY_TYPES } from '../../world/schema'
import { join } from 'node:path'
import type { SearchIndex } from '../../world/search/types'

const { values, positionals } = perfArgs('bench/perf/meili-settings.ts WORLD_DIR [--edges N]', { edges: { type: 'string', default: '600' } }, 1)
const dir = positionals[0]
const db = openDb(join(dir, 'world.db'), { readonly: true })
const docs = readSearchDocs(db)
const all = db
  .prepare(
    `SELECT e.id, e.relation, s.name AS sourceName, s.type AS sourceType, t.type AS targetType, t.url AS targetUrl
     FROM edges e JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target ORDER BY e.id`,
  )
  .all() as { id: string; relation: string; sourceName: string; sourceType: string; targetType: string; targetUrl: string }[]
const edges = new Rng(1).sample(all, Number(values.edges))
const rels = new Map(RELATIONS.map((r) => [r.name, r] as const))
const nouns = new Map(ENTITY_TYPES.map((t) => [t.name, t.noun]))
const perEdge = edges.map((e) =>
  edgeQueries(
    { relation: rels.get(e.relation)!, sourceName: e.sourceName, sourceNoun: nouns.get(e.sourceType)!, targetNoun: nouns.get(e.targetType)! },
    15,
    edgeQueryRng(11, e.id),
  ),
)
const flat = perEdge.flat().map((q) => q.query)
console.log(`world ${dir}: ${docs.length} docs; sample ${edges.length} edges, ${flat.length} queries`)

async function measure(name: string, index: SearchIndex): Promise<void> {
  const t = performance.now()
  const res = await index.searchMany(flat, { k: 5, snippet: false })
  const sec = (performance.now() - t) / 1000
  let at = 0
  let hits = 0
  let kept = 0
  perEdge.forEach((qs, i) => {
    let h = 0
    for (let j = 0; j < qs.length; j++) if (res[at++].some((x) => x.url === edges[i].targetUrl)) h++
    hits += h
    if (h >= 5) kept++
  })
  console.log(JSON.stringify({ name, queryHitRate: Number((hits / flat.length).toFixed(3)), edgePassRate: Number((kept / edges.length).toFixed(3)), qps: Math.round(flat.length / sec) }))
}

const emb = new EmbeddedIndex()
emb.upsertSync(docs)
await measure('embedded', emb)
const server = await startMeiliServer()
try {
  const choices: [string, MeiliSettingsChoice][] = [
    ['meili defaults (last, no stop words)', { matchingStrategy: 'last', stopWords: [] }],
    ['last + question stop words', { matchingStrategy: 'last', stopWords: QUESTION_STOP_WORDS }],
    ['frequency, no stop words', { matchingStrategy: 'frequency', stopWords: [] }],
    ['frequency + question stop words', { matchingStrategy: 'frequency', stopWords: QUESTION_STOP_WORDS }],
    ['all + question stop words', { matchingStrategy: 'all', stopWords: QUESTION_STOP_WORDS }],
  ]
  for (const [i, [name, choice]] of choices.entries()) {
    const idx = await MeiliIndex.open({ url: server.url, apiKey: server.masterKey, indexUid: `choice_${i}`, fresh: true, choice })
    await idx.upsert(docs)
    await measure(name, idx)
    await idx.close()
  }
} finally {
  await server.stop()
}

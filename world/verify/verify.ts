// world/verify/verify: retrievability verification of every edge (SearchGym §2.1). For e=(u,v): n queries from the
// relation's verbal forms and u's name, run at top-K on the world's own engine; rank of d_v recorded per query;
// keep e iff hits >= minHits. Owns the tables edge_verification / verification_queries / verification_settings.
// Resumable in chunks. Knows the world tables it reads (entities, edges) but not how they were generated.
import { WorldError } from '../../infra/errors'
import { canonicalJson } from '../../infra/hash'
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import type { SearchIndex } from '../search/types'
import type { EntityTypeSpec, RelationSpec } from '../types'
import { edgeQueries, edgeQueryRng, type EdgeQuery } from './verify-queries'
import { hasLookupVerification } from './verify-lookups'

/** Bumped when query generation or ranking bookkeeping changes: stored results of another version are redone. */
/** Distinct verification queries whose top URLs are remembered (~300 bytes each). */
const MAX_REMEMBERED_QUERIES = 400_000

export const VERIFY_VERSION = 1

export interface VerifySettings {
  engine: string
  queriesPerEdge: number
  minHits: number
  topK: number
  seed: number
  version: number
}

export interface VerifySchema {
  relations: RelationSpec[]
  types: EntityTypeSpec[]
}

export function initVerifyTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS verification_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS edge_verification (edge_id TEXT PRIMARY KEY, hits INTEGER NOT NULL, kept INTEGER NOT NULL) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS edge_verification_kept ON edge_verification(kept);
    CREATE TABLE IF NOT EXISTS verification_queries (
      edge_id TEXT NOT NULL, qi INTEGER NOT NULL, style TEXT NOT NULL, query TEXT NOT NULL,
      rank INTEGER NOT NULL, top_urls TEXT NOT NULL, PRIMARY KEY (edge_id, qi)) WITHOUT ROWID;
  `)
}

export function readVerifySettings(db: Db): VerifySettings | undefined {
  const row = db.prepare(`SELECT value FROM verification_settings WHERE key = 'settings'`).get() as { value: string } | undefined
  return row ? (JSON.parse(row.value) as VerifySettings) : undefined
}

/** Forget every verification result (settings changed, or a fresh verify was asked for). */
export function clearVerification(db: Db): void {
  db.exec('DELETE FROM verification_settings; DELETE FROM edge_verification; DELETE FROM verification_queries;')
  if (hasLookupVerification(db)) db.exec('DELETE FROM lookup_verification')
}

interface PendingEdge {
  id: string
  relation: string
  sourceName: string
  sourceType: string
  targetType: string
  targetUrl: string
}

/** The queries that test one edge under `settings` (the same for the build's verification and any re-run of it). */
function queriesOfEdge(
  e: PendingEdge,
  rels: Map<string, RelationSpec>,
  nouns: Map<string, string>,
  settings: Pick<VerifySettings, 'queriesPerEdge' | 'seed'>,
): EdgeQuery[] {
  const relation = rels.get(e.relation)
  if (!relation) throw new WorldError('verify.schema', `edge ${e.id} has relation '${e.relation}' that the schema does not define`)
  return edgeQueries(
    {
      relation,
      sourceName: e.sourceName,
      sourceNoun: nouns.get(e.sourceType) ?? e.sourceType.toLowerCase(),
      targetNoun: nouns.get(e.targetType) ?? e.targetType.toLowerCase(),
    },
    settings.queriesPerEdge,
    edgeQueryRng(settings.seed, e.id),
  )
}

/** One verified edge as a re-run of its verification needs: its queries (generated as the build did), its target
 *  document, the edge-fact sentences that document holds, and the build's stored result. */
export interface EdgeQuerySet {
  id: string
  relation: string
  targetUrl: string
  queries: EdgeQuery[]
  /** Sentences of the target document that state this edge (doc_facts kind 'edge'); may be empty. */
  evidence: string[]
  /** The build's own result: queries whose top-K held the target, and whether the edge was kept. */
  hits: number
  kept: boolean
}

/** Every verified edge (ordered by id) with the queries the build asked for it, for re-running the verification
 *  through another retrieval unit. Throws when the world has no complete verification. */
export function verificationQuerySets(db: Db, schema: VerifySchema): { settings: VerifySettings; edges: EdgeQuerySet[] } {
  initVerifyTables(db)
  const settings = readVerifySettings(db)
  if (!settings || !verificationComplete(db)) throw new WorldError('verify.incomplete', 'this world has no complete edge verification (build its verify stage first)')
  const rels = new Map(schema.relations.map((r) => [r.name, r]))
  const nouns = new Map(schema.types.map((t) => [t.name, t.noun]))
  const rows = db
    .prepare(
      `SELECT e.id, e.relation, s.name AS sourceName, s.type AS sourceType, t.type AS targetType, t.url AS targetUrl, v.hits, v.kept
       FROM edges e JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target
       JOIN edge_verification v ON v.edge_id = e.id ORDER BY e.id`,
    )
    .all() as (PendingEdge & { hits: number; kept: number })[]
  const evidence = new Map<string, string[]>()
  for (const f of db.prepare(`SELECT f.ref, f.sentence FROM doc_facts f JOIN edges e ON e.id = f.ref JOIN entities t ON t.id = e.target
      WHERE f.kind = 'edge' AND f.url = t.url ORDER BY f.url, f.seq`).iterate() as Iterable<{ ref: string; sentence: string }>) {
    const list = evidence.get(f.ref)
    if (list) list.push(f.sentence)
    else evidence.set(f.ref, [f.sentence])
  }
  return {
    settings,
    edges: rows.map((e) => ({
      id: e.id,
      relation: e.relation,
      targetUrl: e.targetUrl,
      queries: queriesOfEdge(e, rels, nouns, settings),
      evidence: evidence.get(e.id) ?? [],
      hits: e.hits,
      kept: e.kept === 1,
    })),
  }
}

export interface VerifyOptions extends Omit<VerifySettings, 'engine' | 'version'> {
  schema: VerifySchema
  /** Edges per chunk (one transaction each: a killed run continues after the last finished chunk). */
  chunk?: number
  quiet?: boolean
  log?: (message: string) => void
  /** Stop after this many chunks (tests of resumption). */
  maxChunks?: number
  /** Called inside each chunk's write transaction, after its rows (the build's test hold pauses here). */
  onChunkWritten?: (info: { chunk: number; edgesLeft: number }) => void
}

export interface VerifyRun {
  /** Edges verified in this call (the rest were already verified). */
  verified: number
  total: number
  seconds: number
}

/** Verify every edge without a stored result, with `index` (which must hold the world's documents). */
export async function verifyEdges(db: Db, index: SearchIndex, opts: VerifyOptions): Promise<VerifyRun> {
  const t0 = performance.now()
  initVerifyTables(db)
  const settings: VerifySettings = {
    engine: index.engine,
    queriesPerEdge: opts.queriesPerEdge,
    minHits: opts.minHits,
    topK: opts.topK,
    seed: opts.seed,
    version: VERIFY_VERSION,
  }
  for (const [k, v] of Object.entries({ queriesPerEdge: settings.queriesPerEdge, minHits: settings.minHits, topK: settings.topK }))
    if (!Number.isInteger(v) || v < 1) throw new WorldError('verify.settings', `verification.${k} must be a positive integer, got ${v}`)
  if (settings.minHits > settings.queriesPerEdge)
    throw new WorldError('verify.settings', `verification.minHits (${settings.minHits}) cannot exceed queriesPerEdge (${settings.queriesPerEdge})`)
  const stored = readVerifySettings(db)
  if (stored && canonicalJson(stored) !== canonicalJson(settings)) {
    opts.log?.(`verification settings changed (${canonicalJson(stored)} → ${canonicalJson(settings)}): verifying again`)
    clearVerification(db)
  }
  db.prepare(`INSERT OR REPLACE INTO verification_settings (key, value) VALUES ('settings', ?)`).run(canonicalJson(settings))

  const rels = new Map(opts.schema.relations.map((r) => [r.name, r]))
  const nouns = new Map(opts.schema.types.map((t) => [t.name, t.noun]))
  const total = (db.prepare('SELECT COUNT(*) AS n FROM edges').get() as { n: number }).n
  const pending = db
    .prepare(
      `SELECT e.id, e.relation, s.name AS sourceName, s.type AS sourceType, t.type AS targetType, t.url AS targetUrl
       FROM edges e JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target
       LEFT JOIN edge_verification v ON v.edge_id = e.id
       WHERE v.edge_id IS NULL ORDER BY e.id`,
    )
    .all() as PendingEdge[]
  const insEdge = db.prepare('INSERT INTO edge_verification (edge_id, hits, kept) VALUES (?, ?, ?)')
  const insQuery = db.prepare(
    'INSERT INTO verification_queries (edge_id, qi, style, query, rank, top_urls) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const chunk = opts.chunk ?? 1000
  const bar = progress('verify edges', total, { quiet: opts.quiet })
  bar.update(total - pending.length)
  let chunks = 0
  let verified = 0
  /** query → the top URLs it gave (bounded: past MAX_REMEMBERED_QUERIES it starts afresh). */
  const seenTop = new Map<string, string[]>()
  /** The queries the last chunk prepared asked the engine (by position), and its searches' top URLs. */
  let inFlight: { asked: Map<string, number>; tops: Promise<string[][]> } | undefined
  // The queries of the next VERIFY_CHUNKS_AHEAD chunks are searched while a chunk is written (a worker pool searches
  // on the other cores, and always has the next chunk queued: no worker waits for this thread between chunks).
  const search = (i: number) => {
    const part = pending.slice(i, i + chunk)
    const perEdge = part.map((e) => queriesOfEdge(e, rels, nouns, settings))
    // Each distinct query is searched once: a query asked before (this chunk or an earlier one; ~23% of the paper
    // world's) takes the top URLs the engine gave then — the index does not change during verification.
    const queries = perEdge.flat().map((q) => q.query)
    // Known now (the map may be cleared before this chunk's searches return), or asked by the chunk still in flight.
    const known = queries.map((q) => seenTop.get(q))
    const prev = inFlight
    const ask: string[] = []
    const asked = new Map<string, number>()
    queries.forEach((q, j) => {
      if (known[j] === undefined && !prev?.asked.has(q) && !asked.has(q)) asked.set(q, ask.push(q) - 1)
    })
    const tops = index.searchMany(ask, { k: settings.topK, snippet: false }).then((hits) => hits.map((h) => h.map((x) => x.url)))
    tops.catch(() => undefined) // awaited through `results` (this chunk's and the next's)
    inFlight = { asked, tops }
    const results = Promise.all([tops, prev?.tops ?? []]).then(([mine, before]) => {
      const out = queries.map((q, j) => known[j] ?? (asked.has(q) ? mine[asked.get(q)!] : before[prev!.asked.get(q)!]))
      if (seenTop.size + ask.length > MAX_REMEMBERED_QUERIES) seenTop.clear()
      ask.forEach((q, j) => seenTop.set(q, mine[j]))
      return out
    })
    results.catch(() => undefined) // awaited below; a failure of a prefetched chunk surfaces there
    return { from: i, part, perEdge, results }
  }
  const maxChunks = opts.maxChunks ?? Infinity
  const ahead: ReturnType<typeof search>[] = []
  let issued = 0
  let chunksIssued = 0
  const issue = () => {
    for (; ahead.length < VERIFY_CHUNKS_AHEAD && issued < pending.length && chunksIssued < maxChunks; issued += chunk, chunksIssued++) ahead.push(search(issued))
  }
  issue()
  for (let next = ahead.shift(); next !== undefined; next = ahead.shift()) {
    const { from: i, part, perEdge } = next
    const results = await next.results
    issue()
    tx(db, () => {
      let at = 0
      part.forEach((e, j) => {
        let hits = 0
        perEdge[j].forEach((q, qi) => {
          const top = results[at++]
          const rank = top.indexOf(e.targetUrl) + 1
          if (rank > 0) hits++
          insQuery.run(e.id, qi, q.style, q.query, rank, JSON.stringify(top))
        })
        insEdge.run(e.id, hits, hits >= settings.minHits ? 1 : 0)
      })
      opts.onChunkWritten?.({ chunk: chunks, edgesLeft: pending.length - i - part.length })
    })
    verified += part.length
    chunks++
    bar.tick(part.length)
  }
  bar.done()
  return { verified, total, seconds: (performance.now() - t0) / 1000 }
}

/** Chunks whose searches are in flight while the build's thread writes the one before (2: a search worker finishing
 *  its part of one chunk starts on the next at once). */
const VERIFY_CHUNKS_AHEAD = 2

/** True when every edge has a verification result under the given settings. */
export function verificationComplete(db: Db): boolean {
  initVerifyTables(db)
  const row = db
    .prepare('SELECT COUNT(*) AS n FROM edges e LEFT JOIN edge_verification v ON v.edge_id = e.id WHERE v.edge_id IS NULL')
    .get() as { n: number }
  return row.n === 0
}

/** Canonical rows of the verification results for the content hash (settings, per-edge, per-query). */
export function verificationHashRows(db: Db, emit: (row: unknown) => void): void {
  initVerifyTables(db)
  const s = readVerifySettings(db)
  emit({ verificationSettings: s ?? null })
  for (const r of db.prepare('SELECT edge_id, hits, kept FROM edge_verification ORDER BY edge_id').iterate())
    emit(r)
  for (const r of db
    .prepare('SELECT edge_id, qi, style, query, rank, top_urls FROM verification_queries ORDER BY edge_id, qi')
    .iterate())
    emit(r)
}

/** Number of edges in G* (kept = 1). */
export function countVerifiedEdges(db: Db): number {
  initVerifyTables(db)
  return (db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
}

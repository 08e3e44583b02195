// world/build/stats: summary numbers of a world (counts by type and relation, degree histogram, document lengths, hash,
// and how many facts — edges — the bench and a held-out slice share with the training questions). Reads the world
// database only.
import type { Db } from '../../infra/store'
import { qaSummary, readQa, readSplitStats } from '../qa/store'
import { factOverlap, heldOutSlice, type FactOverlap } from '../split/facts'

export interface WorldStats {
  dir: string
  hash: string | null
  complete: boolean
  seed: number | null
  generatorVersion: string | null
  stages: Record<string, string>
  entities: number
  edges: number
  docs: number
  docFacts: number
  /** Number of entity types / relation types in use (at least one entity / edge). */
  entityTypes: number
  relationTypes: number
  byType: Record<string, number>
  byRelation: Record<string, number>
  /** Degree bucket label ('0', '1', '2', '3-4', '5-8', ...) → number of entities. */
  degreeHistogram: Record<string, number>
  maxDegree: number
  isolated: number
  docWords: { min: number; median: number; mean: number; p95: number; max: number }
  /** Edges in G* (verification kept them); 0 before verification. */
  verifiedEdges: number
  /** Edges with a verification result (kept or not). */
  checkedEdges: number
  /** How verification was run (null before it ran). */
  verification: { queriesPerEdge: number; minHits: number; topK: number; engine: string } | null
  /** QA of the world (absent before the qa stage): train/bench counts, by type and hop count (train + bench). */
  qa?: { train: number; bench: number; excluded: number; dropped: number; byType: Record<string, number>; byHops: Record<string, number> }
  /** Facts (edges) the bench and a held-out slice share with the training questions (absent before the split). */
  facts?: FactStats
}

export interface FactStats {
  /** SearchGymBench against the world's training split. */
  bench: FactOverlap
  /**
   * The held-out slice `train` / `train sft` take with this seed and size (pickHeldOut): its overlap with the rest of
   * the training split as picked (`beforeExclusion`), what the fact exclusion removes, and its overlap with the pool
   * left to train on (`afterExclusion`: 0 everywhere, by construction). Absent when heldOut.size is 0.
   */
  heldOut?: { size: number; seed: number; picked: number; heldFacts: number; excluded: number; train: number; beforeExclusion: FactOverlap; afterExclusion: FactOverlap }
  /** The split's fact-disjoint option (config.split.factDisjoint): training questions it excluded; null when off. */
  factDisjoint: { excluded: number; trainBefore: number; benchFacts: number } | null
}

export interface StatsOptions {
  /** Size and seed of the held-out slice to probe (the train defaults: 64, seed 0); size 0 skips it. */
  heldOut?: number
  heldOutSeed?: number
}

const tableExists = (db: Db, name: string) => Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name))

function bucket(d: number): string {
  if (d <= 2) return String(d)
  let lo = 3, hi = 4
  while (d > hi) { lo = hi + 1; hi = hi * 2 }
  return `${lo}-${hi}`
}

export function computeStats(db: Db, dir: string, manifest: Record<string, string>, stages: Record<string, string>, opts: StatsOptions = {}): WorldStats {
  const count = (t: string) => (tableExists(db, t) ? (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n : 0)
  const group = (sql: string, t: string) =>
    tableExists(db, t) ? Object.fromEntries((db.prepare(sql).all() as { k: string; n: number }[]).map((r) => [r.k, r.n])) : {}
  const byType = group('SELECT type AS k, count(*) AS n FROM entities GROUP BY type ORDER BY type', 'entities')
  const byRelation = group('SELECT relation AS k, count(*) AS n FROM edges GROUP BY relation ORDER BY relation', 'edges')
  const degrees: number[] = []
  if (tableExists(db, 'entities') && tableExists(db, 'edges')) {
    const rows = db.prepare(`SELECT e.id AS id, (SELECT count(*) FROM edges WHERE source = e.id) + (SELECT count(*) FROM edges WHERE target = e.id) AS d FROM entities e ORDER BY e.id`).all() as { d: number }[]
    for (const r of rows) degrees.push(r.d)
  }
  const hist: Record<string, number> = {}
  for (const d of degrees.slice().sort((a, b) => a - b)) hist[bucket(d)] = (hist[bucket(d)] ?? 0) + 1
  const words: number[] = []
  if (tableExists(db, 'docs')) for (const r of db.prepare('SELECT text FROM docs').raw().iterate() as Iterable<[string]>) words.push(r[0].split(/\s+/).filter(Boolean).length)
  words.sort((a, b) => a - b)
  const q = (p: number) => (words.length ? words[Math.min(words.length - 1, Math.floor(p * words.length))] : 0)
  const complete = manifest.complete === '1' && Boolean(manifest.content_hash)
  const verified = tableExists(db, 'edge_verification')
    ? (db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(kept), 0) AS kept FROM edge_verification').get() as { n: number; kept: number })
    : { n: 0, kept: 0 }
  const vrow = tableExists(db, 'verification_settings')
    ? (db.prepare(`SELECT value FROM verification_settings WHERE key = 'settings'`).get() as { value: string } | undefined)
    : undefined
  const vs = vrow ? (JSON.parse(vrow.value) as { queriesPerEdge: number; minHits: number; topK: number; engine: string }) : undefined
  return {
    dir,
    hash: complete ? manifest.content_hash : null,
    complete,
    seed: manifest.seed !== undefined ? Number(manifest.seed) : null,
    generatorVersion: manifest.generator_version ?? null,
    stages,
    entities: count('entities'),
    edges: count('edges'),
    docs: count('docs'),
    docFacts: count('doc_facts'),
    entityTypes: Object.keys(byType).length,
    relationTypes: Object.keys(byRelation).length,
    byType,
    byRelation,
    degreeHistogram: hist,
    maxDegree: degrees.reduce((a, b) => Math.max(a, b), 0),
    isolated: degrees.filter((d) => d === 0).length,
    docWords: {
      min: words[0] ?? 0,
      median: q(0.5),
      mean: words.length ? Math.round(words.reduce((a, b) => a + b, 0) / words.length) : 0,
      p95: q(0.95),
      max: words[words.length - 1] ?? 0,
    },
    verifiedEdges: verified.kept,
    checkedEdges: verified.n,
    verification: vs ? { queriesPerEdge: vs.queriesPerEdge, minHits: vs.minHits, topK: vs.topK, engine: vs.engine } : null,
    qa: qaSummary(db),
    facts: factStats(db, opts),
  }
}

/** Bench and held-out fact overlap with the training split (undefined before the split labelled any bench question). */
export function factStats(db: Db, opts: StatsOptions = {}): FactStats | undefined {
  const bench = readQa(db, ['bench'])
  if (bench.length === 0) return undefined
  const train = readQa(db, ['train'])
  const fd = readSplitStats(db)?.factDisjoint as FactStats['factDisjoint'] | undefined
  const out: FactStats = { bench: factOverlap(bench, train), factDisjoint: fd ?? null }
  const size = opts.heldOut ?? 64
  const seed = opts.heldOutSeed ?? 0
  if (size > 0) {
    const s = heldOutSlice(train, size, seed)
    const held = new Set(s.held.map((q) => q.id))
    out.heldOut = {
      size,
      seed,
      picked: s.held.length,
      heldFacts: s.heldFacts,
      excluded: s.excluded.length,
      train: s.train.length,
      beforeExclusion: factOverlap(s.held, train.filter((q) => !held.has(q.id))),
      afterExclusion: factOverlap(s.held, s.train),
    }
  }
  return out
}

/** Human-readable summary (fits one screen). */
export function formatStats(s: WorldStats): string {
  const kv = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(', ')
  return [
    `world      ${s.dir}${s.complete ? '' : '   (NOT FINISHED)'}`,
    `hash       ${s.hash ?? '-'}`,
    `seed       ${s.seed ?? '-'}   generator ${s.generatorVersion ?? '-'}   stages: ${Object.entries(s.stages).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    `entities   ${s.entities} in ${s.entityTypes} types: ${kv(s.byType)}`,
    `edges      ${s.edges} in ${s.relationTypes} relation types (${s.entities ? (s.edges / s.entities).toFixed(2) : 0} per entity)`,
    `relations  ${kv(s.byRelation)}`,
    `degrees    ${kv(s.degreeHistogram)}   max ${s.maxDegree}, isolated ${s.isolated}`,
    `docs       ${s.docs} (${s.docFacts} fact sentences); words min ${s.docWords.min}, median ${s.docWords.median}, mean ${s.docWords.mean}, p95 ${s.docWords.p95}, max ${s.docWords.max}`,
    s.verification
      ? `verified   ${s.verifiedEdges} of ${s.edges} edges in G* (${s.edges ? ((100 * s.verifiedEdges) / s.edges).toFixed(1) : 0}%; ${s.checkedEdges} checked) — engine ${s.verification.engine}, d_v in top-${s.verification.topK} for >= ${s.verification.minHits} of ${s.verification.queriesPerEdge} queries`
      : `verified   not yet`,
    ...(s.qa ? [`qa         train ${s.qa.train}, bench ${s.qa.bench} (excluded ${s.qa.excluded}, dropped by the oracle check ${s.qa.dropped}); ${kv(s.qa.byType)}; hops ${kv(s.qa.byHops)}`] : []),
    ...(s.facts ? formatFacts(s.facts) : []),
  ].join('\n')
}

function formatOverlap(o: FactOverlap): string {
  return `every edge on a training path ${o.everyEdge} of ${o.questions} (inside one training path ${o.insideOne}), an edge a one-hop training question asks ${o.askedDirectly}, any edge shared ${o.anyEdge}`
}

function formatFacts(f: FactStats): string[] {
  const h = f.heldOut
  return [
    `facts      bench vs train: ${formatOverlap(f.bench)}`,
    ...(h
      ? [
          `           held-out ${h.picked} (seed ${h.seed}) vs the rest as picked: ${formatOverlap(h.beforeExclusion)}`,
          `           its ${h.heldFacts} edges exclude ${h.excluded} of ${h.excluded + h.train} training questions; vs the ${h.train} left: ${formatOverlap(h.afterExclusion)}`,
        ]
      : []),
    f.factDisjoint
      ? `           split.factDisjoint: ${f.factDisjoint.excluded} of ${f.factDisjoint.trainBefore} training questions excluded for sharing one of the bench's ${f.factDisjoint.benchFacts} edges`
      : `           split.factDisjoint off (training questions may share edges with the bench)`,
  ]
}

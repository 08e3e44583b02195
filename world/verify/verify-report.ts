// world/verify/verify-report: what verification found — pass rate per relation, histogram of hits per edge, hit rate per
// query style, and the failed edges with their queries and what was retrieved instead. Reads the verify tables.
import type { Db } from '../../infra/store'
import { initVerifyTables, readVerifySettings, type VerifySettings } from './verify'

export interface RelationPass {
  relation: string
  edges: number
  kept: number
  passRate: number
  meanHits: number
}

export interface FailedEdge {
  edgeId: string
  relation: string
  source: string
  target: string
  targetUrl: string
  hits: number
  queries: { qi: number; style: string; query: string; rank: number; retrieved: string[] }[]
}

export interface VerifyReport {
  settings: VerifySettings | null
  edges: number
  verified: number
  kept: number
  passRate: number
  perRelation: RelationPass[]
  /** hitsHistogram[h] = number of edges with exactly h hits. */
  hitsHistogram: number[]
  /** Share of queries of each style that found d_v in the top-K. */
  perStyle: { style: string; queries: number; hitRate: number }[]
  /** Failed edges, lowest hits first, then by id (at most `maxFailed`). */
  failed: FailedEdge[]
  failedTotal: number
}

export function verificationReport(db: Db, maxFailed = 50): VerifyReport {
  initVerifyTables(db)
  const settings = readVerifySettings(db) ?? null
  const edges = (db.prepare('SELECT COUNT(*) AS n FROM edges').get() as { n: number }).n
  const agg = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(kept), 0) AS kept FROM edge_verification').get() as { n: number; kept: number }
  const perRelation = (
    db
      .prepare(
        `SELECT e.relation AS relation, COUNT(*) AS edges, SUM(v.kept) AS kept, AVG(v.hits) AS meanHits
         FROM edges e JOIN edge_verification v ON v.edge_id = e.id GROUP BY e.relation ORDER BY e.relation`,
      )
      .all() as { relation: string; edges: number; kept: number; meanHits: number }[]
  ).map((r) => ({ ...r, passRate: r.edges ? r.kept / r.edges : 0, meanHits: Number(r.meanHits.toFixed(2)) }))
  const n = settings?.queriesPerEdge ?? 0
  const hitsHistogram = new Array<number>(n + 1).fill(0)
  for (const r of db.prepare('SELECT hits, COUNT(*) AS c FROM edge_verification GROUP BY hits ORDER BY hits').all() as { hits: number; c: number }[]) {
    while (hitsHistogram.length <= r.hits) hitsHistogram.push(0)
    hitsHistogram[r.hits] = r.c
  }
  const perStyle = (
    db
      .prepare(`SELECT style, COUNT(*) AS queries, AVG(rank > 0) AS hitRate FROM verification_queries GROUP BY style ORDER BY style`)
      .all() as { style: string; queries: number; hitRate: number }[]
  ).map((r) => ({ ...r, hitRate: Number(r.hitRate.toFixed(4)) }))
  const failedTotal = agg.n - agg.kept
  const failedRows = db
    .prepare(
      `SELECT v.edge_id AS edgeId, e.relation, s.name AS source, t.name AS target, t.url AS targetUrl, v.hits
       FROM edge_verification v JOIN edges e ON e.id = v.edge_id JOIN entities s ON s.id = e.source JOIN entities t ON t.id = e.target
       WHERE v.kept = 0 ORDER BY v.hits, v.edge_id LIMIT ?`,
    )
    .all(maxFailed) as Omit<FailedEdge, 'queries'>[]
  const qStmt = db.prepare('SELECT qi, style, query, rank, top_urls FROM verification_queries WHERE edge_id = ? ORDER BY qi')
  const failed = failedRows.map((f) => ({
    ...f,
    queries: (qStmt.all(f.edgeId) as { qi: number; style: string; query: string; rank: number; top_urls: string }[]).map((q) => ({
      qi: q.qi,
      style: q.style,
      query: q.query,
      rank: q.rank,
      retrieved: JSON.parse(q.top_urls) as string[],
    })),
  }))
  return {
    settings,
    edges,
    verified: agg.n,
    kept: agg.kept,
    passRate: agg.n ? agg.kept / agg.n : 0,
    perRelation,
    hitsHistogram,
    perStyle,
    failed,
    failedTotal,
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`

/** The report as Markdown (written to the world folder and printed by `world verify`). */
export function formatVerifyReport(r: VerifyReport): string {
  const s = r.settings
  const lines: string[] = []
  lines.push('# Verification report', '')
  lines.push(
    s
      ? `Engine \`${s.engine}\`, ${s.queriesPerEdge} queries per edge, kept iff d_v is in the top-${s.topK} for at least ${s.minHits} of them.`
      : 'Not verified yet.',
  )
  lines.push('', `Edges: ${r.edges}; verified: ${r.verified}; kept (G*): ${r.kept} (${pct(r.passRate)}); failed: ${r.failedTotal}.`, '')
  lines.push('## Pass rate per relation', '', '| relation | edges | kept | pass rate | mean hits |', '| --- | ---: | ---: | ---: | ---: |')
  for (const p of r.perRelation) lines.push(`| ${p.relation} | ${p.edges} | ${p.kept} | ${pct(p.passRate)} | ${p.meanHits} |`)
  lines.push('', '## Hits per edge', '', '| hits | edges | |', '| ---: | ---: | --- |')
  const max = Math.max(1, ...r.hitsHistogram)
  r.hitsHistogram.forEach((c, h) => lines.push(`| ${h} | ${c} | ${'#'.repeat(Math.round((40 * c) / max))} |`))
  lines.push('', '## Hit rate per query style', '', '| style | queries | d_v in top-K |', '| --- | ---: | ---: |')
  for (const p of r.perStyle) lines.push(`| ${p.style} | ${p.queries} | ${pct(p.hitRate)} |`)
  lines.push('', `## Failed edges (${r.failed.length} of ${r.failedTotal} shown, fewest hits first)`, '')
  for (const f of r.failed) {
    lines.push(`### ${f.edgeId}: ${f.source} —${f.relation}→ ${f.target} (${f.hits} hits)`, '', `Wanted: ${f.targetUrl}`, '')
    for (const q of f.queries)
      lines.push(`- [${q.style}] \`${q.query}\` → ${q.rank > 0 ? `rank ${q.rank}` : 'miss'}; got: ${q.retrieved.join(', ') || '(nothing)'}`)
    lines.push('')
  }
  return lines.join('\n')
}

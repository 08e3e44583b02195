// world/write/write-report: what the writer did, per stage — calls, cache hits, tokens, cost, retries, accepted
// rewrites, fallbacks by reason and failed checks by kind — stored in the world file (write_report) and printed.
import type { Db } from '../../infra/store'

export interface WriteStageReport {
  /** Requests answered by the endpoint in this run. */
  calls: number
  /** Prompts answered from the world's cache (no request). */
  cacheHits: number
  promptTokens: number
  completionTokens: number
  /** Dollars of this run's calls at the configured prices. */
  costUsd: number
  retries: number
  /** Items whose model text passed the checker and replaced the template. */
  accepted: number
  /** Items that kept the template text. */
  fallbacks: number
  /** Fallbacks by reason: budget, refused, or the first failed check's kind. */
  fallbackReasons: Record<string, number>
  /** Failed checks by kind, over every checked reply (one reply can fail several). */
  failedChecks: Record<string, number>
}

export interface WriteReport {
  model: string
  stages: Record<string, WriteStageReport>
  /** Tokens and dollars of every call this world has recorded, earlier runs included. */
  worldSpent?: { tokens: number; dollars: number }
}

export function emptyStageReport(): WriteStageReport {
  return { calls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, retries: 0, accepted: 0, fallbacks: 0, fallbackReasons: {}, failedChecks: {} }
}

export function initWriteReportTable(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS write_report (stage TEXT PRIMARY KEY, report TEXT NOT NULL)')
}

/** Store (replace) the report of one build stage ('write' or 'rephrase'). */
export function saveWriteReport(db: Db, stage: string, report: WriteReport): void {
  db.prepare('INSERT INTO write_report (stage, report) VALUES (?, ?) ON CONFLICT(stage) DO UPDATE SET report = excluded.report').run(stage, JSON.stringify(report))
}

export function clearWriteReport(db: Db, stage: string): void {
  db.prepare('DELETE FROM write_report WHERE stage = ?').run(stage)
}

/** The stored reports of a world by build stage (empty when it was built without a writer). */
export function readWriteReports(db: Db): Record<string, WriteReport> {
  try {
    const rows = db.prepare('SELECT stage, report FROM write_report ORDER BY stage').all() as { stage: string; report: string }[]
    return Object.fromEntries(rows.map((r) => [r.stage, JSON.parse(r.report) as WriteReport]))
  } catch {
    return {} // a world file from before the writer has no write_report table
  }
}

const kv = (m: Record<string, number>) => Object.entries(m).sort().map(([k, v]) => `${k} ${v}`).join(', ') || 'none'

export function formatWriteReport(r: WriteReport): string {
  const lines = [`llm writer (${r.model}):`]
  for (const [name, s] of Object.entries(r.stages))
    lines.push(
      `  ${name}: ${s.calls} calls, ${s.cacheHits} cache hits, ${s.promptTokens} + ${s.completionTokens} tokens, $${s.costUsd.toFixed(4)}, ${s.retries} retries; ` +
        `${s.accepted} rewritten, ${s.fallbacks} kept the template (${kv(s.fallbackReasons)}); failed checks: ${kv(s.failedChecks)}`,
    )
  if (r.worldSpent) lines.push(`  world total: ${r.worldSpent.tokens} tokens, $${r.worldSpent.dollars.toFixed(4)}`)
  return lines.join('\n')
}

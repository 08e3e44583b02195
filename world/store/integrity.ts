// world/store/integrity: is a world file intact? The quick check every open for serving or benching runs (SQLite's
// quick_check: page and b-tree structure, seconds on a large file) and the deep one `world verify --deep` runs
// (integrity_check with index contents, plus the content hash recomputed from the rows and compared with the
// manifest's). Each finding is one line naming what is wrong. Knows nothing of the CLI or of stages beyond the hasher
// it is handed.
import type { Db } from '../../infra/store'

/** SQLite's check pragma as lines ('ok' → []); a file too damaged to run it is one line saying so. */
export function sqliteCheck(db: Db, pragma: 'quick_check' | 'integrity_check', max = 20): string[] {
  try {
    const rows = db.pragma(`${pragma}(${max})`) as Record<string, string>[]
    const lines = rows.map((r) => String(Object.values(r)[0]))
    return lines.length === 1 && lines[0] === 'ok' ? [] : lines
  } catch (e) {
    return [`SQLite cannot read the file: ${(e as Error).message.split('\n')[0]}`]
  }
}

/** Tables whose every row cannot be read (a full scan fails), one line each: where the damage is. */
export function unreadableTables(db: Db): string[] {
  let names: string[]
  try {
    names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name)
  } catch (e) {
    return [`the schema cannot be read: ${(e as Error).message.split('\n')[0]}`]
  }
  const out: string[] = []
  for (const n of names) {
    try {
      for (const _row of db.prepare(`SELECT * FROM "${n.replace(/"/g, '""')}"`).iterate()) void _row
    } catch (e) {
      out.push(`table ${n} cannot be read in full: ${(e as Error).message.split('\n')[0]}`)
    }
  }
  return out
}

export interface DeepReport {
  /** integrity_check's findings (empty when the file is sound). */
  sqlite: string[]
  /** The content hash in the manifest and the one recomputed from the rows (null when it could not be). */
  manifestHash: string | null
  recomputedHash: string | null
  /** Every problem, one line each; empty when the world is intact. */
  problems: string[]
}

/** The deep check: integrity_check, then the content hash recomputed by `hash` and compared with the manifest's. */
export function deepCheck(db: Db, manifestHash: string | null, hash: (db: Db) => string): DeepReport {
  const sqlite = sqliteCheck(db, 'integrity_check', 100)
  const problems = sqlite.map((l) => `SQLite integrity_check: ${l}`)
  if (sqlite.length > 0) problems.push(...unreadableTables(db))
  let recomputed: string | null = null
  try {
    recomputed = hash(db)
  } catch (e) {
    problems.push(`the content hash cannot be recomputed: ${(e as Error).message.split('\n')[0]}`)
  }
  if (manifestHash === null) problems.push('the manifest holds no content hash (an unfinished world)')
  else if (recomputed !== null && recomputed !== manifestHash)
    problems.push(`content hash mismatch: the manifest says ${manifestHash}, the rows hash to ${recomputed} (entities, edges, docs, verification or QA changed since the build)`)
  return { sqlite, manifestHash, recomputedHash: recomputed, problems }
}

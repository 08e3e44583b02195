// world/qa/store: the QA tables of a world file — `qa` (one row per question, split label filled by the split
// stage: 'train' | 'bench' | 'excluded'), `split_stats` (key → JSON) — and typed reads/writes of them.
import { canonicalJson } from '../../infra/hash'
import type { Db } from '../../infra/store'
import type { Qa, QaType, Split } from '../types'

/** 'excluded': dropped by the split for overlap with the bench; 'dropped': the oracle check could not solve it. */
export type StoredSplit = Split | 'excluded' | 'dropped'

export function initQaTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS qa (
      seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, hops INTEGER NOT NULL,
      question TEXT NOT NULL, answer TEXT NOT NULL, aliases_json TEXT NOT NULL, path_json TEXT NOT NULL,
      docs_json TEXT NOT NULL, evidence_json TEXT NOT NULL, meta_json TEXT NOT NULL, split TEXT NOT NULL DEFAULT 'train');
  `)
}

export function initSplitTables(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS split_stats (key TEXT PRIMARY KEY, value_json TEXT NOT NULL);`)
}

export function clearQa(db: Db): void {
  db.exec('DELETE FROM qa')
}

export function insertQa(db: Db, qas: Qa[], onRow?: () => void): void {
  const ins = db.prepare(
    'INSERT INTO qa (seq, id, type, hops, question, answer, aliases_json, path_json, docs_json, evidence_json, meta_json, split) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  qas.forEach((q, i) => {
    ins.run(i, q.id, q.type, q.hops, q.question, q.answer, JSON.stringify(q.aliases), JSON.stringify(q.path), JSON.stringify(q.docs), JSON.stringify(q.evidence), JSON.stringify(q.meta), q.split)
    onRow?.()
  })
}

export interface QaRow {
  id: string
  seq: number
  type: string
  hops: number
  question: string
  answer: string
  aliases_json: string
  path_json: string
  docs_json: string
  evidence_json: string
  meta_json: string
  split: string
}

export function rowToQa(r: QaRow): Qa {
  return {
    id: r.id,
    type: r.type as QaType,
    hops: r.hops,
    question: r.question,
    answer: r.answer,
    aliases: JSON.parse(r.aliases_json) as string[],
    path: JSON.parse(r.path_json) as string[],
    docs: JSON.parse(r.docs_json) as string[],
    evidence: JSON.parse(r.evidence_json) as Qa['evidence'],
    split: r.split as Split,
    meta: JSON.parse(r.meta_json) as Record<string, unknown>,
  }
}

export function hasQaTable(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'qa'").get() !== undefined
}

/** QA of the given splits (default train and bench; 'excluded' rows are conflicts the split dropped), by seq. */
export function readQa(db: Db, splits: StoredSplit[] = ['train', 'bench']): Qa[] {
  if (!hasQaTable(db)) return []
  const rows = db.prepare(`SELECT * FROM qa WHERE split IN (${splits.map(() => '?').join(',')}) ORDER BY seq`).all(...splits) as QaRow[]
  return rows.map(rowToQa)
}

/** The ids of the QA of the given splits, by seq (what readQa would return, without parsing a row). */
export function readQaIds(db: Db, splits: StoredSplit[] = ['train', 'bench']): string[] {
  if (!hasQaTable(db)) return []
  return db.prepare(`SELECT id FROM qa WHERE split IN (${splits.map(() => '?').join(',')}) ORDER BY seq`).pluck().all(...splits) as string[]
}

export function readQaById(db: Db, id: string): (Qa & { stored: StoredSplit }) | undefined {
  if (!hasQaTable(db)) return undefined
  const r = db.prepare('SELECT * FROM qa WHERE id = ?').get(id) as QaRow | undefined
  return r ? { ...rowToQa(r), stored: r.split as StoredSplit } : undefined
}

/** The QA with these ids, in the order given (one pass over the table; undefined where an id is not in it). */
export function readQaByIds(db: Db, ids: readonly string[]): ((Qa & { stored: StoredSplit }) | undefined)[] {
  if (!hasQaTable(db)) return ids.map(() => undefined)
  const at = new Map<string, number>()
  ids.forEach((id, i) => at.set(id, i))
  const out: ((Qa & { stored: StoredSplit }) | undefined)[] = new Array(ids.length).fill(undefined)
  for (const r of db.prepare('SELECT * FROM qa').iterate() as IterableIterator<QaRow>) {
    const i = at.get(r.id)
    if (i !== undefined) out[i] = { ...rowToQa(r), stored: r.split as StoredSplit }
  }
  return out
}

/** Label every QA: rows not in `labels` become 'train' (one UPDATE), the others are set one by one. */
export function setSplitLabels(db: Db, labels: Map<string, StoredSplit>): void {
  db.exec("UPDATE qa SET split = 'train'")
  const up = db.prepare('UPDATE qa SET split = ? WHERE id = ?')
  for (const [id, s] of labels) if (s !== 'train') up.run(s, id)
}

/** The columns the split needs, without parsing evidence and documents. */
export function readQaForSplit(db: Db): Qa[] {
  const rows = db.prepare('SELECT id, type, hops, question, path_json, meta_json FROM qa ORDER BY seq').all() as QaRow[]
  return rows.map((r) => ({
    id: r.id,
    type: r.type as QaType,
    hops: r.hops,
    question: r.question,
    answer: '',
    aliases: [],
    path: JSON.parse(r.path_json) as string[],
    docs: [],
    evidence: [],
    split: 'train',
    meta: JSON.parse(r.meta_json) as Record<string, unknown>,
  }))
}

export function writeSplitStats(db: Db, stats: Record<string, unknown>): void {
  db.exec('DELETE FROM split_stats')
  const ins = db.prepare('INSERT INTO split_stats (key, value_json) VALUES (?, ?)')
  // Canonical JSON: the stats embed config objects whose key order depends on where the config came from.
  for (const k of Object.keys(stats).sort()) ins.run(k, canonicalJson(stats[k]))
}

export function readSplitStats(db: Db): Record<string, unknown> | undefined {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'split_stats'").get() === undefined) return undefined
  const rows = db.prepare('SELECT key, value_json FROM split_stats ORDER BY key').all() as { key: string; value_json: string }[]
  return rows.length ? Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value_json) as unknown])) : undefined
}

/** Counts for `world stats`: train/bench totals, by type and by hop count (train + bench). */
export function qaSummary(db: Db): { train: number; bench: number; excluded: number; dropped: number; byType: Record<string, number>; byHops: Record<string, number> } | undefined {
  if (!hasQaTable(db)) return undefined
  const count = (split: string) => (db.prepare('SELECT COUNT(*) AS n FROM qa WHERE split = ?').get(split) as { n: number }).n
  const byType: Record<string, number> = {}
  for (const r of db.prepare("SELECT type, COUNT(*) AS n FROM qa WHERE split IN ('train','bench') GROUP BY type ORDER BY type").all() as { type: string; n: number }[]) byType[r.type] = r.n
  const byHops: Record<string, number> = {}
  for (const r of db.prepare("SELECT hops, COUNT(*) AS n FROM qa WHERE split IN ('train','bench') GROUP BY hops ORDER BY hops").all() as { hops: number; n: number }[]) byHops[String(r.hops)] = r.n
  return { train: count('train'), bench: count('bench'), excluded: count('excluded'), dropped: count('dropped'), byType, byHops }
}

// world/verify/verify-lookups: retrievability of attribute-value lookups — the step of a Combo 'param' question that
// finds an entity by a value ("the university founded in 1921"). Every (type, year attribute, value) held by exactly
// one entity of the type is a candidate; its lookup queries (noun + label + value, label + value, noun + value,
// value) run at top-K on the world's engine and the rank of the entity's page is stored, like an edge's queries. A
// lookup is kept when at least one query finds the page; QA sampling only uses kept lookups and the oracle searches
// with their queries first. Owns the table lookup_verification.
import type { Db } from '../../infra/store'
import { tx } from '../../infra/store'
import type { SearchIndex } from '../search/types'
import type { EntityTypeSpec } from '../types'

export function initLookupTables(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS lookup_verification (
    entity_id TEXT NOT NULL, attr TEXT NOT NULL, qi INTEGER NOT NULL, query TEXT NOT NULL, rank INTEGER NOT NULL,
    PRIMARY KEY (entity_id, attr, qi)) WITHOUT ROWID;`)
}

/** The queries a reader would type to find the one `noun` whose `label` is `value`, most specific first. */
export function lookupQueries(noun: string, label: string, value: string): string[] {
  return [`${noun} ${label} ${value}`, `${label} ${value}`, `${noun} ${value}`, value]
}

export interface LookupCandidate {
  entityId: string
  attr: string
  url: string
  queries: string[]
}

/** Every value of a year attribute held by exactly one entity of its type, with its lookup queries (sorted). */
export function lookupCandidates(db: Db, types: EntityTypeSpec[]): LookupCandidate[] {
  const yearAttrs = new Map(types.map((t) => [t.name, new Map(t.attributes.filter((a) => a.kind === 'year').map((a) => [a.name, a.label]))]))
  const rows = db
    .prepare('SELECT e.id, e.type, e.url, a.name, a.value FROM attributes a JOIN entities e ON e.id = a.entity_id ORDER BY e.id, a.name')
    .all() as { id: string; type: string; url: string; name: string; value: unknown }[]
  const groups = new Map<string, typeof rows>()
  for (const r of rows) {
    if (!yearAttrs.get(r.type)?.has(r.name)) continue
    const k = `${r.type}\u0000${r.name}\u0000${String(r.value)}`
    const l = groups.get(k)
    if (l) l.push(r)
    else groups.set(k, [r])
  }
  const nouns = new Map(types.map((t) => [t.name, t.noun]))
  const out: LookupCandidate[] = []
  for (const l of groups.values()) {
    if (l.length !== 1) continue
    const r = l[0]
    out.push({ entityId: r.id, attr: r.name, url: r.url, queries: lookupQueries(nouns.get(r.type) ?? r.type.toLowerCase(), yearAttrs.get(r.type)!.get(r.name)!, String(r.value)) })
  }
  return out.sort((a, b) => (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : a.attr < b.attr ? -1 : a.attr > b.attr ? 1 : 0))
}

/** Verify every candidate lookup not verified yet (one transaction per chunk: resumable). Returns lookups kept. */
export async function verifyLookups(db: Db, index: SearchIndex, types: EntityTypeSpec[], topK: number, chunk = 2000): Promise<{ candidates: number; kept: number }> {
  initLookupTables(db)
  const done = new Set((db.prepare('SELECT DISTINCT entity_id || char(0) || attr AS k FROM lookup_verification').pluck().all() as string[]))
  const all = lookupCandidates(db, types)
  const todo = all.filter((c) => !done.has(`${c.entityId}\u0000${c.attr}`))
  const ins = db.prepare('INSERT INTO lookup_verification (entity_id, attr, qi, query, rank) VALUES (?, ?, ?, ?, ?)')
  for (let i = 0; i < todo.length; i += chunk) {
    const part = todo.slice(i, i + chunk)
    const results = await index.searchMany(part.flatMap((c) => c.queries), { k: topK, snippet: false })
    tx(db, () => {
      let at = 0
      for (const c of part)
        c.queries.forEach((q, qi) => {
          const rank = results[at++].findIndex((h) => h.url === c.url) + 1
          ins.run(c.entityId, c.attr, qi, q, rank)
        })
    })
  }
  return { candidates: all.length, kept: keptLookups(db).size }
}

/** `${entityId}\u0000${attr}` of every kept lookup (some query found the page); undefined when never verified. */
export function keptLookups(db: Db): Set<string> {
  return new Set(db.prepare('SELECT DISTINCT entity_id || char(0) || attr FROM lookup_verification WHERE rank > 0').pluck().all() as string[])
}

export function hasLookupVerification(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lookup_verification'").get() !== undefined
}

export function lookupHashRows(db: Db, emit: (row: unknown) => void): void {
  if (!hasLookupVerification(db)) return
  for (const r of db.prepare('SELECT entity_id, attr, qi, query, rank FROM lookup_verification ORDER BY entity_id, attr, qi').raw().iterate()) emit(r)
}

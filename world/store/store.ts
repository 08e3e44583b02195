// world/store/store: the world file's tables (manifest, stages, entities, attributes, edges, docs, doc_facts) and typed
// reads/writes of them. Knows SQL and the world's plain types; knows nothing of how they are generated.
import type { Db } from '../../infra/store'
import type { AttrValue, Doc, DocFact, Edge, Entity } from '../types'

/** The SQLite file inside a world folder. */
export const WORLD_FILE = 'world.db'

export function initManifestTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS stages (name TEXT PRIMARY KEY, status TEXT NOT NULL);
  `)
}

export function initGraphTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS entities (id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL UNIQUE);
    CREATE INDEX IF NOT EXISTS entities_name ON entities(name);
    CREATE INDEX IF NOT EXISTS entities_type ON entities(type);
    CREATE TABLE IF NOT EXISTS attributes (entity_id TEXT NOT NULL, name TEXT NOT NULL, value NOT NULL, PRIMARY KEY (entity_id, name));
    CREATE TABLE IF NOT EXISTS edges (id TEXT PRIMARY KEY, relation TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS edges_source ON edges(source);
    CREATE INDEX IF NOT EXISTS edges_target ON edges(target);
    CREATE INDEX IF NOT EXISTS edges_relation ON edges(relation);
  `)
}

export function initDocTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS docs (url TEXT PRIMARY KEY, entity_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, text TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS doc_facts (url TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL, sentence TEXT NOT NULL, PRIMARY KEY (url, seq));
    CREATE INDEX IF NOT EXISTS doc_facts_ref ON doc_facts(ref);
  `)
}

// ---- manifest ------------------------------------------------------------------------------------------------

export function readManifest(db: Db): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM manifest ORDER BY key').all() as { key: string; value: string }[]
  return Object.fromEntries(rows.map((r) => [r.key, r.value]))
}
export function setManifest(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO manifest (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value)
}
export function stageStatus(db: Db): Record<string, string> {
  const rows = db.prepare('SELECT name, status FROM stages ORDER BY rowid').all() as { name: string; status: string }[]
  return Object.fromEntries(rows.map((r) => [r.name, r.status]))
}
export function setStageStatus(db: Db, name: string, status: 'pending' | 'running' | 'done'): void {
  db.prepare('INSERT INTO stages (name, status) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET status = excluded.status').run(name, status)
}

// ---- graph -----------------------------------------------------------------------------------------------------

export function clearGraph(db: Db): void {
  db.exec('DELETE FROM entities; DELETE FROM attributes; DELETE FROM edges;')
}

export function insertEntities(db: Db, entities: Entity[], onRow?: () => void): void {
  const ins = db.prepare('INSERT INTO entities (id, type, name, url) VALUES (?, ?, ?, ?)')
  const insAttr = db.prepare('INSERT INTO attributes (entity_id, name, value) VALUES (?, ?, ?)')
  for (const e of entities) {
    ins.run(e.id, e.type, e.name, e.url)
    for (const k of Object.keys(e.attrs).sort()) insAttr.run(e.id, k, e.attrs[k])
    onRow?.()
  }
}

export function insertEdges(db: Db, edges: Edge[], onRow?: () => void): void {
  const ins = db.prepare('INSERT INTO edges (id, relation, source, target) VALUES (?, ?, ?, ?)')
  for (const e of edges) {
    ins.run(e.id, e.relation, e.source, e.target)
    onRow?.()
  }
}

interface EntityRow { id: string; type: string; name: string; url: string }
interface AttrRow { entity_id: string; name: string; value: AttrValue }

function attachAttrs(rows: EntityRow[], attrs: AttrRow[]): Entity[] {
  const m = new Map<string, Entity>(rows.map((r) => [r.id, { id: r.id, type: r.type, name: r.name, url: r.url, attrs: {} }]))
  for (const a of attrs) {
    const e = m.get(a.entity_id)
    if (e) e.attrs[a.name] = a.value
  }
  return rows.map((r) => m.get(r.id)!)
}

/** Every entity with its attributes, ordered by id. */
export function readEntities(db: Db): Entity[] {
  const rows = db.prepare('SELECT id, type, name, url FROM entities ORDER BY id').all() as EntityRow[]
  const attrs = db.prepare('SELECT entity_id, name, value FROM attributes ORDER BY entity_id, name').all() as AttrRow[]
  return attachAttrs(rows, attrs)
}

/** Prepared statements per open database: point reads are called per question and step, preparing is the cost. */
const stmtCache = new WeakMap<Db, Map<string, ReturnType<Db['prepare']>>>()
function cached(db: Db, sql: string): ReturnType<Db['prepare']> {
  let m = stmtCache.get(db)
  if (!m) stmtCache.set(db, (m = new Map()))
  let st = m.get(sql)
  if (!st) m.set(sql, (st = db.prepare(sql)))
  return st
}

/** Entities matching one column (id, url or name), with attributes. */
export function readEntitiesWhere(db: Db, column: 'id' | 'url' | 'name' | 'type', value: string): Entity[] {
  const rows = cached(db, `SELECT id, type, name, url FROM entities WHERE ${column} = ? ORDER BY id`).all(value) as EntityRow[]
  if (rows.length === 0) return []
  const get = cached(db, 'SELECT entity_id, name, value FROM attributes WHERE entity_id = ? ORDER BY name')
  return attachAttrs(rows, rows.flatMap((r) => get.all(r.id) as AttrRow[]))
}

/** Every edge, ordered by id. */
export function readEdges(db: Db): Edge[] {
  return db.prepare('SELECT id, relation, source, target FROM edges ORDER BY id').all() as Edge[]
}

export function readEdgesWhere(db: Db, column: 'id' | 'source' | 'target' | 'relation', value: string): Edge[] {
  return cached(db, `SELECT id, relation, source, target FROM edges WHERE ${column} = ? ORDER BY id`).all(value) as Edge[]
}

// ---- docs ------------------------------------------------------------------------------------------------------

export function clearDocs(db: Db): void {
  db.exec('DELETE FROM docs; DELETE FROM doc_facts;')
}

export function insertDocs(db: Db, docs: Doc[], onRow?: () => void): void {
  const ins = db.prepare('INSERT INTO docs (url, entity_id, title, text) VALUES (?, ?, ?, ?)')
  const insFact = db.prepare('INSERT INTO doc_facts (url, seq, kind, ref, sentence) VALUES (?, ?, ?, ?, ?)')
  for (const d of docs) {
    ins.run(d.url, d.entityId, d.title, d.text)
    d.facts.forEach((f, i) => insFact.run(d.url, i, f.kind, f.ref, f.sentence))
    onRow?.()
  }
}

interface DocRow { url: string; entity_id: string; title: string; text: string }

export function readDocWhere(db: Db, column: 'url' | 'entity_id', value: string): Doc | undefined {
  const row = cached(db, `SELECT url, entity_id, title, text FROM docs WHERE ${column} = ?`).get(value) as DocRow | undefined
  if (!row) return undefined
  const facts = cached(db, 'SELECT kind, ref, sentence FROM doc_facts WHERE url = ? ORDER BY seq').all(row.url) as DocFact[]
  return { url: row.url, entityId: row.entity_id, title: row.title, text: row.text, facts }
}

/** Iterate all documents (with facts) ordered by url, without holding them all in memory. */
export function* iterateDocs(db: Db): Generator<Doc> {
  const factStmt = db.prepare('SELECT kind, ref, sentence FROM doc_facts WHERE url = ? ORDER BY seq')
  const rows = db.prepare('SELECT url, entity_id, title, text FROM docs ORDER BY url').all() as DocRow[]
  for (const r of rows) yield { url: r.url, entityId: r.entity_id, title: r.title, text: r.text, facts: factStmt.all(r.url) as DocFact[] }
}

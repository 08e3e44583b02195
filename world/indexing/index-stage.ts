// world/indexing/index-stage: build stage 'index' — puts the world's documents into the configured search engine
// (embedded BM25 in memory, SQLite FTS5, or Meilisearch) and records which engine holds which documents.
// The embedded index is rebuilt from the docs table whenever a world is opened; nothing else is persisted here.
import type { Db } from '../../infra/store'
import { denseOf, saveDenseVectors, type DenseRecord } from '../search/dense-store'
import { docsDigest, readSearchDocs } from './open'
import type { Stage } from '../stage'
import { stageSearchIndex } from './search-handle'

export interface SearchIndexRecord {
  engine: string
  docs: number
  /** Digest of the indexed documents (url, title, text). */
  digest: string
  /** Dense/hybrid: the embedder (name + file hash) and a digest of the passage vectors stored in the world file. */
  dense?: DenseRecord
}

export function initSearchIndexTable(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS search_index (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
}

export function readSearchIndexRecord(db: Db): SearchIndexRecord | undefined {
  initSearchIndexTable(db)
  const row = db.prepare(`SELECT value FROM search_index WHERE key = 'record'`).get() as { value: string } | undefined
  return row ? (JSON.parse(row.value) as SearchIndexRecord) : undefined
}

export const indexStage: Stage = {
  name: 'index',
  init(db) {
    initSearchIndexTable(db)
  },
  async run(ctx) {
    const t0 = performance.now()
    const index = await stageSearchIndex(ctx)
    const docs = readSearchDocs(ctx.db)
    const record: SearchIndexRecord = { engine: index.engine, docs: docs.length, digest: docsDigest(docs) }
    const dense = denseOf(index)
    if (dense) record.dense = saveDenseVectors(ctx.db, dense)
    ctx.db.prepare(`INSERT OR REPLACE INTO search_index (key, value) VALUES ('record', ?)`).run(JSON.stringify(record))
    ctx.log(`index: ${docs.length} documents in engine ${index.engine} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
  },
  hashRows(db, emit) {
    emit(readSearchIndexRecord(db) ?? null)
  },
}

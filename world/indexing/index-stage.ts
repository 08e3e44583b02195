// world/indexing/index-stage: build stage 'index' — puts the world's documents into the configured search engine
// (embedded BM25 in memory, SQLite FTS5, or Meilisearch) and records which engine holds which documents.
// The embedded and SQLite indexes are rebuilt from the docs table whenever a world is opened: for them this stage
// only records the engine and a digest of the documents (the index is built where it is searched).
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

/** Engines whose index lives in memory only, rebuilt from the docs table on open (nothing to put anywhere here). */
const IN_MEMORY_ENGINES: readonly string[] = ['embedded', 'sqlite']

export const indexStage: Stage = {
  name: 'index',
  init(db) {
    initSearchIndexTable(db)
  },
  async run(ctx) {
    const t0 = performance.now()
    const docs = readSearchDocs(ctx.db)
    const record: SearchIndexRecord = { engine: ctx.config.search.engine, docs: docs.length, digest: docsDigest(docs) }
    // The in-memory engines are rebuilt from the docs table by whoever searches (verification's workers, the gym):
    // building one here too would only be thrown away (at 10× ~5 s and ~0.3 GB held through verification).
    if (!IN_MEMORY_ENGINES.includes(ctx.config.search.engine)) {
      const index = await stageSearchIndex(ctx)
      record.engine = index.engine
      const dense = denseOf(index)
      if (dense) record.dense = saveDenseVectors(ctx.db, dense)
    }
    ctx.db.prepare(`INSERT OR REPLACE INTO search_index (key, value) VALUES ('record', ?)`).run(JSON.stringify(record))
    ctx.log(`index: ${docs.length} documents in engine ${record.engine} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
  },
  hashRows(db, emit) {
    emit(readSearchIndexRecord(db) ?? null)
  },
}

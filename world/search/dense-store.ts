// world/search/dense-store: passage vectors of the dense/hybrid engines inside the world file (so a world stays one
// file and its content hash covers them) — tables dense_vectors (url, passage, vector as little-endian float32) and
// dense_embedder (the embedder's identity + passage length). Also opens the dense/hybrid index a world serves.
import { SearchError } from '../../infra/errors'
import { ContentHasher } from '../../infra/hash'
import { tx, type Db } from '../../infra/store'
import { DenseIndex } from './dense'
import { Embedder, type EmbedderIdentity } from './embed/embedder'
import { EmbeddedIndex } from './embedded'
import { HybridIndex } from './hybrid'
import type { SearchDoc, SearchIndex } from './types'

/** What a world records about its vectors. */
export interface DenseRecord {
  embedder: EmbedderIdentity
  passageWords: number
  passages: number
  /** Digest over (url, passage, vector bytes) in url order. */
  vectorsDigest: string
}

function tableExists(db: Db, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
}

export function initDenseTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS dense_vectors (url TEXT NOT NULL, passage INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (url, passage)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS dense_embedder (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `)
}

export function readDenseRecord(db: Db): DenseRecord | undefined {
  if (!tableExists(db, 'dense_embedder')) return undefined
  const row = db.prepare(`SELECT value FROM dense_embedder WHERE key = 'record'`).get() as { value: string } | undefined
  return row ? (JSON.parse(row.value) as DenseRecord) : undefined
}

const toBlob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength)
const fromBlob = (b: Buffer): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))

/** The dense side of an index (a DenseIndex itself, or a hybrid's). */
export function denseOf(index: SearchIndex): DenseIndex | undefined {
  if (index instanceof DenseIndex) return index
  if (index instanceof HybridIndex) return index.dense
  return undefined
}

/** Replace the world's stored vectors with the index's; returns the record written. */
export function saveDenseVectors(db: Db, dense: DenseIndex): DenseRecord {
  initDenseTables(db)
  const entries = [...dense.entries()].sort((a, b) => (a[0].url < b[0].url ? -1 : a[0].url > b[0].url ? 1 : 0))
  const h = new ContentHasher()
  let passages = 0
  const ins = db.prepare('INSERT INTO dense_vectors (url, passage, vector) VALUES (?, ?, ?)')
  const record = tx(db, () => {
    db.exec('DELETE FROM dense_vectors; DELETE FROM dense_embedder;')
    for (const [doc, vs] of entries) {
      vs.forEach((v, i) => {
        const blob = toBlob(v)
        ins.run(doc.url, i, blob)
        h.row([doc.url, i, blob.toString('base64')])
        passages++
      })
    }
    const rec: DenseRecord = { embedder: dense.identity, passageWords: dense.passageWords, passages, vectorsDigest: h.digest() }
    db.prepare(`INSERT INTO dense_embedder (key, value) VALUES ('record', ?)`).run(JSON.stringify(rec))
    return rec
  })
  return record
}

/** The stored passage vectors of `docs` (undefined for a doc without any). */
export function loadDenseVectors(db: Db, docs: SearchDoc[]): (Float32Array[] | undefined)[] {
  const byUrl = new Map<string, Float32Array[]>()
  for (const r of db.prepare('SELECT url, passage, vector FROM dense_vectors ORDER BY url, passage').iterate() as IterableIterator<{ url: string; passage: number; vector: Buffer }>) {
    let list = byUrl.get(r.url)
    if (!list) byUrl.set(r.url, (list = []))
    list.push(fromBlob(r.vector))
  }
  return docs.map((d) => byUrl.get(d.url))
}

export interface OpenDenseOptions {
  engine: 'dense' | 'hybrid'
  /** The embedder model directory. */
  embedderDir: string | undefined
  /** Serve even if the embedder differs from the one the world's vectors were made with (re-embeds in memory). */
  allowEngineMismatch?: boolean
  quiet?: boolean
}

/**
 * The dense or hybrid index of a world's documents: the stored vectors when the world has them for this very
 * embedder (name + file hash), else embedded now (in memory; the index stage saves them). A world whose vectors were
 * made with another embedder is refused unless allowEngineMismatch.
 */
export async function openDenseForDocs(db: Db, docs: SearchDoc[], opts: OpenDenseOptions): Promise<SearchIndex> {
  if (!opts.embedderDir)
    throw new SearchError('search.embedder', `the ${opts.engine} engine needs an embedder model directory (--embedder DIR: model.onnx + tokenizer.json)`)
  const embedder = await Embedder.load(opts.embedderDir)
  const dense = new DenseIndex(embedder, { quiet: opts.quiet })
  try {
    const rec = readDenseRecord(db)
    const same = rec !== undefined && rec.embedder.fileHash === embedder.identity.fileHash && rec.passageWords === dense.passageWords
    if (rec && !same && !opts.allowEngineMismatch) {
      throw new SearchError(
        'search.embedder_mismatch',
        `this world's vectors were made with embedder '${rec.embedder.name}' (${rec.embedder.fileHash.slice(0, 12)}), not '${embedder.identity.name}' ` +
          `(${embedder.identity.fileHash.slice(0, 12)}) from ${opts.embedderDir}: give that model, or --allow-engine-mismatch to re-embed`,
      )
    }
    const stored = same ? loadDenseVectors(db, docs) : []
    if (same && stored.every((v) => v !== undefined)) dense.setVectors(docs, stored as Float32Array[][])
    else await dense.upsert(docs)
  } catch (e) {
    await dense.close()
    throw e
  }
  if (opts.engine === 'dense') return dense
  const lexical = new EmbeddedIndex()
  lexical.upsertSync(docs)
  return new HybridIndex(lexical, dense)
}

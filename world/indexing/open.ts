// world/indexing/open: the search index a world serves — the engine it was verified with, holding its documents.
// Embedded/sqlite are rebuilt from the docs table in memory; Meilisearch reuses an index on --meili-url when it
// already holds these docs, else (re)indexes them; without a URL it starts the project's own local server.
// Dense/hybrid read their passage vectors from the world file (world/search/dense-store). Serving a world with an
// engine other than the one it was verified with is refused unless allowEngineMismatch.
import { SearchError } from '../../infra/errors'
import { ContentHasher } from '../../infra/hash'
import type { Db } from '../../infra/store'
import type { WorldConfig } from '../config'
import { openWorld } from '../store/open'
import { openDenseForDocs } from '../search/dense-store'
import { EmbeddedIndex } from '../search/embedded'
import { isEngineName, ENGINE_NAMES, type EngineName } from '../search/engine-names'
import { MeiliIndex } from '../search/meilisearch'
import { startMeiliServer } from '../search/meili-server'
import { SqliteFtsIndex } from '../search/sqlite-fts'
import type { SearchDoc, SearchIndex } from '../search/types'

/** What openSearchIndex needs of a world (World from world/open satisfies it). */
export interface WorldLike {
  db: Db
  config: WorldConfig
}

export interface OpenSearchOptions {
  /** Override the engine (default: the one verification used, else config.search.engine). */
  engine?: EngineName
  /** Override config.search.meiliUrl. */
  meiliUrl?: string
  /** API key (default: the environment variable named by config.search.meiliKeyEnv). */
  meiliKey?: string
  /** Meilisearch: re-index even if the index already holds the documents. */
  reindex?: boolean
  /** Dense/hybrid: the embedder model directory (default config.search.embedder). */
  embedder?: string
  /**
   * Serve with an engine (or embedder) other than the one the world was verified with. Without it such a request is
   * refused: the world's edges were verified retrievable with its own engine only.
   */
  allowEngineMismatch?: boolean
  /** No progress output while embedding. */
  quiet?: boolean
}

/** All documents of a world, ordered by url. */
export function readSearchDocs(db: Db): SearchDoc[] {
  return db.prepare('SELECT url, title, text FROM docs ORDER BY url').all() as SearchDoc[]
}

/** A digest of the documents (names the Meilisearch index of these docs). */
export function docsDigest(docs: SearchDoc[]): string {
  const h = new ContentHasher()
  for (const d of docs) h.row([d.url, d.title, d.text])
  return h.digest()
}

/** The engine the world's verification used (undefined when not verified yet). */
export function verifiedEngine(world: WorldLike): string | undefined {
  try {
    const row = world.db.prepare(`SELECT value FROM verification_settings WHERE key = 'settings'`).get() as { value: string } | undefined
    return row ? (JSON.parse(row.value) as { engine: string }).engine : undefined
  } catch {
    return undefined // not verified yet: no table
  }
}

/** The engine a world serves: the one its verification used, else its configured one. */
export function worldEngine(world: WorldLike): EngineName {
  const engine = verifiedEngine(world) ?? world.config.search.engine
  if (!isEngineName(engine))
    throw new SearchError('search.engine', `world search engine '${engine}' is unknown (known: ${ENGINE_NAMES.join(', ')})`)
  return engine
}

/**
 * The search index of a world — a world folder (opened read-only just to read the docs) or an open world handle:
 * the engine the world was verified with, holding its documents. Close it when done (stops a local Meilisearch).
 */
export async function openSearchIndex(world: WorldLike | string, opts: OpenSearchOptions = {}): Promise<SearchIndex> {
  if (typeof world === 'string') {
    const w = openWorld(world, { allowIncomplete: true })
    try {
      return await openSearchIndex(w, opts)
    } finally {
      w.close()
    }
  }
  const verified = verifiedEngine(world)
  const engine = opts.engine ?? worldEngine(world)
  if (verified !== undefined && engine !== verified && !opts.allowEngineMismatch)
    throw new SearchError(
      'search.engine_mismatch',
      `this world was verified with the ${verified} engine, not ${engine}: its edges are only known to be retrievable with ${verified} (pass --allow-engine-mismatch, in gym serve --set allowEngineMismatch=true, to serve it anyway)`,
    )
  const docs = readSearchDocs(world.db)
  switch (engine) {
    case 'dense':
    case 'hybrid':
      return openDenseForDocs(world.db, docs, {
        engine,
        embedderDir: opts.embedder ?? world.config.search.embedder,
        allowEngineMismatch: opts.allowEngineMismatch,
        quiet: opts.quiet,
      })
    case 'embedded': {
      const idx = new EmbeddedIndex()
      idx.upsertSync(docs)
      return idx
    }
    case 'sqlite': {
      const idx = new SqliteFtsIndex()
      await idx.upsert(docs)
      return idx
    }
    case 'meilisearch':
      return openMeiliForDocs(world, docs, opts)
  }
}

async function openMeiliForDocs(world: WorldLike, docs: SearchDoc[], opts: OpenSearchOptions): Promise<MeiliIndex> {
  const uid = `searchgym_${docsDigest(docs).slice(0, 16)}`
  const url = opts.meiliUrl ?? world.config.search.meiliUrl
  if (url) {
    const key = opts.meiliKey ?? process.env[world.config.search.meiliKeyEnv]
    const idx = await MeiliIndex.open({ url, apiKey: key, indexUid: uid, fresh: opts.reindex })
    try {
      if (opts.reindex || (await idx.count()) !== docs.length) await idx.upsert(docs)
      return idx
    } catch (e) {
      await idx.close()
      throw e
    }
  }
  const server = await startMeiliServer()
  try {
    const idx = await MeiliIndex.open({ url: server.url, apiKey: server.masterKey, indexUid: uid, fresh: true, server })
    await idx.upsert(docs)
    return idx
  } catch (e) {
    await server.stop()
    throw e
  }
}

// world/search/engines: the engine names a world can be configured with, and a factory for an empty index of one.
// Knows nothing of worlds; see world/search/open for "the index a world was verified with".
import { SearchError } from '../../infra/errors'
import { DenseIndex } from './dense'
import { Embedder } from './embed/embedder'
import { EmbeddedIndex } from './embedded'
import { HybridIndex } from './hybrid'
import { MeiliIndex } from './meilisearch'
import { startMeiliServer } from './meili-server'
import { SqliteFtsIndex } from './sqlite-fts'
import type { SearchIndex } from './types'

import { ENGINE_NAMES, type EngineName } from './engine-names'

export { ENGINE_NAMES, isEngineName, needsEmbedder, type EngineName } from './engine-names'

export interface CreateIndexOptions {
  engine: EngineName
  /** Meilisearch: URL of a running server; empty/absent = start the project's own local server (owned by the index). */
  meiliUrl?: string
  /** Meilisearch: API key for meiliUrl. */
  meiliKey?: string
  /** Meilisearch: index uid (default 'searchgym'). */
  indexUid?: string
  /** Dense/hybrid: the embedder model directory (model.onnx + tokenizer.json). */
  embedder?: string
}

/** A new, empty index of the given engine. */
export async function createSearchIndex(opts: CreateIndexOptions): Promise<SearchIndex> {
  switch (opts.engine) {
    case 'embedded':
      return new EmbeddedIndex()
    case 'sqlite':
      return new SqliteFtsIndex()
    case 'meilisearch': {
      const uid = opts.indexUid ?? 'searchgym'
      if (opts.meiliUrl) return MeiliIndex.open({ url: opts.meiliUrl, apiKey: opts.meiliKey, indexUid: uid, fresh: true })
      const server = await startMeiliServer()
      try {
        return await MeiliIndex.open({ url: server.url, apiKey: server.masterKey, indexUid: uid, fresh: true, server })
      } catch (e) {
        await server.stop()
        throw e
      }
    }
    case 'dense':
    case 'hybrid': {
      if (!opts.embedder) throw new SearchError('search.embedder', `the ${opts.engine} engine needs an embedder model directory (model.onnx + tokenizer.json)`)
      const dense = new DenseIndex(await Embedder.load(opts.embedder))
      return opts.engine === 'dense' ? dense : new HybridIndex(new EmbeddedIndex(), dense)
    }
    default:
      throw new SearchError('search.engine', `unknown search engine '${String(opts.engine)}' (known: ${ENGINE_NAMES.join(', ')})`)
  }
}

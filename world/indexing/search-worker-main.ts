// world/indexing/search-worker-main: one search worker — opens a world folder read-only, builds its own copy of the
// world's (embedded or SQLite) index from the docs table, then answers {queries, opts} with the hits of each query (infra/worker-serve).
import { serveWorker } from '../../infra/worker-serve'
import { openSearchIndex } from './open'
import type { EngineName } from '../search/engine-names'
import type { SearchHit, SearchOptions } from '../search/types'

export interface SearchWorkerData {
  dir: string
  engine: EngineName
}
export type SearchWorkerRequest = { queries: string[]; opts: SearchOptions }

serveWorker<SearchWorkerData, SearchWorkerRequest, SearchHit[][]>(async (data) => {
  const idx = await openSearchIndex(data.dir, { engine: data.engine, allowEngineMismatch: true, quiet: true })
  return { handle: (m) => idx.searchMany(m.queries, m.opts) }
})

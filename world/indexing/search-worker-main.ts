// world/indexing/search-worker-main: one search worker — opens a world folder read-only, builds its own copy of the
// world's (embedded or SQLite) index from the docs table, then answers {id, queries, opts} with the hits of each query.
import { parentPort, workerData } from 'node:worker_threads'
import { openSearchIndex } from './open'
import { openWorld } from '../store/open'
import type { EngineName } from '../search/engine-names'
import type { SearchOptions } from '../search/types'

export interface SearchWorkerData {
  dir: string
  engine: EngineName
}
export type SearchWorkerRequest = { id: number; queries: string[]; opts: SearchOptions }
export type SearchWorkerReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'result'; id: number; hits: { url: string; title: string; snippet: string; score: number }[][] }
  | { kind: 'error'; id: number; message: string }

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as SearchWorkerData
  const w = openWorld(data.dir, { allowIncomplete: true })
  let index
  try {
    index = await openSearchIndex(w, { engine: data.engine, allowEngineMismatch: true, quiet: true })
  } finally {
    w.close()
  }
  const idx = index
  port.on('message', (m: SearchWorkerRequest | 'close') => {
    if (m === 'close') {
      void idx.close().finally(() => port.close())
      return
    }
    idx.searchMany(m.queries, m.opts).then(
      (hits) => port.postMessage({ kind: 'result', id: m.id, hits } satisfies SearchWorkerReply),
      (e: unknown) => port.postMessage({ kind: 'error', id: m.id, message: e instanceof Error ? e.message : String(e) } satisfies SearchWorkerReply),
    )
  })
  port.postMessage({ kind: 'ready' } satisfies SearchWorkerReply)
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies SearchWorkerReply))

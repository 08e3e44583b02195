// gym/retrieve-worker-main: one retrieve worker thread — opens a world folder read-only, builds its own copy of the
// world's (embedded or SQLite) index, and answers {id, queries, topk, withScores, unit} with the JSON text of those
// queries' /retrieve result lists, pages or passages (searched and serialised here, so the server's thread only forwards text).
import { parentPort, workerData } from 'node:worker_threads'
import { openSearchIndex, openWorld, type EngineName } from '../world'
import { gymWorldFromIndex } from './index-world'
import { passageRetriever, type PassageRetriever, type RetrieveUnit } from './passages'
import { sliceJson } from './retrieve-batch'

export interface RetrieveWorkerData {
  dir: string
  engine: EngineName
}
export type RetrieveWorkerRequest = { id: number; queries: string[]; topk: number; withScores: boolean; unit: RetrieveUnit }
export type RetrieveWorkerReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'result'; id: number; json: string }
  | { kind: 'error'; id: number; message: string }

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as RetrieveWorkerData
  const w = openWorld(data.dir, { allowIncomplete: true })
  let index
  try {
    index = await openSearchIndex(w, { engine: data.engine, allowEngineMismatch: true, quiet: true })
  } finally {
    w.close()
  }
  const world = gymWorldFromIndex('worker', index, [])
  let passages: PassageRetriever | undefined
  port.on('message', (m: RetrieveWorkerRequest) => {
    const unit = m.unit === 'passage' ? (passages ??= passageRetriever(world)) : undefined
    sliceJson(world, m.queries, m.topk, m.withScores, unit).then(
      (json) => port.postMessage({ kind: 'result', id: m.id, json } satisfies RetrieveWorkerReply),
      (e: unknown) => port.postMessage({ kind: 'error', id: m.id, message: e instanceof Error ? e.message : String(e) } satisfies RetrieveWorkerReply),
    )
  })
  port.postMessage({ kind: 'ready' } satisfies RetrieveWorkerReply)
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies RetrieveWorkerReply))

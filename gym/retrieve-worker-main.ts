// gym/retrieve-worker-main: one retrieve worker thread — opens a world folder read-only, builds its own copy of the
// world's (embedded or SQLite) index, and answers {queries, topk, withScores, unit} (infra/worker-serve) with the JSON text of those
// queries' /retrieve result lists, pages or passages (searched and serialised here, so the server's thread only forwards text).
import { serveWorker } from '../infra/worker-serve'
import { openSearchIndex, type EngineName, type RetrieveUnit } from '../world'
import { gymWorldFromIndex } from './index-world'
import { passageRetriever, type PassageRetriever } from './passages'
import { sliceJson } from './retrieve-batch'

export interface RetrieveWorkerData {
  dir: string
  engine: EngineName
}
export type RetrieveWorkerRequest = { queries: string[]; topk: number; withScores: boolean; unit: RetrieveUnit }

serveWorker<RetrieveWorkerData, RetrieveWorkerRequest, string>(async (data) => {
  const index = await openSearchIndex(data.dir, { engine: data.engine, allowEngineMismatch: true, quiet: true })
  const world = gymWorldFromIndex('worker', index, [])
  let passages: PassageRetriever | undefined
  return {
    handle(m) {
      const unit = m.unit === 'passage' ? (passages ??= passageRetriever(world)) : undefined
      return sliceJson(world, m.queries, m.topk, m.withScores, unit)
    },
  }
})

// gym/retrieve-workers: RetrieveWorkers — worker threads over a world folder, each with its own read-only copy of the
// world's index, that answer whole /retrieve slices (search + page text or passages + JSON) off the server's event loop; slices go
// to the least busy thread. Only engines that rebuild from the world file (embedded, sqlite) can be shared this way.
// Knows nothing of HTTP.
import { SearchError } from '../infra/errors'
import { workerEntry } from '../infra/worker-bundle'
import { WorkerPool } from '../infra/worker-pool'
import { workerResourceLimits } from '../infra/workers'
import { POOLABLE_ENGINES, type EngineName, type RetrieveUnit } from '../world'
import type { SliceAnswerer } from './world-view'
import type { RetrieveWorkerData, RetrieveWorkerRequest } from './retrieve-worker-main'

export class RetrieveWorkers implements SliceAnswerer {
  private constructor(private readonly pool: WorkerPool<RetrieveWorkerRequest, string>) {}

  get threads(): number {
    return this.pool.size
  }

  /** Start `n` threads over the world folder `dir` and wait until each has built its index. */
  static async start(dir: string, engine: EngineName, n: number): Promise<RetrieveWorkers> {
    if (!POOLABLE_ENGINES.includes(engine)) throw new SearchError('search.retrieve_workers', `the ${engine} engine cannot be shared over worker threads (only ${POOLABLE_ENGINES.join(', ')})`)
    const pool = await WorkerPool.start<RetrieveWorkerRequest, string, never, RetrieveWorkerData>({
      name: 'retrieve worker',
      entry: await workerEntry(new URL('./retrieve-worker-main.ts', import.meta.url), new URL('./retrieve-worker.mjs', import.meta.url)),
      size: n,
      data: () => ({ dir, engine }),
      resourceLimits: workerResourceLimits(),
      error: (m, phase) =>
        phase === 'start'
          ? new SearchError('search.retrieve_workers', `a retrieve worker could not open the world: ${m}`)
          : phase === 'pool'
            ? new SearchError('search.retrieve_workers', m)
            : new SearchError('search.retrieve_worker', phase === 'call' ? `a retrieve worker failed: ${m}` : m),
    })
    return new RetrieveWorkers(pool)
  }

  /** One slice, to the least busy live thread. */
  sliceJson(queries: string[], topk: number, withScores: boolean, unit: RetrieveUnit = 'page'): Promise<string> {
    return this.pool.call({ queries, topk, withScores, unit })
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}

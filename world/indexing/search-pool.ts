// world/indexing/search-pool: SearchPool — a SearchIndex whose searchMany splits a batch of queries over worker threads,
// each holding its own copy of a world's embedded or SQLite index (built from the world file), and returns the hits
// in query order: the same answers as one index, on every core. Only searchMany is served (what verification needs);
// documents are not held in this thread.
import { SearchError } from '../../infra/errors'
import { workerEntry } from '../../infra/worker-bundle'
import { WorkerPool } from '../../infra/worker-pool'
import { workerResourceLimits } from '../../infra/workers'
import type { EngineName } from '../search/engine-names'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from '../search/types'
import type { SearchWorkerData, SearchWorkerRequest } from './search-worker-main'

/** Engines a worker can rebuild alone from the world file (a server or an embedder is not started per worker). */
export const POOLABLE_ENGINES: readonly EngineName[] = ['embedded', 'sqlite']

export class SearchPool implements SearchIndex {
  private closed = false
  private constructor(
    readonly engine: string,
    private readonly pool: WorkerPool<SearchWorkerRequest, SearchHit[][]>,
  ) {}

  /** Start `n` workers over the world folder `dir` and wait until each has built its index. */
  static async start(dir: string, engine: EngineName, n: number): Promise<SearchPool> {
    if (!POOLABLE_ENGINES.includes(engine)) throw new SearchError('search.pool', `the ${engine} engine cannot be shared over worker threads (only ${POOLABLE_ENGINES.join(', ')})`)
    const pool = await WorkerPool.start<SearchWorkerRequest, SearchHit[][], never, SearchWorkerData>({
      name: 'search worker',
      entry: await workerEntry(new URL('./search-worker-main.ts', import.meta.url), new URL('./search-worker.mjs', import.meta.url)),
      size: n,
      data: () => ({ dir, engine }),
      resourceLimits: workerResourceLimits(),
      error: (m, phase) =>
        new SearchError(phase === 'pool' ? 'search.pool' : 'search.worker', phase === 'start' ? `a search worker could not open the world: ${m}` : phase === 'call' ? `a search worker failed: ${m}` : m),
    })
    return new SearchPool(engine, pool)
  }

  get size(): number {
    return this.pool.size
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    if (this.closed) throw new SearchError('search.closed', 'the search pool is closed')
    const n = this.pool.size
    const per = Math.ceil(queries.length / n)
    const parts = await Promise.all(Array.from({ length: n }, (_, i) => (i * per < queries.length ? this.pool.call({ queries: queries.slice(i * per, (i + 1) * per), opts }, { worker: i }) : Promise.resolve([]))))
    return parts.flat()
  }

  async search(query: string, opts?: SearchOptions): Promise<SearchHit[]> {
    return (await this.searchMany([query], opts))[0]
  }

  async upsert(_docs: SearchDoc[]): Promise<void> {
    throw new SearchError('search.pool', 'a search pool is read-only (its workers index the world file)')
  }

  async get(_url: string): Promise<SearchDoc | undefined> {
    throw new SearchError('search.pool', 'a search pool serves searchMany only')
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.pool.close()
  }
}

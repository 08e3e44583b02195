// world/indexing/search-pool: SearchPool — a SearchIndex whose searchMany splits a batch of queries over worker threads,
// each holding its own copy of a world's embedded or SQLite index (built from the world file), and returns the hits
// in query order: the same answers as one index, on every core. Only searchMany is served (what verification needs);
// documents are not held in this thread.
import { Worker } from 'node:worker_threads'
import { SearchError } from '../../infra/errors'
import { workerEntry } from '../../infra/worker-bundle'
import { workerResourceLimits } from '../../infra/workers'
import type { EngineName } from '../search/engine-names'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from '../search/types'
import type { SearchWorkerData, SearchWorkerReply, SearchWorkerRequest } from './search-worker-main'

/** Engines a worker can rebuild alone from the world file (a server or an embedder is not started per worker). */
export const POOLABLE_ENGINES: readonly EngineName[] = ['embedded', 'sqlite']

interface Pending {
  resolve: (hits: SearchHit[][]) => void
  reject: (e: Error) => void
}

class PoolWorker {
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private dead?: Error
  constructor(readonly worker: Worker) {
    worker.on('message', (m: SearchWorkerReply) => {
      if (m.kind !== 'result' && m.kind !== 'error') return
      const p = this.pending.get(m.id)
      if (!p) return
      this.pending.delete(m.id)
      if (m.kind === 'result') p.resolve(m.hits)
      else p.reject(new SearchError('search.worker', `a search worker failed: ${m.message}`))
    })
    const fail = (e: Error) => {
      this.dead = e
      for (const p of this.pending.values()) p.reject(e)
      this.pending.clear()
    }
    worker.on('error', (e) => fail(new SearchError('search.worker', `a search worker failed: ${e.message}`)))
    worker.on('exit', (code) => fail(new SearchError('search.worker', `a search worker exited (code ${code})`)))
  }
  search(queries: string[], opts: SearchOptions): Promise<SearchHit[][]> {
    if (this.dead) return Promise.reject(this.dead)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage({ id, queries, opts } satisfies SearchWorkerRequest)
    })
  }
}

export class SearchPool implements SearchIndex {
  private closed = false
  private constructor(readonly engine: string, private readonly workers: PoolWorker[]) {}

  /** Start `n` workers over the world folder `dir` and wait until each has built its index. */
  static async start(dir: string, engine: EngineName, n: number): Promise<SearchPool> {
    if (!POOLABLE_ENGINES.includes(engine)) throw new SearchError('search.pool', `the ${engine} engine cannot be shared over worker threads (only ${POOLABLE_ENGINES.join(', ')})`)
    const started = await Promise.allSettled(Array.from({ length: n }, () => startWorker({ dir, engine })))
    const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    const bad = started.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined
    if (bad) {
      await Promise.all(ok.map((w) => w.terminate()))
      throw bad.reason instanceof Error ? bad.reason : new SearchError('search.worker', String(bad.reason))
    }
    return new SearchPool(engine, ok.map((w) => new PoolWorker(w)))
  }

  get size(): number {
    return this.workers.length
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    if (this.closed) throw new SearchError('search.closed', 'the search pool is closed')
    const n = this.workers.length
    const per = Math.ceil(queries.length / n)
    const parts = await Promise.all(this.workers.map((w, i) => (i * per < queries.length ? w.search(queries.slice(i * per, (i + 1) * per), opts) : Promise.resolve([]))))
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
    await Promise.all(this.workers.map((w) => w.worker.terminate()))
  }
}

async function startWorker(data: SearchWorkerData): Promise<Worker> {
  const entry = await workerEntry(new URL('./search-worker-main.ts', import.meta.url), new URL('./search-worker.mjs', import.meta.url))
  const worker = new Worker(entry, { workerData: data, resourceLimits: workerResourceLimits() })
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new SearchError('search.worker', `a search worker exited (code ${code}) before its index was built`))
    worker.once('error', reject)
    worker.once('exit', onExit)
    worker.once('message', (m: SearchWorkerReply) => {
      worker.off('exit', onExit)
      worker.off('error', reject)
      if (m.kind === 'ready') resolve(worker)
      else {
        void worker.terminate()
        reject(new SearchError('search.worker', `a search worker could not open the world: ${m.kind === 'failed' ? m.message : m.kind}`))
      }
    })
  })
}

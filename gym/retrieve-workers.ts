// gym/retrieve-workers: RetrieveWorkers — worker threads over a world folder, each with its own read-only copy of the
// world's index, that answer whole /retrieve slices (search + page text or passages + JSON) off the server's event loop; slices go
// to the least busy thread. Only engines that rebuild from the world file (embedded, sqlite) can be shared this way.
// Knows nothing of HTTP.
import { Worker } from 'node:worker_threads'
import { SearchError } from '../infra/errors'
import { workerEntry } from '../infra/worker-bundle'
import { workerResourceLimits } from '../infra/workers'
import { POOLABLE_ENGINES, type EngineName } from '../world'
import type { SliceAnswerer } from './world-view'
import type { RetrieveWorkerData, RetrieveWorkerReply, RetrieveWorkerRequest } from './retrieve-worker-main'

interface Thread {
  worker: Worker
  pending: Map<number, { resolve(s: string): void; reject(e: Error): void }>
  dead?: Error
}

export class RetrieveWorkers implements SliceAnswerer {
  private nextId = 1
  private closed = false
  private constructor(private readonly pool: Thread[]) {}

  get threads(): number {
    return this.pool.length
  }

  /** Start `n` threads over the world folder `dir` and wait until each has built its index. */
  static async start(dir: string, engine: EngineName, n: number): Promise<RetrieveWorkers> {
    if (!POOLABLE_ENGINES.includes(engine)) throw new SearchError('search.retrieve_workers', `the ${engine} engine cannot be shared over worker threads (only ${POOLABLE_ENGINES.join(', ')})`)
    const started = await Promise.allSettled(Array.from({ length: n }, () => startThread({ dir, engine })))
    const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    const bad = started.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined
    if (bad) {
      await Promise.all(ok.map((t) => t.worker.terminate()))
      throw bad.reason instanceof Error ? bad.reason : new SearchError('search.retrieve_workers', String(bad.reason))
    }
    return new RetrieveWorkers(ok)
  }

  sliceJson(queries: string[], topk: number, withScores: boolean, unit: 'page' | 'passage' = 'page'): Promise<string> {
    if (this.closed) return Promise.reject(new SearchError('search.retrieve_workers', 'the retrieve workers are closed'))
    const live = this.pool.filter((t) => !t.dead)
    if (live.length === 0) return Promise.reject(this.pool[0]?.dead ?? new SearchError('search.retrieve_workers', 'no retrieve worker'))
    const t = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      t.pending.set(id, { resolve, reject })
      t.worker.postMessage({ id, queries, topk, withScores, unit } satisfies RetrieveWorkerRequest)
    })
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all(this.pool.map((t) => t.worker.terminate()))
  }
}

async function startThread(data: RetrieveWorkerData): Promise<Thread> {
  const entry = await workerEntry(new URL('./retrieve-worker-main.ts', import.meta.url), new URL('./retrieve-worker.mjs', import.meta.url))
  const worker = new Worker(entry, { workerData: data, resourceLimits: workerResourceLimits() })
  const t: Thread = { worker, pending: new Map() }
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) => reject(new SearchError('search.retrieve_workers', `a retrieve worker exited (code ${code}) before its index was built`))
    worker.once('error', reject)
    worker.once('exit', onExit)
    worker.once('message', (m: RetrieveWorkerReply) => {
      worker.off('exit', onExit)
      worker.off('error', reject)
      if (m.kind === 'ready') resolve()
      else {
        void worker.terminate()
        reject(new SearchError('search.retrieve_workers', `a retrieve worker could not open the world: ${m.kind === 'failed' ? m.message : m.kind}`))
      }
    })
  })
  worker.on('message', (m: RetrieveWorkerReply) => {
    if (m.kind !== 'result' && m.kind !== 'error') return
    const p = t.pending.get(m.id)
    if (!p) return
    t.pending.delete(m.id)
    if (m.kind === 'result') p.resolve(m.json)
    else p.reject(new SearchError('search.retrieve_worker', `a retrieve worker failed: ${m.message}`))
  })
  const fail = (e: Error) => {
    t.dead = e
    for (const p of t.pending.values()) p.reject(e)
    t.pending.clear()
  }
  worker.on('error', (e) => fail(new SearchError('search.retrieve_worker', `a retrieve worker failed: ${e.message}`)))
  worker.on('exit', (code) => fail(new SearchError('search.retrieve_worker', `a retrieve worker exited (code ${code})`)))
  return t
}

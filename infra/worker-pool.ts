// infra/worker-pool: the one request/reply channel to worker threads — start N workers from one entry, wait for each
// one's handshake (ready / failed), send each call to the least busy live worker (or to one named), match replies by
// id, pass a call's progress messages to its caller, fail a dead worker's pending calls with the caller's typed error,
// hold calls beyond a per-worker cap in a queue (back-pressure), close. Worker mains answer with `serveWorker`
// (infra/worker-serve). The wire is the PoolCall / PoolReply records below; nothing here knows what a call means.
import { Worker, type ResourceLimits, type TransferListItem } from 'node:worker_threads'

/** Parent → worker: a call (with an id: its reply is awaited) or a post (no id: fire and forget, handled in order). */
export type PoolCall<Req> = { id: number; req: Req } | { id?: undefined; req: Req }

/** Worker → parent. `value` of 'ready' is what the worker reports about itself (e.g. the backend it got). */
export type PoolReply<Res, Prog = never> =
  | { kind: 'ready'; value?: unknown }
  | { kind: 'failed'; message: string; code?: string }
  | { kind: 'result'; id: number; value: Res }
  | { kind: 'error'; id: number; message: string; code?: string }
  | { kind: 'progress'; id: number; value: Prog }

export interface WorkerPoolOptions<D> {
  /** What a worker is called in messages: 'search worker' → "a search worker failed: …", "the search worker pool is
   *  closed". */
  name: string
  /** The caller's typed error. `phase`: 'start' (the worker's own message from its failed handshake), 'call' (its
   *  message for one call), 'exit' (the pool's: it died or exited), 'pool' (the pool's: closed, bad argument). `code`:
   *  the worker's own code, when it sent one. */
  error: (message: string, phase: 'start' | 'call' | 'exit' | 'pool', code?: string) => Error
  /** The worker's entry URL (infra/worker-bundle's workerEntry, or a plain .mjs). */
  entry: URL
  size: number
  /** workerData of worker `i`. */
  data?: (i: number) => D
  /** Wait for each worker's 'ready' (default true); without it a worker counts as started at once. */
  handshake?: boolean
  /** Calls in flight per worker before more wait in the pool's queue (default: no cap). */
  maxInFlight?: number
  resourceLimits?: ResourceLimits
  /** The workers do not keep the process alive. */
  unref?: boolean
}

export interface CallOptions<Prog> {
  /** Send to this worker (0-based) instead of the least busy one. */
  worker?: number
  onProgress?: (p: Prog) => void
  transfer?: readonly TransferListItem[]
}

/** 'search worker' → 'a search worker', 'engine worker' → 'an engine worker'. */
const a = (name: string): string => `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`

interface Pending<Res, Prog> {
  resolve: (v: Res) => void
  reject: (e: Error) => void
  onProgress?: (p: Prog) => void
}

class PoolWorker<Req, Res, Prog> {
  readonly pending = new Map<number, Pending<Res, Prog>>()
  dead?: Error
  /** What the worker said about itself in its handshake. */
  ready?: unknown

  constructor(
    readonly worker: Worker,
    private readonly opts: WorkerPoolOptions<unknown>,
    private readonly onFree: () => void,
  ) {
    worker.on('message', (m: PoolReply<Res, Prog>) => {
      if (m.kind !== 'result' && m.kind !== 'error' && m.kind !== 'progress') return
      const p = this.pending.get(m.id)
      if (!p) return
      if (m.kind === 'progress') return p.onProgress?.(m.value)
      this.pending.delete(m.id)
      if (m.kind === 'result') p.resolve(m.value)
      else p.reject(opts.error(m.message, 'call', m.code))
      this.onFree()
    })
    worker.on('error', (e) => this.fail(opts.error(`${a(opts.name)} failed: ${e.message}`, 'exit')))
    worker.on('exit', (code) => this.fail(opts.error(`${a(opts.name)} exited (code ${code})`, 'exit')))
  }

  private fail(e: Error): void {
    this.dead ??= e
    for (const p of this.pending.values()) p.reject(e)
    this.pending.clear()
    this.onFree()
  }
}

interface Queued<Req, Res, Prog> {
  id: number
  req: Req
  opts: CallOptions<Prog>
  pending: Pending<Res, Prog>
}

export class WorkerPool<Req, Res, Prog = never> {
  private nextId = 1
  private closed = false
  private readonly queue: Queued<Req, Res, Prog>[] = []

  private constructor(
    private readonly opts: WorkerPoolOptions<unknown>,
    private readonly workers: PoolWorker<Req, Res, Prog>[],
  ) {}

  /** Start `size` workers and wait until each is ready; if one fails, the others are stopped and its error thrown. */
  static async start<Req, Res, Prog = never, D = unknown>(opts: WorkerPoolOptions<D>): Promise<WorkerPool<Req, Res, Prog>> {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw opts.error(`${opts.name} pool: size must be a positive integer, got ${opts.size}`, 'pool')
    const o = opts as WorkerPoolOptions<unknown>
    const ref: { pool?: WorkerPool<Req, Res, Prog> } = {}
    const started = await Promise.allSettled(Array.from({ length: opts.size }, (_, i) => startOne<Req, Res, Prog>(o, i, () => ref.pool?.drain())))
    const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    const bad = started.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined
    if (bad) {
      await Promise.all(ok.map((w) => w.worker.terminate()))
      throw bad.reason instanceof Error ? bad.reason : opts.error(String(bad.reason), 'start')
    }
    ref.pool = new WorkerPool<Req, Res, Prog>(o, ok)
    return ref.pool
  }

  get size(): number {
    return this.workers.length
  }

  /** Workers not dead. */
  get live(): number {
    return this.workers.filter((w) => !w.dead).length
  }

  /** Not closed, and a worker is alive. */
  get open(): boolean {
    return !this.closed && this.live > 0
  }

  /** Calls waiting for a free slot (back-pressure). */
  get queued(): number {
    return this.queue.length
  }

  /** Calls sent and not answered, per worker. */
  inFlight(): number[] {
    return this.workers.map((w) => w.pending.size)
  }

  /** What worker `i` said in its handshake. */
  readyValue(i = 0): unknown {
    return this.workers[i]?.ready
  }

  /** One call: resolves with the worker's result, rejects with the caller's typed error. */
  call(req: Req, opts: CallOptions<Prog> = {}): Promise<Res> {
    if (this.closed) return Promise.reject(this.opts.error(`the ${this.opts.name} pool is closed`, 'pool'))
    if (opts.worker !== undefined && !(Number.isInteger(opts.worker) && opts.worker >= 0 && opts.worker < this.workers.length))
      return Promise.reject(this.opts.error(`${this.opts.name} pool: no worker ${opts.worker} (it has ${this.workers.length})`, 'pool'))
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, req, opts, pending: { resolve, reject, onProgress: opts.onProgress } })
      this.drain()
    })
  }

  /** A message with no reply, handled by the worker in the order sent (to one worker: `worker`, default 0). */
  post(req: Req, worker = 0, transfer?: readonly TransferListItem[]): void {
    const w = this.workers[worker]
    if (this.closed) throw this.opts.error(`the ${this.opts.name} pool is closed`, 'pool')
    if (!w) throw this.opts.error(`${this.opts.name} pool: no worker ${worker} (it has ${this.workers.length})`, 'pool')
    if (w.dead) throw w.dead
    w.worker.postMessage({ req } satisfies PoolCall<Req>, transfer)
  }

  /** Send queued calls while a worker has room. A call for a dead worker (or when all are dead) fails at once. */
  private drain(): void {
    const cap = this.opts.maxInFlight ?? Infinity
    for (let i = 0; i < this.queue.length; ) {
      const q = this.queue[i]
      const live = this.workers.filter((w) => !w.dead)
      const named = q.opts.worker !== undefined ? this.workers[q.opts.worker] : undefined
      if (live.length === 0 || named?.dead) {
        this.queue.splice(i, 1)
        q.pending.reject(named?.dead ?? this.workers[0]?.dead ?? this.opts.error(`no ${this.opts.name} is running`, 'pool'))
        continue
      }
      const w = named ?? live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
      if (w.pending.size >= cap) {
        i++
        continue
      }
      this.queue.splice(i, 1)
      w.pending.set(q.id, q.pending)
      w.worker.postMessage({ id: q.id, req: q.req } satisfies PoolCall<Req>, q.opts.transfer)
    }
  }

  /** Stop every worker; queued calls are refused. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const q of this.queue.splice(0)) q.pending.reject(this.opts.error(`the ${this.opts.name} pool is closed`, 'pool'))
    await Promise.all(this.workers.map((w) => w.worker.terminate()))
  }
}

async function startOne<Req, Res, Prog>(opts: WorkerPoolOptions<unknown>, i: number, onFree: () => void): Promise<PoolWorker<Req, Res, Prog>> {
  const worker = new Worker(opts.entry, { workerData: opts.data?.(i), resourceLimits: opts.resourceLimits })
  if (opts.unref) worker.unref()
  if (opts.handshake === false) return new PoolWorker<Req, Res, Prog>(worker, opts, onFree)
  const ready = await new Promise<unknown>((resolve, reject) => {
    const onExit = (code: number) => reject(opts.error(`${a(opts.name)} exited (code ${code}) before it was ready`, 'exit'))
    const onError = (e: Error) => reject(opts.error(`${a(opts.name)} failed before it was ready: ${e.message}`, 'exit'))
    worker.once('error', onError)
    worker.once('exit', onExit)
    worker.once('message', (m: PoolReply<Res, Prog>) => {
      worker.off('exit', onExit)
      worker.off('error', onError)
      if (m.kind === 'ready') resolve(m.value)
      else {
        void worker.terminate()
        reject(m.kind === 'failed' ? opts.error(m.message, 'start', m.code) : opts.error(`${a(opts.name)} sent '${m.kind}' before it was ready`, 'exit'))
      }
    })
  })
  const w = new PoolWorker<Req, Res, Prog>(worker, opts, onFree)
  w.ready = ready
  return w
}

// infra/engine/server/worker-generator: the server's ChatGenerator with the engine in a worker thread — generate() and
// the forced-token scorer are messages to it, so /health, new requests and disconnects are handled while a request
// samples. One worker, one job at a time (the server's SerialQueue already serialises). Knows nothing of HTTP.
import { Worker } from 'node:worker_threads'
import { EngineError } from '../../errors'
import { HttpError } from '../../http/errors'
import type { ForcedScorer } from './types'
import type { ChatGenerator, GeneratedSample, GenerateParams } from './types'
import type { BackendName } from '../create-backend'

export interface WorkerData {
  dir: string
  adapterDir?: string
  /** Engine backend name (createBackend); the worker reports the one it got in its 'ready' message. */
  backend?: BackendName
  /** One Int32: the id + 1 of the generate job whose client left (set by the server, read by sampling each step). */
  cancel: SharedArrayBuffer
}

export type WorkerRequest =
  | { kind: 'generate'; id: number; params: GenerateParams }
  | { kind: 'score'; id: number; promptIds: number[]; completionIds: number[]; useAdapter: boolean }

type WorkerRequestBody = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never

export type WorkerReply =
  | { kind: 'ready'; backend: string }
  | { kind: 'failed'; message: string; code?: string }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'error'; id: number; message: string; code?: string }

export class WorkerChatGenerator implements ChatGenerator {
  private nextId = 0
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()

  private constructor(
    private readonly worker: Worker,
    private readonly cancel: Int32Array,
    /** The backend the worker's model runs on ('native', 'ts', …). */
    readonly backendName: string,
  ) {
    worker.on('message', (m: WorkerReply) => {
      if (m.kind !== 'result' && m.kind !== 'error') return
      const p = this.pending.get(m.id)
      if (!p) return
      this.pending.delete(m.id)
      if (m.kind === 'result') p.resolve(m.value)
      else if (m.code === 'client_gone') p.reject(new HttpError(400, 'client_gone', m.message))
      else p.reject(new EngineError(m.code ?? 'engine.generate', m.message))
    })
    worker.on('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new EngineError('engine.worker_exit', `the engine worker exited (code ${code})`))
      this.pending.clear()
    })
  }

  /** Start the worker and wait until it has loaded the model (a load error is thrown here, as one line). */
  static start(opts: Omit<WorkerData, 'cancel'>): Promise<WorkerChatGenerator> {
    const data: WorkerData = { ...opts, cancel: new SharedArrayBuffer(4) }
    const cancel = new Int32Array(data.cancel)
    const worker = new Worker(new URL('./generator-worker.mjs', import.meta.url), { workerData: data })
    return new Promise((resolve, reject) => {
      const onExit = (code: number) => reject(new EngineError('engine.worker_exit', `the engine worker exited (code ${code}) before loading ${data.dir}`))
      worker.once('error', reject)
      worker.once('exit', onExit)
      worker.once('message', (m: WorkerReply) => {
        worker.off('exit', onExit)
        worker.off('error', reject)
        if (m.kind === 'ready') resolve(new WorkerChatGenerator(worker, cancel, m.backend))
        else if (m.kind === 'failed') reject(new EngineError(m.code ?? 'engine.load', m.message))
        else reject(new EngineError('engine.worker', `unexpected first message from the engine worker: ${m.kind}`))
      })
    })
  }

  private call<T>(req: WorkerRequestBody, signal?: AbortSignal): Promise<T> {
    const id = this.nextId++
    const onAbort = () => Atomics.store(this.cancel, 0, id + 1)
    return new Promise<T>((resolve, reject) => {
      const done = <A>(f: (a: A) => void) => (a: A) => {
        signal?.removeEventListener('abort', onAbort)
        f(a)
      }
      this.pending.set(id, { resolve: done(resolve as (v: unknown) => void), reject: done(reject) })
      this.worker.postMessage({ ...req, id })
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Sampling stops within one decode step of `signal` firing (the client left); the call then rejects 'client_gone'. */
  generate(params: GenerateParams, signal?: AbortSignal): Promise<GeneratedSample[]> {
    return this.call({ kind: 'generate', params }, signal)
  }

  readonly score: ForcedScorer = (promptIds, completionIds, useAdapter) => this.call({ kind: 'score', promptIds, completionIds, useAdapter })

  async close(): Promise<void> {
    await this.worker.terminate()
  }
}

// infra/engine/server/worker-generator: the server's ChatGenerator with the engine in a worker thread — generate() and
// the forced-token scorer are messages to it, so /health, new requests and disconnects are handled while a request
// samples. One worker, one job at a time (the server's SerialQueue already serialises). Knows nothing of HTTP.
import { EngineError } from '../../errors'
import { HttpError } from '../../http/errors'
import { WorkerPool } from '../../worker-pool'
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

/** `job` numbers a generate call for cancellation (the shared `cancel` cell holds job + 1 when its client left). */
export type WorkerRequest =
  | { kind: 'generate'; job: number; params: GenerateParams }
  | { kind: 'score'; promptIds: number[]; completionIds: number[]; useAdapter: boolean }

export class WorkerChatGenerator implements ChatGenerator {
  private nextJob = 0

  private constructor(
    private readonly pool: WorkerPool<WorkerRequest, unknown>,
    private readonly cancel: Int32Array,
    /** The backend the worker's model runs on ('native', 'ts', …). */
    readonly backendName: string,
  ) {}

  /** Start the worker and wait until it has loaded the model (a load error is thrown here, as one line). */
  static async start(opts: Omit<WorkerData, 'cancel'>): Promise<WorkerChatGenerator> {
    const data: WorkerData = { ...opts, cancel: new SharedArrayBuffer(4) }
    const pool = await WorkerPool.start<WorkerRequest, unknown, never, WorkerData>({
      name: 'engine worker',
      entry: new URL('./generator-worker.mjs', import.meta.url),
      size: 1,
      data: () => data,
      error: (m, phase, code) =>
        phase === 'start'
          ? new EngineError(code ?? 'engine.load', m)
          : phase === 'call'
            ? code === 'client_gone'
              ? new HttpError(400, 'client_gone', m)
              : new EngineError(code ?? 'engine.generate', m)
            : phase === 'exit'
              ? new EngineError('engine.worker_exit', m.replace('before it was ready', `before loading ${data.dir}`))
              : new EngineError('engine.worker', m),
    })
    return new WorkerChatGenerator(pool, new Int32Array(data.cancel), (pool.readyValue() as { backend: string }).backend)
  }

  private call<T>(req: WorkerRequest, job?: number, signal?: AbortSignal): Promise<T> {
    const onAbort = () => {
      if (job !== undefined) Atomics.store(this.cancel, 0, job + 1)
    }
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    return (this.pool.call(req) as Promise<T>).finally(() => signal?.removeEventListener('abort', onAbort))
  }

  /** Sampling stops within one decode step of `signal` firing (the client left); the call then rejects 'client_gone'. */
  generate(params: GenerateParams, signal?: AbortSignal): Promise<GeneratedSample[]> {
    const job = this.nextJob++
    return this.call({ kind: 'generate', job, params }, job, signal)
  }

  readonly score: ForcedScorer = (promptIds, completionIds, useAdapter) => this.call({ kind: 'score', promptIds, completionIds, useAdapter })

  async close(): Promise<void> {
    await this.pool.close()
  }
}

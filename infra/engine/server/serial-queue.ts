// infra/engine/server/serial-queue: runs async jobs one at a time in arrival order — the engine is single-threaded,
// so concurrent HTTP requests wait here instead of interleaving their sampling. A job whose caller has gone (its
// AbortSignal fired while it waited) is dropped when its turn comes, never run.
import { HttpError } from '../../http/errors'

export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private waiting = 0
  private running = false
  /** Jobs dropped because their caller went away before their turn. */
  dropped = 0
  /** Jobs stopped while running because their caller went away (the generator saw the signal). */
  cancelled = 0

  /** Jobs accepted but not finished (including the running one). */
  get depth(): number {
    return this.waiting + (this.running ? 1 : 0)
  }

  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.waiting++
    const result = this.tail.then(async () => {
      // One turn of the event loop between jobs: pending I/O (a disconnect, a /health call) is handled before the next
      // job starts, so a caller that left while an earlier job held the loop is seen as gone.
      await new Promise<void>((r) => setImmediate(r))
      this.waiting--
      if (signal?.aborted) {
        this.dropped++
        throw new HttpError(400, 'client_gone', 'the client disconnected before its request was served; it was dropped unserved')
      }
      this.running = true
      try {
        return await job()
      } catch (e) {
        if (signal?.aborted) this.cancelled++
        throw e
      } finally {
        this.running = false
      }
    })
    // The chain continues whether a job failed or not; the caller sees its own job's error.
    this.tail = result.catch(() => undefined)
    return result
  }
}

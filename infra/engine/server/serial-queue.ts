// infra/engine/server/serial-queue: runs async jobs one at a time in arrival order — the engine is single-threaded,
// so concurrent HTTP requests wait here instead of interleaving their sampling.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private waiting = 0
  private running = false

  /** Jobs accepted but not finished (including the running one). */
  get depth(): number {
    return this.waiting + (this.running ? 1 : 0)
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    this.waiting++
    const result = this.tail.then(async () => {
      this.waiting--
      this.running = true
      try {
        return await job()
      } finally {
        this.running = false
      }
    })
    // The chain continues whether a job failed or not; the caller sees its own job's error.
    this.tail = result.catch(() => undefined)
    return result
  }
}

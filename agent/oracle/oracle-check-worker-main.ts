// agent/oracle/oracle-check-worker-main: one worker of the parallel oracle check — opens the world folder read-only,
// builds its CheckRunner (own search index, the pool's path edges read in one scan), then checks the chunks of
// questions the scheduler sends (infra/worker-serve), one at a time in the order sent, with progress ticks. The
// scheduler keeps two chunks with it, so it never waits between chunks. Never writes to the world.
import { workerData } from 'node:worker_threads'
import { serveWorker } from '../../infra/worker-serve'
import type { GymOptions } from '../../gym'
import { openWorld, type Qa } from '../../world'
import type { OracleRun } from './oracle'
import { CheckRunner, type CheckPages } from './oracle-check-shard'

export interface CheckWorkerData {
  dir: string
  gym: Partial<GymOptions>
  /** The pool's path edges (prefetched in one scan). Undefined: a warm worker, started before the pool exists — it
   *  opens the index and the oracle's knowledge and checks the chunks it is sent. */
  edges?: string[]
  /** How the oracle reads paged documents (undefined: oracle-plan's default). */
  pages?: CheckPages
}
/** Scheduler → worker: a chunk of questions; the reply is its runs, the progress its ticks (questions done). */
export type CheckWorkerRequest = { chunk: number; qas: Qa[] }

// One chunk at a time, in the order sent (the runner is not reentrant). A cold worker says 'ready' once its runner is
// open; a warm one (no edges yet) takes the chunks it is sent at once.
serveWorker<CheckWorkerData, CheckWorkerRequest, OracleRun[], number>(
  async (data) => {
    // The world stays open while the runner reads it; the thread ends by termination (read-only: nothing to flush).
    const w = openWorld(data.dir, { allowIncomplete: true })
    try {
      const runner = await CheckRunner.open(w, data.gym, data.edges ?? [], data.pages)
      return { handle: (m, tick) => runner.run(m.qas, tick) }
    } catch (e) {
      w.close()
      throw e
    }
  },
  { handshake: (workerData as CheckWorkerData).edges !== undefined, serial: true },
)

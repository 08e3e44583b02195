// agent/policy/oracle-check-worker-main: one worker of the parallel oracle check — opens the world folder read-only,
// builds its CheckRunner (own search index, the pool's path edges read in one scan), then checks the chunks of
// questions the scheduler sends (a warm worker, started while the qa stage draws, reads the pool itself once asked), posting progress ticks and each chunk's runs in the chunk's order. Asks for work
// ahead (two chunks in flight), so it never waits for the scheduler between chunks. Never writes to the world.
import { parentPort, workerData } from 'node:worker_threads'
import type { GymOptions } from '../../gym'
import { openWorld, readQa, type Qa, type StoredSplit } from '../../world'
import type { OracleRun } from './oracle'
import { CheckRunner, pathEdges, poolDigest, type CheckPages } from './oracle-check-shard'

export interface CheckWorkerData {
  dir: string
  gym: Partial<GymOptions>
  /** The pool's path edges (prefetched in one scan). Undefined: a warm worker, started before the pool exists — it
   *  opens the index and the oracle's knowledge, then waits for a 'pool' request and reads the pool itself. */
  edges?: string[]
  /** How the oracle reads paged documents (undefined: oracle-plan's default). */
  pages?: CheckPages
}
/** Scheduler → worker: read the pool (warm workers: the questions of these splits; the worker answers with their
 *  count and id digest, which the check compares with its own), a chunk of questions, a chunk of the pool it read (questions from..to-1), or 'end' (no more
 *  work: finish and exit). */
export type CheckWorkerRequest =
  | { kind: 'pool'; splits: StoredSplit[] }
  | { kind: 'chunk'; chunk: number; qas: Qa[] }
  | { kind: 'slice'; chunk: number; from: number; to: number }
  | { kind: 'end' }
/** Worker → scheduler. 'want': send one more chunk. */
export type CheckWorkerMessage =
  | { kind: 'want' }
  | { kind: 'tick'; n: number }
  | { kind: 'runs'; chunk: number; runs: OracleRun[] }
  | { kind: 'failed'; message: string }
  /** A warm worker read the pool: its size and id digest (the check compares them with its own). */
  | { kind: 'pool-read'; count: number; digest: string }

/** Chunks a worker asks for ahead of the one it runs. */
export const WORKER_CHUNKS_IN_FLIGHT = 2

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as CheckWorkerData
  const queue: CheckWorkerRequest[] = []
  let wake: (() => void) | undefined
  port.on('message', (m: CheckWorkerRequest) => {
    queue.push(m)
    wake?.()
  })
  const w = openWorld(data.dir, { allowIncomplete: true })
  try {
    const runner = await CheckRunner.open(w, data.gym, data.edges ?? [], data.pages)
    try {
      // A warm worker asks for work only once it has the pool; before that it checks the chunks it is sent (the
      // questions the qa stage hands over as it draws them).
      let asking = data.edges !== undefined
      const ready = () => {
        for (let i = 0; i < WORKER_CHUNKS_IN_FLIGHT; i++) port.postMessage({ kind: 'want' } satisfies CheckWorkerMessage)
      }
      if (asking) ready()
      let pool: Qa[] | undefined
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
        const m = queue.shift()!
        if (m.kind === 'end') break
        if (m.kind === 'pool') {
          pool = readQa(w.db, m.splits)
          port.postMessage({ kind: 'pool-read', count: pool.length, digest: poolDigest(pool) } satisfies CheckWorkerMessage)
          runner.prefetch(pathEdges(pool))
          asking = true
          ready()
          continue
        }
        let qas: Qa[]
        if (m.kind === 'chunk') qas = m.qas
        else if (pool) qas = pool.slice(m.from, m.to)
        else throw new Error('a slice of the pool came before the pool')
        const runs = await runner.run(qas, (n) => port.postMessage({ kind: 'tick', n } satisfies CheckWorkerMessage))
        port.postMessage({ kind: 'runs', chunk: m.chunk, runs } satisfies CheckWorkerMessage)
        if (asking) port.postMessage({ kind: 'want' } satisfies CheckWorkerMessage)
      }
    } finally {
      await runner.close()
    }
  } finally {
    w.close()
  }
  port.close()
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies CheckWorkerMessage))

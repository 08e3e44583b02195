// agent/oracle/oracle-check-worker-main: one worker of the parallel oracle check — opens the world folder read-only,
// builds its CheckRunner (own search index, the pool's path edges read in one scan), then checks the chunks of
// questions the scheduler sends, posting progress ticks and each chunk's runs in the chunk's order. Asks for work ahead
// (two chunks in flight), so it never waits for the scheduler between chunks; a warm worker, started while the qa stage
// draws, checks the chunks it is sent and asks only once told the check began. Never writes to the world.
import { parentPort, workerData } from 'node:worker_threads'
import type { GymOptions } from '../../gym'
import { openWorld, type Qa } from '../../world'
import type { OracleRun } from './oracle'
import { CheckRunner, type CheckPages } from './oracle-check-shard'

export interface CheckWorkerData {
  dir: string
  gym: Partial<GymOptions>
  /** The pool's path edges (prefetched in one scan). Undefined: a warm worker, started before the pool exists — it
   *  opens the index and the oracle's knowledge, checks the chunks it is sent, and asks for work once told ('ask'). */
  edges?: string[]
  /** How the oracle reads paged documents (undefined: oracle-plan's default). */
  pages?: CheckPages
}
/** Scheduler → worker: a chunk of questions; 'ask' (a warm worker: the check began, ask for work from now on); 'end'
 *  (no more work: finish and exit). */
export type CheckWorkerRequest = { kind: 'chunk'; chunk: number; qas: Qa[] } | { kind: 'ask' } | { kind: 'end' }
/** Worker → scheduler. 'want': send one more chunk. */
export type CheckWorkerMessage =
  | { kind: 'want' }
  | { kind: 'tick'; n: number }
  | { kind: 'runs'; chunk: number; runs: OracleRun[] }
  | { kind: 'failed'; message: string }

/** Chunks a worker asks for ahead of the one it runs. */
export const WORKER_CHUNKS_IN_FLIGHT = 2

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as CheckWorkerData
  const queue: Exclude<CheckWorkerRequest, { kind: 'ask' }>[] = []
  let wake: (() => void) | undefined
  // A warm worker asks for work only once told the check began ('ask'); before that it checks the chunks it is sent
  // (the questions the qa stage hands over as it draws them). A cold worker asks as soon as its runner is open.
  let asking = data.edges !== undefined
  let open = false
  const ready = () => {
    for (let i = 0; i < WORKER_CHUNKS_IN_FLIGHT; i++) port.postMessage({ kind: 'want' } satisfies CheckWorkerMessage)
  }
  port.on('message', (m: CheckWorkerRequest) => {
    if (m.kind === 'ask') {
      if (!asking && open) ready()
      asking = true
      return
    }
    queue.push(m)
    wake?.()
  })
  const w = openWorld(data.dir, { allowIncomplete: true })
  try {
    const runner = await CheckRunner.open(w, data.gym, data.edges ?? [], data.pages)
    try {
      open = true
      if (asking) ready()
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
        const m = queue.shift()!
        if (m.kind === 'end') break
        const runs = await runner.run(m.qas, (n) => port.postMessage({ kind: 'tick', n } satisfies CheckWorkerMessage))
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

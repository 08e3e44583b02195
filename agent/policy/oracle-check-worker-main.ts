// agent/policy/oracle-check-worker-main: one worker of the parallel oracle check — opens the world folder read-only,
// reads its shard's questions in one pass and checks them (runCheckShard: own search index, searches memoised),
// posting progress ticks and finally every run, in the shard's order. Never writes to the world.
import { parentPort, workerData } from 'node:worker_threads'
import type { GymOptions } from '../../gym'
import { openWorld, readQaByIds, type Qa } from '../../world'
import type { OracleRun } from './oracle'
import { runCheckShard } from './oracle-check-shard'

export interface CheckWorkerData {
  dir: string
  ids: string[]
  gym: Partial<GymOptions>
}
export type CheckWorkerMessage = { kind: 'tick'; n: number } | { kind: 'done'; runs: OracleRun[] } | { kind: 'failed'; message: string }

async function main(): Promise<void> {
  const port = parentPort!
  const data = workerData as CheckWorkerData
  const w = openWorld(data.dir, { allowIncomplete: true })
  try {
    const qas: Qa[] = readQaByIds(w.db, data.ids).map((q, i) => q ?? failMissing(data.ids[i]))
    const runs = await runCheckShard(w, qas, data.gym, (n) => port.postMessage({ kind: 'tick', n } satisfies CheckWorkerMessage))
    port.postMessage({ kind: 'done', runs } satisfies CheckWorkerMessage)
  } finally {
    w.close()
  }
}

function failMissing(id: string): never {
  throw new Error(`question ${id} is not in the world file`)
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies CheckWorkerMessage))

// agent/policy/oracle-check-worker-main: one worker of the parallel oracle check — opens the world folder read-only,
// its own search index and oracle knowledge, runs the oracle through a fresh env for each question id of its shard,
// posts progress ticks and finally every run, in the shard's order. Never writes to the world.
import { parentPort, workerData } from 'node:worker_threads'
import { makeEnv, gymWorldFromIndex, type GymOptions } from '../../gym'
import { openSearchIndex, openWorld, readQaById, worldReader, type Qa } from '../../world'
import { runOracle, type OracleRun } from './oracle'
import { worldOracleKnowledge } from './oracle-knowledge'

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
    const qas: Qa[] = data.ids.map((id) => readQaById(w.db, id) ?? failMissing(id))
    const index = await openSearchIndex(w, { quiet: true })
    const world = gymWorldFromIndex('check', index, qas)
    const k = worldOracleKnowledge(worldReader(w.db))
    const runs: OracleRun[] = []
    let pending = 0
    try {
      for (const qa of qas) {
        runs.push(await runOracle(makeEnv(world, qa, data.gym), qa, k))
        if (++pending >= 64) {
          port.postMessage({ kind: 'tick', n: pending } satisfies CheckWorkerMessage)
          pending = 0
        }
      }
    } finally {
      await world.close()
    }
    if (pending) port.postMessage({ kind: 'tick', n: pending } satisfies CheckWorkerMessage)
    port.postMessage({ kind: 'done', runs } satisfies CheckWorkerMessage)
  } finally {
    w.close()
  }
}

function failMissing(id: string): never {
  throw new Error(`question ${id} is not in the world file`)
}

main().catch((e: unknown) => parentPort!.postMessage({ kind: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies CheckWorkerMessage))

// gym/cli/serve-workers: the processes of `gym serve --workers N` (node:cluster). The primary forks N workers that
// re-run the same command line, each opening the read-only world and listening on the one shared port (the primary
// hands each new connection to the next worker); it prints the URL once all are ready, reports a worker that exits,
// and on SIGINT/SIGTERM stops every worker before it exits (node:cluster exits a worker whose primary is gone: no orphans).
// Why no front router: a router would parse and re-send every request in one process, so the HTTP work — most of a
// step's cost — would stay on one core; here every worker parses its own connections' requests and only a step for
// another worker's env crosses one framed Unix-socket call (gym/cluster-sessions). Knows nothing of the HTTP routes.
import cluster, { type Worker } from 'node:cluster'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GymError } from '../../infra/errors'
import type { ClusterPlan } from '../cluster-sessions'

const ENV_INDEX = 'SEARCHGYM_GYM_WORKER'
const ENV_COUNT = 'SEARCHGYM_GYM_WORKERS'
const ENV_DIR = 'SEARCHGYM_GYM_PEER_DIR'

/** What a worker tells the primary once it listens. */
export interface WorkerReady {
  searchgym: 'ready'
  index: number
  url: string
  port: number
  qa: number
  searchThreads: number
}

/** This process's place among the workers, when it is one. */
export function workerPlan(): ClusterPlan | undefined {
  if (!cluster.isWorker || process.env[ENV_INDEX] === undefined) return undefined
  const dir = process.env[ENV_DIR]!
  return { index: Number(process.env[ENV_INDEX]), count: Number(process.env[ENV_COUNT]), socketPath: (i) => join(dir, `w${i}.sock`) }
}

/** In a worker that could not start: hand the primary the one-line error (it prints it once) and exit 1. */
export function reportStartFailure(index: number, message: string): Promise<never> {
  return new Promise(() => process.send!({ searchgym: 'failed', index, message }, () => process.exit(1)))
}

/** In a worker: report readiness, follow the primary's news of exited workers, exit when the primary is gone. */
export function joinPrimary(ready: Omit<WorkerReady, 'searchgym'>, onWorkerExit: (index: number) => void): void {
  process.on('message', (m: { searchgym?: string; index?: number }) => {
    if (m?.searchgym === 'worker-exit' && typeof m.index === 'number') onWorkerExit(m.index)
  })
  // node:cluster exits a worker whose primary is gone (SIGKILL); then nobody else removes the socket folder.
  process.on('exit', () => {
    if (!process.connected) rmSync(process.env[ENV_DIR] ?? '', { recursive: true, force: true })
  })
  process.send!({ searchgym: 'ready', ...ready } satisfies WorkerReady)
}

export interface Primary {
  /** Worker 0's ready message (URL, QA count, search threads). */
  ready: WorkerReady
  workers: number
  /** Stop every worker (SIGTERM, SIGKILL after 5 s) and remove the socket folder. */
  stop(): Promise<void>
}

/** Fork n workers running this same command; resolve once all listen. A worker that exits first fails the start. */
export async function startWorkers(n: number, log: (line: string) => void): Promise<Primary> {
  const dir = mkdtempSync(join(tmpdir(), 'searchgym-workers-'))
  const workers: Worker[] = []
  const alive = new Set<number>()
  let stopping = false
  let started = false
  let failure: string | undefined
  const stop = async () => {
    stopping = true
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((res) => {
            if (w.process.exitCode !== null || w.process.signalCode !== null) return res()
            const kill = setTimeout(() => w.process.kill('SIGKILL'), 5000)
            w.process.once('exit', () => {
              clearTimeout(kill)
              res()
            })
            w.process.kill('SIGTERM')
          }),
      ),
    )
    rmSync(dir, { recursive: true, force: true })
  }
  const readies = await new Promise<WorkerReady[]>((resolve, reject) => {
    const got: WorkerReady[] = []
    for (let i = 0; i < n; i++) {
      const w = cluster.fork({ [ENV_INDEX]: String(i), [ENV_COUNT]: String(n), [ENV_DIR]: dir })
      workers.push(w)
      alive.add(i)
      w.on('message', (m: WorkerReady | { searchgym: 'failed'; message: string }) => {
        if (m?.searchgym === 'failed') failure ??= m.message
        if (m?.searchgym !== 'ready') return
        got[m.index] = m
        if (got.filter(Boolean).length === n) {
          started = true
          resolve(got)
        }
      })
      w.on('exit', (code, signal) => {
        alive.delete(i)
        if (stopping) return
        if (!started) {
          void stop().then(() => reject(new GymError('serve.worker_failed', failure ?? `worker ${i} exited (${signal ?? `code ${code}`}) before it was ready`)))
          return
        }
        log(`worker ${i} (pid ${w.process.pid}) exited (${signal ?? `code ${code}`}); its envs answer 503 env.worker_down; ${alive.size} of ${n} workers left`)
        for (const j of alive) {
          try {
            workers[j].send({ searchgym: 'worker-exit', index: i })
          } catch {
            // that worker is exiting too; its own exit is reported
          }
        }
        if (alive.size === 0) {
          log('no worker left; stopping')
          void stop().then(() => process.exit(1))
        }
      })
    }
  })
  return { ready: readies[0], workers: n, stop }
}

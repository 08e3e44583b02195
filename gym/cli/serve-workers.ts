// gym/cli/serve-workers: the processes of `gym serve --workers N` (node:cluster). The primary forks N workers that
// re-run the same command line, each opening the read-only world and listening on the one shared port (the primary
// hands each new connection to the next worker); it prints the URL once all are ready, restarts a worker that exits
// (after a back-off: 0.5 s doubling to 30 s, reset once a worker has stayed up 10 s), tells every worker which are up
// (WorkerState), and on SIGINT/SIGTERM stops every worker before it exits (node:cluster exits a worker whose primary
// is gone: no orphans).
// Why no front router: a router would parse and re-send every request in one process, so the HTTP work — most of a
// step's cost — would stay on one core; here every worker parses its own connections' requests and only a step for
// another worker's env crosses one framed Unix-socket call (gym/cluster-sessions). Knows nothing of the HTTP routes.
import cluster, { type Worker } from 'node:cluster'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GymError } from '../../infra/errors'
import type { ClusterPlan } from '../cluster-sessions'
import type { WorkerState } from '../env-sessions'

const ENV_INDEX = 'SEARCHGYM_GYM_WORKER'
const ENV_COUNT = 'SEARCHGYM_GYM_WORKERS'
const ENV_DIR = 'SEARCHGYM_GYM_PEER_DIR'
/** The port a replacement worker listens on when no worker is left holding the shared one (it was --port 0). */
const ENV_PORT = 'SEARCHGYM_GYM_PORT'

/** The restart back-off: the first wait, its cap, and how long a worker must stay up to reset it. */
export const RESTART_POLICY = { firstMs: 500, maxMs: 30_000, stableMs: 10_000, giveUpAfter: 8 }

/** The wait before restarting a worker that died `failures` times in a row without staying up stableMs (1, 2, ...). */
export function restartDelayMs(failures: number, p = RESTART_POLICY): number {
  return Math.min(p.maxMs, p.firstMs * 2 ** Math.max(0, failures - 1))
}

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
  return { index: Number(process.env[ENV_INDEX]), count: Number(process.env[ENV_COUNT]), socketPath: (i) => join(dir, socketName(i)) }
}

const socketName = (i: number) => `w${i}.sock`

/** In a replacement worker: the port to listen on instead of --port (the shared port, once no live worker holds it). */
export function workerPort(): number | undefined {
  const v = process.env[ENV_PORT]
  return cluster.isWorker && v !== undefined ? Number(v) : undefined
}

/** In a worker that could not start: hand the primary the one-line error (it prints it once) and exit 1. */
export function reportStartFailure(index: number, message: string): Promise<never> {
  return new Promise(() => process.send!({ searchgym: 'failed', index, message }, () => process.exit(1)))
}

/** In a worker: report readiness, follow the primary's news of which workers are up (acknowledging the first: until
 *  then its /health says it is starting, and the primary announces the server only once every worker has it), exit
 *  when the primary is gone. */
export function joinPrimary(ready: Omit<WorkerReady, 'searchgym'>, onWorkers: (states: WorkerState[]) => void): void {
  let told = false
  process.on('message', (m: { searchgym?: string; workers?: WorkerState[] }) => {
    if (m?.searchgym !== 'workers' || !Array.isArray(m.workers)) return
    onWorkers(m.workers)
    if (!told) process.send!({ searchgym: 'told', index: ready.index }, undefined, () => undefined)
    told = true
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

interface Slot {
  worker: Worker
  up: boolean
  /** When the current process was forked (ms, performance.now()). */
  forkedAt: number
  /** Deaths in a row that came before the worker had stayed up stableMs. */
  failures: number
  restarts: number
  /** The pending restart. */
  timer?: NodeJS.Timeout
  /** The start failure the worker reported, if it reported one. */
  failure?: string
}

/** Fork n workers running this same command; resolve once all listen. A worker that exits first fails the start;
 *  after that, a worker that exits is restarted (restartDelayMs); when none is up and every one has failed
 *  giveUpAfter restarts in a row, the primary stops (exit 1). */
export async function startWorkers(n: number, log: (line: string) => void, policy = RESTART_POLICY): Promise<Primary> {
  const dir = mkdtempSync(join(tmpdir(), 'searchgym-workers-'))
  const slots: Slot[] = []
  let stopping = false
  let started = false
  let port = 0
  let failure: string | undefined
  const stop = async () => {
    stopping = true
    for (const s of slots) clearTimeout(s.timer)
    await Promise.all(
      slots.map(
        ({ worker: w }) =>
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
  const states = (): WorkerState[] => slots.map((s, index) => ({ index, pid: s.worker.process.pid ?? null, up: s.up, restarts: s.restarts }))
  const tellWorkers = () => {
    const m = { searchgym: 'workers', workers: states() }
    // A worker exiting meanwhile: the callback takes the closed-channel error (its own exit is reported).
    for (const s of slots) if (s.up && s.worker.isConnected()) s.worker.send(m, undefined, () => undefined)
  }
  let resolveStart!: (r: WorkerReady[]) => void
  let rejectStart!: (e: Error) => void
  const readies = new Promise<WorkerReady[]>((res, rej) => ((resolveStart = res), (rejectStart = rej)))
  const got: WorkerReady[] = []
  // Workers that have the first list of who is up (their /health no longer says starting): the start resolves once all do.
  const told = new Set<number>()

  const fork = (i: number) => {
    const env: Record<string, string> = { [ENV_INDEX]: String(i), [ENV_COUNT]: String(n), [ENV_DIR]: dir }
    // A replacement joins the shared port; with no live worker left holding it (--port 0), it asks for that port by number.
    if (started && !slots.some((s) => s.up)) env[ENV_PORT] = String(port)
    const w = cluster.fork(env)
    const slot: Slot = { worker: w, up: false, forkedAt: performance.now(), failures: slots[i]?.failures ?? 0, restarts: slots[i]?.restarts ?? 0 }
    slots[i] = slot
    w.on('error', () => undefined) // a send to a worker that is exiting; its exit is handled below
    w.on('message', (m: WorkerReady | { searchgym: 'failed'; message: string } | { searchgym: 'told'; index: number }) => {
      if (m?.searchgym === 'told') {
        told.add(i)
        if (started && told.size === n) resolveStart(got)
        return
      }
      if (m?.searchgym === 'failed') {
        slot.failure = m.message
        if (!started) failure ??= m.message
      }
      if (m?.searchgym !== 'ready') return
      slot.up = true
      if (!started) {
        got[m.index] = m
        if (got.filter(Boolean).length === n) {
          started = true
          port = m.port
          tellWorkers()
        }
        return
      }
      log(`worker ${i} restarted (pid ${w.process.pid}); ${slots.filter((s) => s.up).length} of ${n} workers up`)
      tellWorkers()
    })
    w.on('exit', (code, signal) => {
      const wasUp = slot.up
      slot.up = false
      if (stopping || slots[i] !== slot) return
      if (!started) {
        void stop().then(() => rejectStart(new GymError('serve.worker_failed', failure ?? `worker ${i} exited (${signal ?? `code ${code}`}) before it was ready`)))
        return
      }
      const lived = performance.now() - slot.forkedAt
      slot.failures = wasUp && lived >= policy.stableMs ? 1 : slot.failures + 1
      const up = slots.filter((s) => s.up).length
      if (up === 0 && slots.every((s) => s.failures >= policy.giveUpAfter)) {
        log(`no worker could be restarted (${policy.giveUpAfter} quick exits in a row each${slot.failure ? `; last: ${slot.failure}` : ''}); stopping`)
        void stop().then(() => process.exit(1))
        return
      }
      const wait = restartDelayMs(slot.failures, policy)
      const why = wasUp ? `exited (${signal ?? `code ${code}`})` : `could not start (${slot.failure ?? signal ?? `code ${code}`})`
      log(`worker ${i} (pid ${w.process.pid}) ${why}; its envs are lost (503 env.worker_down until it is back, then 404); ${up} of ${n} workers up; restarting it in ${(wait / 1000).toFixed(1)} s`)
      tellWorkers()
      slot.timer = setTimeout(() => {
        if (stopping) return
        slot.restarts++
        // The exited worker's peer socket file may be left behind (SIGKILL): its replacement listens on the same path.
        rmSync(join(dir, socketName(i)), { force: true })
        fork(i)
      }, wait)
    })
  }
  for (let i = 0; i < n; i++) fork(i)
  const r = await readies
  return { ready: r[0], workers: n, stop }
}

// agent/policy/oracle-check: run the oracle through the real env over many QA and report every question it cannot
// solve, with why and a cause class — the proof that a world's questions are answerable with its own Search/Access
// tools. checkWorldFolder shards a world's questions over worker threads (one search index each) and merges the
// runs back in question order, so the report is the same for any number of workers.
import pMap from 'p-map'
import { Worker } from 'node:worker_threads'
import { AgentError } from '../../infra/errors'
import { progress } from '../../infra/progress'
import { workerCount } from '../../infra/workers'
import { makeEnv, gymWorldFromIndex, type GymOptions } from '../../gym'
import type { GymWorld } from '../../gym'
import { openSearchIndex, openWorld, worldEngine, worldReader, type Qa, type QaType } from '../../world'
import { runOracle, type OracleKnowledge, type OracleRun } from './oracle'
import { prefetchPaths, runCheckShard } from './oracle-check-shard'
import { worldOracleKnowledge } from './oracle-knowledge'
import { withMemoSearch } from './memo-search'
import type { CheckWorkerData, CheckWorkerMessage } from './oracle-check-worker-main'

export interface OracleCheckReport {
  total: number
  solved: number
  meanF1: number
  byType: Record<string, { total: number; solved: number }>
  /** Assistant turns the oracle needed (two tool calls per page + the answer). */
  turns: { p50: number; max: number; overPaperBudget: number }
  failures: (OracleRun & { type: QaType; hops: number; split: string; cause: FailureCause })[]
  /** Failures counted by cause. */
  byCause: Partial<Record<FailureCause, number>>
}

/** Why the oracle could not solve a question, in classes (the full message stays in `failure`). */
export type FailureCause = 'search' | 'evidence-unreadable' | 'lookup-not-unique' | 'value-unreadable' | 'wrong-answer' | 'env-stop' | 'other'

export function failureCause(failure: string | undefined): FailureCause {
  const f = failure ?? ''
  if (f.startsWith('no search found')) return 'search'
  if (f.startsWith('evidence sentence') || f.startsWith('no evidence sentence')) return 'evidence-unreadable'
  if (/entities of type .* have .*the question needs exactly one/.test(f)) return 'lookup-not-unique'
  if (/is not in its accessed page/.test(f)) return 'value-unreadable'
  if (f.startsWith('answered')) return 'wrong-answer'
  if (f.startsWith('the env stopped')) return 'env-stop'
  return 'other'
}

/** Budgets are lifted in the check: it proves solvability with the tools; the paper's 16 turns are reported apart. */
export const CHECK_GYM_OPTIONS: Partial<GymOptions> = {
  budgets: { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 },
}

export async function checkWithOracle(
  world: GymWorld,
  k: OracleKnowledge,
  qas: Qa[],
  opts: { gym?: Partial<GymOptions>; concurrency?: number; quiet?: boolean } = {},
): Promise<OracleCheckReport> {
  const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
  const gym = { ...CHECK_GYM_OPTIONS, ...opts.gym }
  const runs = await pMap(
    qas,
    async (qa) => {
      const r = await runOracle(makeEnv(world, qa, gym), qa, k)
      bar.tick()
      return r
    },
    { concurrency: opts.concurrency ?? 8 },
  )
  bar.done()
  return summariseRuns(qas, runs)
}

/** The report of runs[i] for qas[i]. */
export function summariseRuns(qas: Qa[], runs: OracleRun[]): OracleCheckReport {
  const byType: OracleCheckReport['byType'] = {}
  const failures: OracleCheckReport['failures'] = []
  let f1 = 0
  runs.forEach((r, i) => {
    const qa = qas[i]
    const t = (byType[qa.type] ??= { total: 0, solved: 0 })
    t.total++
    f1 += r.f1
    if (r.failure === undefined && r.f1 === 1) t.solved++
    else failures.push({ ...r, type: qa.type, hops: qa.hops, split: qa.split, cause: failureCause(r.failure ?? `F1 ${r.f1}`) })
  })
  const byCause: OracleCheckReport['byCause'] = {}
  for (const f of failures) byCause[f.cause] = (byCause[f.cause] ?? 0) + 1
  const turns = runs.map((r) => r.turns).sort((a, b) => a - b)
  return {
    total: qas.length,
    solved: qas.length - failures.length,
    meanF1: qas.length ? f1 / qas.length : 0,
    byType,
    turns: { p50: turns[Math.floor((turns.length - 1) / 2)] ?? 0, max: turns[turns.length - 1] ?? 0, overPaperBudget: turns.filter((t) => t > 16).length },
    failures,
    byCause,
  }
}

export interface FolderCheckOptions {
  gym?: Partial<GymOptions>
  /** Worker threads (default: SEARCHGYM_WORKERS, else the machine's cores up to 8; 1 = in this thread). */
  workers?: number
  quiet?: boolean
}

/** Engines that give the same hits for the same query string: the check answers repeated searches from memory. */
const MEMO_ENGINES = ['embedded', 'sqlite']

/** Below this many questions the check runs in this thread: a worker's start-up (tsx + its index) costs more. */
const MIN_PARALLEL_QUESTIONS = 2000

/** Workers the check uses for this world: in-process for small pools and for engines a worker cannot open alone. */
export function checkWorkers(engine: string, questions: number, requested?: number): number {
  let n = workerCount(requested)
  // Embedded and SQLite indexes are rebuilt per worker from the world file; a local Meilisearch or an embedder is not
  // started once per worker.
  if (engine !== 'embedded' && engine !== 'sqlite') n = 1
  if (requested === undefined && questions < MIN_PARALLEL_QUESTIONS) n = 1
  return Math.max(1, Math.min(n, questions))
}

/** The oracle check of `qas` (read from the world folder `dir`), sharded over worker threads; same report for any count. */
export async function checkWorldFolder(dir: string, qas: Qa[], opts: FolderCheckOptions = {}): Promise<OracleCheckReport & { workers: number }> {
  const gym = { ...CHECK_GYM_OPTIONS, ...opts.gym }
  const w = openWorld(dir, { allowIncomplete: true })
  let engine: string
  try {
    engine = worldEngine(w)
  } catch (e) {
    w.close()
    throw e
  }
  const workers = checkWorkers(engine, qas.length, opts.workers)
  if (workers === 1) {
    try {
      const index = await openSearchIndex(w, { quiet: true })
      const plain = gymWorldFromIndex('check', index, qas)
      const world = MEMO_ENGINES.includes(engine) ? withMemoSearch(plain) : plain
      try {
        const k = worldOracleKnowledge(worldReader(w.db))
        prefetchPaths(k, qas)
        return { ...(await checkWithOracle(world, k, qas, { gym, quiet: opts.quiet })), workers }
      } finally {
        await world.close()
      }
    } finally {
      w.close()
    }
  }
  const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
  // Round-robin shards: neighbouring questions (same type and size) spread over every worker.
  const shards: number[][] = Array.from({ length: workers }, () => [])
  qas.forEach((_, i) => shards[i % workers].push(i))
  const runs: OracleRun[] = new Array(qas.length)
  const put = (idx: number[], got: OracleRun[]) => {
    if (got.length !== idx.length) throw new AgentError('agent.check', `an oracle-check worker returned ${got.length} runs for ${idx.length} questions`)
    got.forEach((r, j) => (runs[idx[j]] = r))
  }
  // Shards 1.. go to worker threads (started first, so they load while this thread works); shard 0 runs here, where
  // every module is loaded already — one worker start-up fewer.
  const started = shards.slice(1).map((idx) => ({ idx, worker: startWorker({ dir, ids: idx.map((i) => qas[i].id), gym }, (n) => bar.tick(n)) }))
  try {
    const here = runCheckShard(w, shards[0].map((i) => qas[i]), gym, (n) => bar.tick(n))
    await Promise.all([here.then((got) => put(shards[0], got)), ...started.map(async (s) => put(s.idx, await s.worker.done))])
  } finally {
    for (const s of started) s.worker.stop()
    w.close()
  }
  bar.done()
  return { ...summariseRuns(qas, runs), workers }
}

function startWorker(data: CheckWorkerData, tick: (n: number) => void): { done: Promise<OracleRun[]>; stop: () => void } {
  const worker = new Worker(new URL('./oracle-check-worker.mjs', import.meta.url), { workerData: data })
  const done = new Promise<OracleRun[]>((resolve, reject) => {
    let settled = false
    const finish = (f: () => void) => {
      if (settled) return
      settled = true
      f()
      void worker.terminate()
    }
    worker.on('message', (m: CheckWorkerMessage) => {
      if (m.kind === 'tick') tick(m.n)
      else if (m.kind === 'done') finish(() => resolve(m.runs))
      else finish(() => reject(new AgentError('agent.check', `an oracle-check worker failed: ${m.message}`)))
    })
    worker.once('error', (e) => finish(() => reject(new AgentError('agent.check', `an oracle-check worker failed: ${e.message}`))))
    worker.once('exit', (code) => finish(() => reject(new AgentError('agent.check', `an oracle-check worker exited (code ${code}) before finishing`))))
  })
  // A failure elsewhere (this thread's shard) must not leave the worker running; its rejection is then moot.
  done.catch(() => undefined)
  return { done, stop: () => void worker.terminate() }
}

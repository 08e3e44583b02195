// agent/oracle/oracle-check: run the oracle through the real env over many QA and report every question it cannot
// solve, with why and a cause class — the proof that a world's questions are answerable with its own Search/Access
// tools. checkWorldFolder hands a world's questions in chunks to worker threads (one search index each) and to its own
// thread, whichever is free, and puts the runs back in question order, so the report is the same for any number of
// workers and any timing.
import pMap from 'p-map'
import { AgentError } from '../../infra/errors'
import { workerEntry } from '../../infra/worker-bundle'
import { WorkerPool } from '../../infra/worker-pool'
import { progress } from '../../infra/progress'
import { workerCount, workerResourceLimits } from '../../infra/workers'
import { makeResolvedEnv, gymWorldFromIndex, resolveGymOptions, type GymOptions } from '../../gym'
import type { GymWorld } from '../../gym'
import { openSearchIndex, openWorld, worldEngine, worldReader, type Qa, type QaType, type WarmHandle } from '../../world'
import { canonicalJson } from '../../infra/hash'
import { ORACLE_BUDGETS, runOracle, type OracleKnowledge, type OracleRun } from './oracle'
import { CheckRunner, pathEdges, prefetchPaths, type CheckPages } from './oracle-check-shard'
import { worldOracleKnowledge } from './oracle-knowledge'
import { ORACLE_MAX_QUERIES_PER_PAGE } from './oracle-plan'
import { withMemoSearch } from './memo-search'
import type { CheckWorkerData, CheckWorkerRequest } from './oracle-check-worker-main'

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

/** How the check's oracle reads a paged document by default: only the pages a hop needs (page 1, then on in order
 *  until its evidence sentence or the value read is in the text), as a reader would; its turn counts are then what the
 *  walk needs. Same solved/failed rows and reasons as 'all' on the worlds measured (bench/RESULTS.md, round 5). */
export const CHECK_PAGES: CheckPages = 'needed'

/** The oracle's budgets (ORACLE_BUDGETS: it proves solvability with the tools; the paper's 16 turns are reported apart).
 *  Step signals are off: the check needs each episode's outcome only (about a seventh of its CPU, bench/RESULTS.md). */
export const CHECK_GYM_OPTIONS: Partial<GymOptions> = {
  stepSignals: false,
  budgets: ORACLE_BUDGETS,
}

export async function checkWithOracle(
  world: GymWorld,
  k: OracleKnowledge,
  qas: Qa[],
  opts: { gym?: Partial<GymOptions>; concurrency?: number; quiet?: boolean; pages?: CheckPages } = {},
): Promise<OracleCheckReport> {
  const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
  const gym = resolveGymOptions({ ...CHECK_GYM_OPTIONS, ...opts.gym })
  const runs = await pMap(
    qas,
    async (qa) => {
      const r = await runOracle(makeResolvedEnv(world, qa, gym), qa, k, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: opts.pages ?? CHECK_PAGES })
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
  /** Worker threads (default: SEARCHGYM_THREADS, else the machine's cores up to 8; 1 = in this thread). */
  workers?: number
  quiet?: boolean
  /** With workers > 1: whether this thread checks chunks too (default true; false: only the worker threads do — tests
   *  that must see the workers' runs, which on a small pool this thread would otherwise take all of). */
  thisThread?: boolean
  /** How the oracle reads paged documents: 'all' pages when it opens one, or only those 'needed' for the hop's fact
   *  (oracle-plan's option; default CHECK_PAGES, 'needed'). */
  pages?: CheckPages
  /** Worker threads started ahead (WarmCheck, while the qa stage drew the pool); used when `qas` is the very pool
   *  they were handed as it was drawn (WarmCheck.pool) and the settings match, released otherwise. */
  warm?: WarmCheck
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
export async function checkWorldFolder(dir: string, qas: Qa[], opts: FolderCheckOptions = {}): Promise<OracleCheckReport & { workers: number; early?: number }> {
  const gym = { ...CHECK_GYM_OPTIONS, ...opts.gym }
  const w = openWorld(dir, { allowIncomplete: true })
  let engine: string
  try {
    engine = worldEngine(w)
  } catch (e) {
    w.close()
    throw e
  }
  const pages = opts.pages ?? CHECK_PAGES
  // Warm threads are used when they were started with these settings and `qas` is the pool they were handed.
  const warm = opts.warm?.matches(gym, pages) && opts.warm.drew(qas) ? opts.warm : undefined
  if (opts.warm && !warm) opts.warm.release()
  const workers = warm ? Infinity : checkWorkers(engine, qas.length, opts.workers)
  if (workers === 1 && MEMO_ENGINES.includes(engine)) {
    try {
      const runner = await CheckRunner.open(w, gym, pathEdges(qas), pages)
      const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
      try {
        const runs = await runner.run(qas, (n) => bar.tick(n))
        bar.done()
        return { ...summariseRuns(qas, runs), workers }
      } finally {
        await runner.close()
      }
    } finally {
      w.close()
    }
  }
  if (workers === 1) {
    try {
      const index = await openSearchIndex(w, { quiet: true })
      const plain = gymWorldFromIndex('check', index, qas)
      const world = MEMO_ENGINES.includes(engine) ? withMemoSearch(plain) : plain
      try {
        const k = worldOracleKnowledge(worldReader(w.db))
        prefetchPaths(k, qas)
        return { ...(await checkWithOracle(world, k, qas, { gym, quiet: opts.quiet, pages: opts.pages ?? CHECK_PAGES })), workers }
      } finally {
        await world.close()
      }
    } finally {
      w.close()
    }
  }
  const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
  const edges = pathEdges(qas)
  const sched = new ChunkScheduler(qas)
  const here = opts.thisThread ?? true
  const started: CheckThread[] = []
  let over = false
  const early = warm ? warm.earlyQuestions : 0
  if (warm) started.push(...warm.attach(sched, (n) => bar.tick(n)))
  else
    void checkWorkerEntry().then((entry) => {
      try {
        if (!over)
          for (let i = here ? 1 : 0; i < workers; i++) {
            const t = new CheckThread(entry, { dir, gym, edges, pages })
            started.push(t)
            t.attach(sched, (n) => bar.tick(n))
          }
      } catch (e) {
        sched.fail(e instanceof Error ? e : new AgentError('agent.check', String(e)))
      }
    })
  try {
    if (here) {
      const runner = await CheckRunner.open(w, gym, edges, pages)
      try {
        for (let c = sched.take(); c !== undefined; c = sched.take()) sched.put(c, await runner.run(sched.slice(c), (n) => bar.tick(n)))
      } finally {
        await runner.close()
      }
    }
    await sched.done
  } finally {
    over = true
    for (const t of started) t.stop()
    w.close()
  }
  bar.done()
  return { ...summariseRuns(qas, sched.runs), workers: warm ? started.length + (here ? 1 : 0) : workers, ...(early ? { early } : {}) }
}

/** Oracle-check worker threads started before the pool exists (Stage.warm of the check, as the qa stage begins):
 *  each opens the world's index and the oracle's knowledge. The qa stage hands over the questions as it draws them
 *  (accept); whole chunks of CHECK_CHUNK go to the threads at once, at most EARLY_CHUNKS_IN_FLIGHT per thread (the qa
 *  stage gives the event loop a turn every batch, so a thread gets its next chunk as it returns one). The rest waits for
 *  the check, which the build's own thread joins: no thread is left with a backlog while another idles. */
export class WarmCheck implements WarmHandle {
  private threads: CheckThread[] | undefined
  /** Every question accepted, in order: the pool as drawn. */
  private readonly drawn: Qa[] = []
  /** Chunks sent so far: chunk c is drawn[c * CHECK_CHUNK, (c + 1) * CHECK_CHUNK). */
  private sent = 0

  private constructor(
    threads: CheckThread[],
    private readonly gym: Partial<GymOptions>,
    private readonly pages: CheckPages,
  ) {
    this.threads = threads
    for (const t of threads) t.onEarlyRuns = () => this.pump()
  }

  /** Start the worker threads a check of about `questions` questions of this world would use besides the build's own
   *  thread (none: undefined — a small pool, one core, or an engine a worker cannot open alone). */
  static async start(dir: string, o: { questions: number; workers?: number; gym?: Partial<GymOptions>; pages?: CheckPages }): Promise<WarmCheck | undefined> {
    const w = openWorld(dir, { allowIncomplete: true })
    let engine: string
    try {
      engine = worldEngine(w)
    } finally {
      w.close()
    }
    const n = checkWorkers(engine, o.questions, o.workers)
    if (n < 2 || !MEMO_ENGINES.includes(engine)) return undefined
    const gym = { ...CHECK_GYM_OPTIONS, ...o.gym }
    const pages = o.pages ?? CHECK_PAGES
    const entry = await checkWorkerEntry()
    const threads = Array.from({ length: n - 1 }, () => new CheckThread(entry, { dir, gym, pages }))
    return new WarmCheck(threads, gym, pages)
  }

  /** Questions sent to the threads before the check began. */
  get earlyQuestions(): number {
    return Math.min(this.sent * CHECK_CHUNK, this.drawn.length)
  }

  /** Whether these threads were started with the check's settings (and not yet attached or released). */
  matches(gym: Partial<GymOptions>, pages: CheckPages): boolean {
    return this.threads !== undefined && pages === this.pages && canonicalJson(gym) === canonicalJson(this.gym)
  }

  /** The questions handed over (accept), when their ids are `ids` in order (the pool as stored: readQaIds) — the check
   *  then needs not read the pool again; undefined otherwise. */
  pool(ids: readonly string[]): Qa[] | undefined {
    if (ids.length !== this.drawn.length) return undefined
    for (let i = 0; i < ids.length; i++) if (ids[i] !== this.drawn[i].id) return undefined
    return this.drawn
  }

  /** Whether `qas` is the pool these threads were handed (the very array pool() returned). */
  drew(qas: readonly Qa[]): boolean {
    return qas === this.drawn
  }

  /** Questions of the pool as they are drawn, in order (StageContext.ahead). */
  accept(items: readonly unknown[]): void {
    if (!this.threads) return
    for (const q of items) this.drawn.push(q as Qa)
    this.pump()
  }

  /** Send whole chunks not yet sent to threads with room for one. */
  private pump(): void {
    const threads = this.threads
    if (!threads) return
    for (const t of threads) {
      while (t.earlyInFlight < EARLY_CHUNKS_IN_FLIGHT && (this.sent + 1) * CHECK_CHUNK <= this.drawn.length) {
        const c = this.sent++
        t.sendEarly(c, this.drawn.slice(c * CHECK_CHUNK, (c + 1) * CHECK_CHUNK))
      }
    }
  }

  /** Hand the threads to the check of the pool (drew): the chunks sent early count for it (the scheduler reserves
   *  them); the threads take the rest as they free up, with the build's own thread. */
  attach(sched: ChunkScheduler, tick: (n: number) => void): CheckThread[] {
    const threads = this.threads ?? []
    this.threads = undefined
    sched.reserve(this.sent)
    for (const t of threads) t.attach(sched, tick)
    return threads
  }

  release(): void {
    const threads = this.threads ?? []
    this.threads = undefined
    for (const t of threads) t.stop()
  }
}

/** Chunks a warm thread is sent ahead while the qa stage draws (it asks for its own once the check begins). */
const EARLY_CHUNKS_IN_FLIGHT = 2

/** Where a check worker thread starts (its bundle, else its tsx entry). */
function checkWorkerEntry(): Promise<URL> {
  return workerEntry(new URL('./oracle-check-worker-main.ts', import.meta.url), new URL('./oracle-check-worker.mjs', import.meta.url))
}

/** Chunks an attached thread is sent ahead of the one it runs (so it never waits for the scheduler between chunks). */
const WORKER_CHUNKS_IN_FLIGHT = 2

/** Young-generation size of a check worker, MB. */
const CHECK_YOUNG_GENERATION_MB = 192

/** Questions per chunk handed to a thread (also its progress tick). */
export const CHECK_CHUNK = 64

/** The check's work queue: chunks of consecutive questions, taken in order by whichever thread is free. */
class ChunkScheduler {
  readonly runs: OracleRun[]
  readonly done: Promise<void>
  private next = 0
  private failed = false
  private left: number
  private readonly chunks: number
  private settle!: { resolve: () => void; reject: (e: Error) => void }

  constructor(private readonly qas: Qa[]) {
    this.runs = new Array(qas.length)
    this.chunks = Math.ceil(qas.length / CHECK_CHUNK)
    this.left = this.chunks
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }))
    this.done.catch(() => undefined) // awaited by the caller; a failure while this thread still works is not unhandled
    if (this.left === 0) this.settle.resolve()
  }

  take(): number | undefined {
    return this.next < this.chunks && !this.failed ? this.next++ : undefined
  }

  /** Chunks 0..n-1 are already with threads (sent before the check began); taking starts after them. */
  reserve(n: number): void {
    if (this.next !== 0 || n > this.chunks) throw new AgentError('agent.check', `cannot reserve ${n} of ${this.chunks} chunks after ${this.next} were taken`)
    this.next = n
  }

  slice(c: number): Qa[] {
    return this.qas.slice(...this.range(c))
  }

  /** Chunk c's questions: indexes from..to-1. */
  range(c: number): [number, number] {
    return [c * CHECK_CHUNK, Math.min(this.qas.length, (c + 1) * CHECK_CHUNK)]
  }

  put(c: number, got: OracleRun[]): void {
    const n = Math.min(CHECK_CHUNK, this.qas.length - c * CHECK_CHUNK)
    if (got.length !== n) return this.fail(new AgentError('agent.check', `an oracle-check thread returned ${got.length} runs for a chunk of ${n} questions`))
    const bad = got.findIndex((r, j) => r.qaId !== this.qas[c * CHECK_CHUNK + j].id)
    if (bad >= 0) return this.fail(new AgentError('agent.check', `an oracle-check thread returned the run of ${got[bad].qaId} for question ${this.qas[c * CHECK_CHUNK + bad].id}`))
    got.forEach((r, j) => (this.runs[c * CHECK_CHUNK + j] = r))
    if (--this.left === 0) this.settle.resolve()
  }

  fail(e: Error): void {
    this.failed = true
    this.settle.reject(e)
  }
}

/** One oracle-check worker thread (infra/worker-pool, one worker). Started at once; attached to a check's scheduler
 *  when the check begins (a warm thread earlier than that: what it reports before — a failure to open the world — is
 *  kept for the attach). Attached, it is kept WORKER_CHUNKS_IN_FLIGHT chunks ahead. */
class CheckThread {
  private readonly pool: Promise<WorkerPool<CheckWorkerRequest, OracleRun[], number>>
  private sched?: ChunkScheduler
  private tick: (n: number) => void = () => undefined
  /** Before the attach: called when the runs of an early chunk came back (the warm check sends the next). */
  onEarlyRuns: () => void = () => undefined
  private early?: string
  private over = false
  private readonly inFlight = new Set<number>()
  private readonly earlyRuns = new Map<number, OracleRun[]>()
  private earlyTicks = 0

  constructor(entry: URL, data: CheckWorkerData) {
    // A bigger young generation: the check allocates ~1 MB of short-lived strings and records per question; with 64 MB
    // semi-spaces (V8's flag --max-semi-space-size=64; young generation = 3 semi-spaces) it spent ~5% less CPU.
    this.pool = WorkerPool.start<CheckWorkerRequest, OracleRun[], number, CheckWorkerData>({
      name: 'oracle-check worker',
      entry,
      size: 1,
      data: () => data,
      // A cold thread (the pool's edges known) says when its runner is open; a warm one takes early chunks at once.
      handshake: data.edges !== undefined,
      resourceLimits: { maxYoungGenerationSizeMb: CHECK_YOUNG_GENERATION_MB, ...workerResourceLimits() },
      error: (m, phase) => new AgentError(phase === 'exit' ? 'agent.check_exit' : 'agent.check', m.replace(/^an oracle-check worker /, 'it ')),
    })
    this.pool.catch((e: Error) => this.fail(e.message))
  }

  /** A chunk of questions before the check began (a warm thread: the qa stage is still drawing the pool). */
  sendEarly(chunk: number, qas: Qa[]): void {
    this.send(chunk, qas)
  }

  /** Early chunks sent and not yet answered. */
  get earlyInFlight(): number {
    return this.inFlight.size
  }

  /** Work for `sched`. Runs of chunks it was sent early count now (the scheduler reserved them); from now on the
   *  thread is kept WORKER_CHUNKS_IN_FLIGHT chunks ahead. */
  attach(sched: ChunkScheduler, tick: (n: number) => void): void {
    this.sched = sched
    this.tick = tick
    if (this.early !== undefined) return this.fail(this.early)
    if (this.earlyTicks > 0) tick(this.earlyTicks)
    for (const [c, runs] of this.earlyRuns) sched.put(c, runs)
    this.earlyRuns.clear()
    for (let i = 0; i < WORKER_CHUNKS_IN_FLIGHT; i++) this.serve(sched)
  }

  /** One more chunk once the thread is ready (a cold thread takes chunks only when its runner is open, so the build's
   *  own thread is not left waiting for chunks a starting thread holds). */
  private serve(sched: ChunkScheduler): void {
    void this.pool.then(
      () => {
        if (this.over) return
        const c = sched.take()
        if (c !== undefined) this.send(c, sched.slice(c))
      },
      () => undefined,
    )
  }

  private send(chunk: number, qas: Qa[]): void {
    this.inFlight.add(chunk)
    void this.pool.then((pool) =>
      pool.call({ chunk, qas }, { onProgress: (n) => (this.sched ? this.tick(n) : (this.earlyTicks += n)) }).then(
        (runs) => this.onRuns(chunk, runs),
        (e: AgentError) => {
          const n = this.inFlight.size
          this.fail(e.code === 'agent.check_exit' ? `${e.message} with ${n} chunk${n === 1 ? '' : 's'} unanswered` : e.message)
        },
      ),
    )
  }

  private onRuns(chunk: number, runs: OracleRun[]): void {
    this.inFlight.delete(chunk)
    const sched = this.sched
    if (!sched) {
      // Before the check: runs of early chunks are kept for the attach.
      this.earlyRuns.set(chunk, runs)
      this.onEarlyRuns()
      return
    }
    sched.put(chunk, runs)
    this.serve(sched)
  }

  stop(): void {
    this.over = true
    void this.pool.then((p) => p.close(), () => undefined)
  }

  private fail(why: string): void {
    if (this.over) return
    if (!this.sched) {
      this.early ??= why
      return
    }
    this.over = true
    this.sched.fail(new AgentError('agent.check', `an oracle-check worker failed: ${why}`))
  }
}

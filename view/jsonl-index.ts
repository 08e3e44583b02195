// view/jsonl-index: an append-aware, background index of one JSONL file — the reading, parsing and checking happen on
// the indexing worker thread (view/index-worker-main), this thread only takes the checked entries; cached by size
// and mtime: an unchanged file is never read again, a grown one (a run still writing) is read from where the last
// pass stopped, a shrunk or rewritten one from the start. A line that is not JSON, or that view/records refuses, is
// flagged (line number, byte offset, reason) and skipped; a torn last line (a writer mid-line) waits for the next
// pass. Knows nothing of what the entries mean.
import { existsSync, statSync } from 'node:fs'
import { workerEntry } from '../infra/worker-bundle'
import { WorkerPool } from '../infra/worker-pool'
import type { ReadBatch, ReadJob, WorkerFlag } from './index-worker-main'
import type { RecordMode } from './records'

export type FlaggedLine = WorkerFlag

export interface IndexProgress {
  /** Bytes read so far / the file's size when the pass started. */
  bytes: number
  total: number
  complete: boolean
}

/** An indexing thread, started on first use; it does not keep the process alive. A thread that died is started
 *  again by the next read. */
class IndexThread {
  private pool: Promise<WorkerPool<ReadJob, void, ReadBatch>> | null = null

  private start(): Promise<WorkerPool<ReadJob, void, ReadBatch>> {
    this.pool ??= workerEntry(new URL('./index-worker-main.ts', import.meta.url), new URL('./index-worker.mjs', import.meta.url)).then((entry) =>
      WorkerPool.start<ReadJob, void, ReadBatch>({
        name: 'indexing worker',
        entry,
        size: 1,
        unref: true,
        error: (m, phase) => new Error(phase === 'exit' ? `indexing worker: ${m.replace(/^an indexing worker /, 'it ')}` : m),
      }),
    )
    return this.pool
  }

  async read(job: ReadJob, onBatch: (m: ReadBatch) => void): Promise<void> {
    const pool = this.start()
    try {
      await (await pool).call(job, { onProgress: onBatch })
    } catch (e) {
      // A dead thread (or one that never started) is replaced on the next read.
      if (this.pool === pool && ((await pool.catch(() => undefined))?.live ?? 0) === 0) this.pool = null
      throw e
    }
  }

  async stop(): Promise<void> {
    const p = this.pool
    this.pool = null
    if (p) await (await p).close()
  }
}

// Two threads: metrics files (small, what the runs page draws first) never queue behind a 400 MB trajectories file.
const threads: Record<RecordMode, IndexThread> = { metrics: new IndexThread(), trajectories: new IndexThread() }

/** Metrics passes running now. A trajectories pass starts only when none is (the small metrics files are what the
 *  first render of the runs page waits for; a 400 MB trajectories file competing for the same cores would delay it). */
let metricsPasses = 0
let metricsIdle: (() => void)[] = []
const whenMetricsIdle = (): Promise<void> => (metricsPasses === 0 ? Promise.resolve() : new Promise((r) => metricsIdle.push(r)))
function metricsPassEnded(): void {
  if (--metricsPasses > 0) return
  const waiting = metricsIdle
  metricsIdle = []
  for (const r of waiting) r()
}

/** Stop the indexing threads (a later index starts new ones). */
export async function stopIndexing(): Promise<void> {
  await Promise.all(Object.values(threads).map((t) => t.stop()))
}

export class JsonlIndex {
  readonly flagged: FlaggedLine[] = []
  private bytes = 0
  private lines = 0
  private size = -1
  private mtimeMs = -1
  private total = 0
  private pass: Promise<void> | null = null
  private error: Error | null = null
  /** Bumped when the index starts over, so batches of an older pass are dropped. */
  private epoch = 0

  constructor(
    readonly path: string,
    private readonly mode: RecordMode,
    /** Takes one checked entry (view/records' answer for this mode). */
    private readonly sink: (entry: unknown) => void,
    /** Called before a pass that starts over (the file shrank or was rewritten): forget everything indexed. */
    private readonly reset: () => void,
  ) {}

  progress(): IndexProgress {
    return { bytes: this.bytes, total: Math.max(this.total, this.bytes), complete: this.pass === null && this.size >= 0 }
  }

  /** The read error of the last pass, if it failed (the file vanished, permissions). */
  failure(): Error | null {
    return this.error
  }

  /** Start a pass when the file changed since the last one (returns at once); `ready()` waits for it. */
  refresh(): void {
    if (this.pass) return
    if (!existsSync(this.path)) {
      if (this.size > 0 || this.bytes) this.startOver()
      this.size = 0
      return
    }
    const st = statSync(this.path)
    if (st.size === this.size && st.mtimeMs === this.mtimeMs) return
    if (st.size < this.bytes || (st.size === this.size && st.mtimeMs !== this.mtimeMs)) this.startOver()
    this.size = st.size
    this.mtimeMs = st.mtimeMs
    this.total = st.size
    const epoch = this.epoch
    const metrics = this.mode === 'metrics'
    if (metrics) metricsPasses++
    const read = () =>
      threads[this.mode].read({ path: this.path, mode: this.mode, from: this.bytes, to: st.size, lineBase: this.lines }, (b) => {
        if (epoch !== this.epoch) return
        for (const e of b.items) this.sink(e)
        this.flagged.push(...b.flagged)
        this.bytes = b.bytes
        this.lines = b.lines
      })
    this.pass = (metrics ? read() : whenMetricsIdle().then(read)).then(
      () => {
        this.pass = null
        if (metrics) metricsPassEnded()
      },
      (e: Error) => {
        this.error = e
        this.pass = null
        if (metrics) metricsPassEnded()
      },
    )
  }

  /** Refresh, then wait until the file is read to its current end. */
  async ready(): Promise<void> {
    this.refresh()
    while (this.pass) await this.pass
  }

  private startOver(): void {
    this.epoch++
    this.bytes = 0
    this.lines = 0
    this.flagged.length = 0
    this.error = null
    this.reset()
  }
}

// bench/trajectory-log: the append-only trajectories.jsonl of a run. Each line goes to the file with one synchronous
// write (a killed process cannot lose it: it is in the OS page cache) and is then fsync'd in the background (group
// commit on the thread pool, so the event loop never blocks on the disk); close() waits for the last fsync.
// On open a torn last line is cut off before appending.
import { closeSync, existsSync, fsync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import { BenchError } from '../infra/errors'
import type { TrajectoryRecord } from './types'

export interface LoadedLog {
  records: TrajectoryRecord[]
  /** Byte length of the intact prefix (everything up to the last complete, parseable line). */
  goodBytes: number
  /** True when a partial or unparseable last line was found (and will be cut off by openAppend). */
  torn: boolean
}

/** Read every complete line; a bad line that is not the last one is corruption, not a torn write. */
export function loadTrajectories(path: string): LoadedLog {
  if (!existsSync(path)) return { records: [], goodBytes: 0, torn: false }
  const buf = readFileSync(path)
  const records: TrajectoryRecord[] = []
  let start = 0
  let goodBytes = 0
  let torn = false
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start)
    const end = nl === -1 ? buf.length : nl
    const line = buf.subarray(start, end).toString('utf8')
    const isLast = nl === -1 || nl === buf.length - 1
    if (line.trim().length > 0) {
      let rec: TrajectoryRecord | undefined
      try {
        rec = JSON.parse(line) as TrajectoryRecord
      } catch {
        rec = undefined
      }
      if (!rec || nl === -1) {
        if (!isLast) throw new BenchError('bench.log_corrupt', `${path}: line at byte ${start} is not valid JSON and is not the last line; the run log is corrupt — start a new --out`)
        torn = true
        break
      }
      records.push(rec)
    }
    goodBytes = end + 1
    start = end + 1
  }
  return { records, goodBytes: Math.min(goodBytes, buf.length), torn }
}

/** Latest record per question id (a re-tried infra error supersedes the first attempt). */
export function latestById(records: readonly TrajectoryRecord[]): Map<string, TrajectoryRecord> {
  const m = new Map<string, TrajectoryRecord>()
  for (const r of records) m.set(r.id, r)
  return m
}

export class TrajectoryWriter {
  private readonly fd: number
  private pos: number
  /** Lines written since the last fsync started. */
  private dirty = false
  private syncing: Promise<void> | null = null
  private syncError: unknown = null

  constructor(path: string, goodBytes: number) {
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+')
    ftruncateSync(this.fd, goodBytes)
    this.pos = goodBytes
  }

  append(rec: TrajectoryRecord): void {
    if (this.syncError) throw this.syncError
    const data = Buffer.from(JSON.stringify(rec) + '\n', 'utf8')
    let off = 0
    while (off < data.length) off += writeSync(this.fd, data, off, data.length - off, this.pos + off)
    this.pos += data.length
    this.dirty = true
    if (!this.syncing) this.syncing = this.syncLoop()
  }

  /** fsync until no line is left unsynced; lines appended meanwhile share the next fsync. */
  private async syncLoop(): Promise<void> {
    while (this.dirty) {
      this.dirty = false
      await new Promise<void>((resolve) =>
        fsync(this.fd, (err) => {
          if (err && !this.syncError) this.syncError = err
          resolve()
        }),
      )
    }
    this.syncing = null
  }

  /** Wait for every appended line to be fsync'd, then close. */
  async close(): Promise<void> {
    while (this.syncing) await this.syncing
    fsyncSync(this.fd)
    closeSync(this.fd)
    if (this.syncError) throw this.syncError
  }
}

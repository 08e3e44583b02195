// view/index-worker-main: the viewer's indexing thread — reads byte ranges of run JSONL files in 1 MB chunks, parses
// and checks every line (view/records), and posts each chunk's entries and malformed lines back, so the server's
// thread never parses a big file. Several reads interleave chunk by chunk (a small metrics file is not stuck behind a
// 400 MB trajectories file). Never writes.
import { open } from 'node:fs/promises'
import { serveWorker } from '../infra/worker-serve'
import { MetricBatchBuilder, summarize, type RecordMode } from './records'

export interface ReadJob {
  path: string
  mode: RecordMode
  /** Bytes from .. to (to: the file's size when the pass started); lineBase: lines before `from`. */
  from: number
  to: number
  lineBase: number
}

export interface WorkerFlag {
  line: number
  offset: number
  reason: string
  preview: string
}

/** One chunk's entries, posted as the read's progress (infra/worker-serve). */
export interface ReadBatch {
  items: unknown[]
  flagged: WorkerFlag[]
  bytes: number
  lines: number
}

const CHUNK = 1 << 20

async function read(j: ReadJob, post: (m: ReadBatch) => void): Promise<void> {
  const fh = await open(j.path, 'r')
  try {
    let lines = j.lineBase
    let items: unknown[] = []
    const metrics = new MetricBatchBuilder()
    let flagged: WorkerFlag[] = []
    const take = (buf: Buffer, from: number, to: number, base: number) => {
      lines++
      const line = buf.subarray(from, to)
      let blank = true
      for (let i = 0; i < line.length && blank; i++) if (line[i] !== 32 && line[i] !== 9 && line[i] !== 13) blank = false
      if (blank) return
      const flag = (reason: string) => flagged.push({ line: lines, offset: base + from, reason, preview: line.subarray(0, 160).toString('utf8') })
      let value: unknown
      try {
        value = JSON.parse(line.toString('utf8'))
      } catch (e) {
        flag(`not JSON: ${(e as Error).message}`)
        return
      }
      if (j.mode === 'metrics') {
        const bad = metrics.add(value)
        if (bad !== null) flag(bad)
        return
      }
      const checked = summarize(value, base + from, base + to)
      if (typeof checked === 'string') flag(checked)
      else items.push(checked)
    }
    const flush = (bytes: number) => {
      // Metric rows cross as one columnar batch (thousands of tiny arrays are slow to copy between threads).
      post({ items: j.mode === 'metrics' ? (metrics.size ? [metrics.take()] : []) : items, flagged, bytes, lines })
      items = []
      flagged = []
    }
    let carry: Buffer = Buffer.alloc(0)
    let carryStart = j.from
    let pos = j.from
    while (pos < j.to) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, j.to - pos))
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos)
      if (bytesRead === 0) break
      pos += bytesRead
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead)
      let start = 0
      for (;;) {
        const nl = buf.indexOf(10, start)
        if (nl < 0) break
        take(buf, start, nl, carryStart)
        start = nl + 1
      }
      carry = buf.subarray(start)
      carryStart += start
      flush(carryStart)
      await new Promise((r) => setImmediate(r))
    }
    // A last line without a newline: taken when it parses (a finished file), else left for the next pass (torn).
    if (carry.length) {
      let whole = true
      try {
        JSON.parse(carry.toString('utf8'))
      } catch {
        whole = false
      }
      if (whole) {
        take(carry, 0, carry.length, carryStart)
        flush(carryStart + carry.length)
      }
    }
  } finally {
    await fh.close()
  }
}

serveWorker<undefined, ReadJob, void, ReadBatch>(() => ({ handle: (j, progress) => read(j, progress) }))

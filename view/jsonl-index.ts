// view/jsonl-index: an append-aware, asynchronous reader of one JSONL file — read in 1 MB chunks off the event loop's
// path (each chunk's lines parsed, then the next read awaited), cached by size and mtime: an unchanged file is never
// read again, a grown one (a run still writing) is read from where the last pass stopped, a shrunk or rewritten one
// from the start. A line that is not JSON, or that `accept` refuses, is flagged (line number, byte offset, reason)
// and skipped; a torn last line (a writer mid-line) waits for the next pass. Knows nothing of what the lines mean.
import { existsSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'

export interface FlaggedLine {
  /** 1-based line number in the file. */
  line: number
  offset: number
  reason: string
  /** The line's first characters. */
  preview: string
}

export interface IndexProgress {
  /** Bytes read so far / the file's size when the pass started. */
  bytes: number
  total: number
  complete: boolean
}

/** What a consumer does with each parsed line: return a reason string to flag it, anything else to accept it. */
export type LineSink = (value: unknown, start: number, end: number) => string | void

const CHUNK = 1 << 20

export class JsonlIndex {
  readonly flagged: FlaggedLine[] = []
  private bytes = 0
  private lines = 0
  private size = -1
  private mtimeMs = -1
  private total = 0
  private pass: Promise<void> | null = null
  private error: Error | null = null

  constructor(
    readonly path: string,
    private readonly sink: LineSink,
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
      if (this.size !== -1 || this.bytes) this.startOver()
      this.size = 0
      return
    }
    const st = statSync(this.path)
    if (st.size === this.size && st.mtimeMs === this.mtimeMs) return
    if (st.size < this.bytes || (st.size === this.size && st.mtimeMs !== this.mtimeMs)) this.startOver()
    this.size = st.size
    this.mtimeMs = st.mtimeMs
    this.total = st.size
    this.pass = this.read(st.size).then(
      () => {
        this.pass = null
      },
      (e: Error) => {
        this.error = e
        this.pass = null
      },
    )
  }

  /** Refresh, then wait until the file is read to its current end. */
  async ready(): Promise<void> {
    this.refresh()
    while (this.pass) await this.pass
  }

  private startOver(): void {
    this.bytes = 0
    this.lines = 0
    this.flagged.length = 0
    this.error = null
    this.reset()
  }

  private flag(start: number, reason: string, line: Buffer): void {
    this.flagged.push({ line: this.lines, offset: start, reason, preview: line.subarray(0, 160).toString('utf8') })
  }

  private take(buf: Buffer, from: number, to: number, base: number): void {
    this.lines++
    const line = buf.subarray(from, to)
    let blank = true
    for (let i = 0; i < line.length && blank; i++) if (line[i] !== 32 && line[i] !== 9 && line[i] !== 13) blank = false
    if (blank) return
    let value: unknown
    try {
      value = JSON.parse(line.toString('utf8'))
    } catch (e) {
      this.flag(base + from, `not JSON: ${(e as Error).message}`, line)
      return
    }
    const why = this.sink(value, base + from, base + to)
    if (typeof why === 'string') this.flag(base + from, why, line)
  }

  private async read(upTo: number): Promise<void> {
    const fh = await open(this.path, 'r')
    try {
      let carry: Buffer = Buffer.alloc(0)
      let carryStart = this.bytes
      let pos = this.bytes
      while (pos < upTo) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK, upTo - pos))
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos)
        if (bytesRead === 0) break
        pos += bytesRead
        const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead)
        let start = 0
        for (;;) {
          const nl = buf.indexOf(10, start)
          if (nl < 0) break
          this.take(buf, start, nl, carryStart)
          start = nl + 1
        }
        carry = buf.subarray(start)
        carryStart += start
        this.bytes = carryStart
        // Let requests in between chunks even when the disk answers from cache.
        await new Promise((r) => setImmediate(r))
      }
      // A last line without a newline: taken when it parses (a finished file), else left for the next pass (torn).
      if (carry.length) {
        try {
          JSON.parse(carry.toString('utf8'))
          this.take(carry, 0, carry.length, carryStart)
          this.bytes = carryStart + carry.length
        } catch {
          // a writer mid-line
        }
      }
    } finally {
      await fh.close()
    }
  }
}

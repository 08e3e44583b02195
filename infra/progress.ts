// infra/progress: progress for long work — count, rate and ETA; a redrawn bar on a TTY, structured lines otherwise.
export interface Progress {
  tick(n?: number): void
  /** Set the absolute count. */
  update(done: number): void
  done(): void
}

export interface ProgressOptions {
  /** Where to write; defaults to stderr. */
  stream?: NodeJS.WriteStream
  /** Silence all output (tests, library use). */
  quiet?: boolean
  /** Minimum milliseconds between two renders. */
  intervalMs?: number
  /** Extra text shown after the counts on every render (e.g. accuracy so far); a JSON `detail` field otherwise. */
  detail?: () => string
}

function fmtSecs(s: number): string {
  if (!Number.isFinite(s)) return '?'
  if (s < 60) return `${s.toFixed(0)}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}

export function progress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr
  const quiet = opts.quiet ?? process.env.SEARCHGYM_QUIET === '1'
  const tty = Boolean(stream.isTTY)
  const interval = opts.intervalMs ?? (tty ? 100 : 2000)
  const start = performance.now()
  let count = 0
  let last = 0
  let finished = false

  const render = (final: boolean) => {
    if (quiet) return
    const now = performance.now()
    if (!final && now - last < interval) return
    last = now
    const secs = (now - start) / 1000
    const rate = secs > 0 ? count / secs : 0
    const eta = rate > 0 && total > 0 ? (total - count) / rate : NaN
    const pct = total > 0 ? Math.min(100, (100 * count) / total) : 100
    if (tty) {
      const width = 24
      const fill = Math.round((pct / 100) * width)
      const bar = '#'.repeat(fill) + '-'.repeat(width - fill)
      const extra = opts.detail ? ` | ${opts.detail()}` : ''
      stream.write(`\r${label} [${bar}] ${count}/${total} ${pct.toFixed(0)}% ${rate.toFixed(0)}/s ETA ${final ? '0s' : fmtSecs(eta)}${extra}   `)
      if (final) stream.write(`\n`)
    } else {
      stream.write(
        JSON.stringify({ progress: label, done: count, total, rate: Number(rate.toFixed(1)), etaSec: final ? 0 : Number.isFinite(eta) ? Math.round(eta) : null, elapsedSec: Number(secs.toFixed(1)), ...(opts.detail ? { detail: opts.detail() } : {}) }) + '\n',
      )
    }
  }

  return {
    tick(n = 1) {
      count += n
      render(false)
    },
    update(d: number) {
      count = d
      render(false)
    },
    done() {
      if (finished) return
      finished = true
      render(true)
    },
  }
}

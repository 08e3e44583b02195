// infra/recorded-path: the paths a run folder records — relative to that folder with '/' separators, so a copied or
// moved folder still names its world, model and start (resolved from where the folder now is), and never a machine's
// absolute path — the test that a recorded path and a path given now name the same thing, and a folder's content
// fingerprint (how a folder moved away from its inputs still recognises them without their absolute paths).
import { createHash } from 'node:crypto'
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/** p as recorded in `folder`: relative to it ('.' for the folder itself), '/'-separated on every OS. A path that
 *  shares no folder with `folder` but the file-system root would climb to the root and spell p's absolute path: it is
 *  written portably instead — relative to the git checkout that holds it (e.g. 'curriculum/starts/reader-v0'), else
 *  its last two names — and is then found by content (the record's identity), not from where the folder is. */
export function recordedPath(folder: string, p: string): string {
  const from = resolve(folder), to = resolve(p)
  const r = relative(from, to)
  if (r === '') return '.'
  const parts = r.split(sep)
  const ups = parts.filter((x) => x === '..').length
  if (ups > 0 && ups >= from.split(sep).filter(Boolean).length) return portableName(to)
  return parts.join('/')
}

/** An absolute path written without the machine's folders: relative to its git checkout's root, else its last two names. */
function portableName(abs: string): string {
  for (let d = dirname(abs); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return relative(d, abs).split(sep).join('/')
    if (dirname(d) === d) return abs.split(sep).filter(Boolean).slice(-2).join('/')
  }
}

/** Where a path recorded in `folder` points now (an absolute one, from an older run folder, as it is). */
export function resolveRecorded(folder: string, rec: string): string {
  return isAbsolute(rec) ? rec : resolve(folder, rec)
}

/** Whether `rec`, recorded in `folder` (relative, or absolute in an older folder), names `given` (a path given now),
 *  or `origin` (the absolute path it was recorded from) does: a folder moved away from its world still matches. */
export function sameRecordedPath(folder: string, rec: string, given: string, origin?: string): boolean {
  const g = resolve(given)
  return resolveRecorded(folder, rec) === g || (origin !== undefined && resolve(origin) === g)
}

/** Bytes hashed whole per file; a larger file is identified by its size and its first and last FINGERPRINT_EDGE bytes
 *  (weights differ there as anywhere: a model or adapter folder is told apart without reading gigabytes). */
const FINGERPRINT_WHOLE = 16 * 1024 * 1024
const FINGERPRINT_EDGE = 4 * 1024 * 1024

/** A folder's content fingerprint: sha256 over its regular files (not its subfolders, not dotfiles) — names, sizes and
 *  bytes (see FINGERPRINT_WHOLE). A model or adapter folder copied anywhere keeps it; '' when the folder cannot be read. */
export function folderFingerprint(dir: string): string {
  let names: string[]
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name).sort()
  } catch {
    return ''
  }
  const h = createHash('sha256')
  for (const name of names) {
    const f = join(dir, name)
    const size = statSync(f).size
    h.update(`${name}\0${size}\0`)
    const fd = openSync(f, 'r')
    try {
      const read = (at: number, n: number) => {
        const b = Buffer.allocUnsafe(n)
        let got = 0
        while (got < n) {
          const k = readSync(fd, b, got, n - got, at + got)
          if (k === 0) break
          got += k
        }
        h.update(b.subarray(0, got))
      }
      if (size <= FINGERPRINT_WHOLE) read(0, size)
      else {
        read(0, FINGERPRINT_EDGE)
        read(size - FINGERPRINT_EDGE, FINGERPRINT_EDGE)
      }
    } finally {
      closeSync(fd)
    }
  }
  return h.digest('hex')
}

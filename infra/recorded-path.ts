// infra/recorded-path: the paths a run folder records — relative to that folder with '/' separators, so a copied or
// moved folder still names its world, model and start (resolved from where the folder now is) — and the test
// that a recorded path and a path given now name the same thing.
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** p as recorded in `folder`: relative to it ('.' for the folder itself), '/'-separated on every OS. */
export function recordedPath(folder: string, p: string): string {
  const r = relative(resolve(folder), resolve(p))
  return r === '' ? '.' : r.split(sep).join('/')
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

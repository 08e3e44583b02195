// view/shown-path: how the viewer shows a folder's path in its lists — relative to the folder it was started from when
// the path is inside it, else '…/' and its last two names — never a machine's absolute path (a page or a screenshot
// of it is shared). Knows nothing of runs or worlds.
import { isAbsolute, relative, resolve, sep } from 'node:path'

export function shownPath(p: string, from = process.cwd()): string {
  const r = relative(resolve(from), resolve(p))
  if (r === '') return '.'
  if (!r.startsWith('..') && !isAbsolute(r)) return r.split(sep).join('/')
  return '…/' + resolve(p).split(sep).filter(Boolean).slice(-2).join('/')
}

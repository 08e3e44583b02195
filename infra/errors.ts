// infra/errors: the root error class and the per-package subclasses. Errors say what was wrong and what to do.
export class SearchGymError extends Error {
  /** Stable machine-readable code, e.g. 'config.unknown_key'. */
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}
export class ConfigError extends SearchGymError {}
export class StoreError extends SearchGymError {}
export class WorldError extends SearchGymError {}
export class SearchError extends SearchGymError {}
export class GymError extends SearchGymError {}
export class AgentError extends SearchGymError {}
export class EngineError extends SearchGymError {}
export class BenchError extends SearchGymError {}

/** One line for a user: the message of a SearchGymError, a file-system refusal in words (fsRefusal), or the first
 *  line of anything else. */
export function oneLine(err: unknown): string {
  const fs = fsRefusal(err)
  if (fs) return fs
  const msg = err instanceof Error ? err.message : String(err)
  return msg.split('\n')[0]
}

const FS_REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
  ENOTDIR: 'a file stands where a folder is needed',
  EISDIR: 'a folder stands where a file is needed',
}

const FS_VERBS: Record<string, string> = { mkdir: 'create the folder', open: 'open', write: 'write', rename: 'rename into', copyfile: 'copy to', unlink: 'remove', rmdir: 'remove', symlink: 'link', scandir: 'list' }

/** A raw Node file-system error (EPERM, EACCES, EROFS, ENOSPC, … with its syscall and path) as one sentence that says
 *  what could not be done where and what to do; undefined for anything else. Any command that writes a folder (model
 *  init, experiment run, …) reports an unwritable one this way through the CLI's one error path. */
export function fsRefusal(err: unknown): string | undefined {
  // Duck-typed: an fs error from another realm (a vm context, a worker) is no `instanceof Error` here.
  if (typeof err !== 'object' || err === null || err instanceof SearchGymError) return undefined
  const e = err as NodeJS.ErrnoException
  const why = e.code !== undefined ? FS_REFUSALS[e.code] : undefined
  if (why === undefined || typeof e.path !== 'string') return undefined
  const verb = (e.syscall && FS_VERBS[e.syscall]) ?? 'write'
  const fix = e.code === 'ENOSPC' || e.code === 'EDQUOT' ? 'free some space or choose another folder' : 'choose a folder you can write (e.g. under the current one) or fix its permissions'
  return `cannot ${verb} ${e.path}: ${why} (${e.code}); ${fix}`
}

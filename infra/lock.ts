// infra/lock: one writer per folder — a lock file created with O_EXCL holding the owner's PID, host and command. A lock
// whose process is gone (same host, PID not alive) is taken over; a live one is a one-line error naming the owner.
// Knows nothing of worlds: callers say what the folder is.
import { hostname } from 'node:os'
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { SearchGymError } from './errors'

export class LockError extends SearchGymError {}

export const LOCK_FILE = '.searchgym.lock'

interface LockInfo {
  pid: number
  host: string
  command: string
  started: string
  token: string
}

export interface DirLock {
  /** Remove the lock file (only if it is still ours). Safe to call twice. */
  release(): void
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as LockInfo
    return typeof v === 'object' && v !== null && Number.isInteger(v.pid) ? v : undefined
  } catch {
    return undefined // vanished, or half-written by a writer that died mid-write: treated as stale
  }
}

const held = new Set<string>()
let exitHook = false

/**
 * Take the lock of `dir` for `what` (e.g. 'world build'). Throws LockError when another live process — or another
 * call in this process — holds it. A stale lock (its PID is dead on this host, or the file is unreadable) is taken over.
 */
export function lockDir(dir: string, what: string): DirLock {
  const path = join(dir, LOCK_FILE)
  const me: LockInfo = {
    pid: process.pid,
    host: hostname(),
    command: `${what} (${process.argv.slice(1, 4).join(' ').slice(0, 160)})`,
    started: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number
    try {
      fd = openSync(path, 'wx')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError('lock.io', `cannot create the lock ${path}: ${(e as Error).message}`, { cause: e })
      const other = readLock(path)
      if (other && (other.host !== me.host || alive(other.pid)))
        throw new LockError(
          'lock.held',
          `${dir} is in use by process ${other.pid} on ${other.host} (${other.command}, since ${other.started}); wait for it to finish, or remove ${path} if that process is gone`,
        )
      // Stale: move it aside atomically (only one taker wins the rename of this file), then try again.
      try {
        renameSync(path, `${path}.stale-${me.token}`)
        unlinkSync(`${path}.stale-${me.token}`)
      } catch {
        /* another process took it over first; the next attempt sees its lock */
      }
      continue
    }
    try {
      writeSync(fd, JSON.stringify(me))
    } finally {
      closeSync(fd)
    }
    held.add(path)
    if (!exitHook) {
      exitHook = true
      // A crash by exception still removes our locks; a SIGKILL leaves a stale one, which the PID check handles.
      process.once('exit', () => {
        for (const p of held) if (readLock(p)?.pid === process.pid) safeUnlink(p)
      })
    }
    let released = false
    return {
      release() {
        if (released) return
        released = true
        held.delete(path)
        if (readLock(path)?.token === me.token) safeUnlink(path)
      },
    }
  }
  throw new LockError('lock.contended', `could not take the lock ${path} after 3 attempts; another process keeps taking it over`)
}

function safeUnlink(p: string): void {
  try {
    unlinkSync(p)
  } catch {
    /* already gone */
  }
}

/** Run fn holding the lock of dir; the lock is released however fn ends. */
export async function withDirLock<T>(dir: string, what: string, fn: () => Promise<T> | T): Promise<T> {
  const lock = lockDir(dir, what)
  try {
    return await fn()
  } finally {
    lock.release()
  }
}

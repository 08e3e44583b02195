// gym/address-file: the server address file AReaL/ASearcher's local knowledge-base client looks for —
// `$RAG_SERVER_ADDR_DIR/Host<ip>_IP<port>.txt` holding `ip:port` (or `ip:port/t/TOKEN` on a token-protected server) with
// no trailing newline (ASearcher reads the file without stripping one). Written by `gym serve --address-file DIR`,
// removed when the server stops. A hidden sidecar `.Host<ip>_IP<port>.txt.pid` names the writing process, so a file a
// killed server left behind (SIGKILL runs no exit hook) is recognised as stale: removed by the next `gym serve` in
// that folder and skipped by liveAddresses(). ASearcher itself cannot check pids (it picks any file at random).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { GymError } from '../infra/errors'

/** ASearcher's glob is `Host*_IP*.txt` (AReaL/ASearcher/utils/search_utils.py:42 at 813e804). */
const ADDRESS_FILE = /^Host.+_IP\d+\.txt$/

/** The address other machines reach: the bound host, or the first external IPv4 when bound to every interface. */
export function reachableHost(host: string): string {
  if (host !== '0.0.0.0' && host !== '::' && host !== '') return host
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return '127.0.0.1'
}

const pidFile = (path: string) => join(path, '..', `.${path.split('/').pop()}.pid`)

/** Whether a process with this id runs on this machine (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The pid recorded next to an address file, or undefined when there is no readable sidecar (another writer's file). */
function recordedPid(path: string): number | undefined {
  try {
    const n = Number(readFileSync(pidFile(path), 'utf8').trim())
    return Number.isInteger(n) && n > 0 ? n : undefined
  } catch {
    return undefined
  }
}

/** Write `DIR/Host<ip>_IP<port>.txt` = `ip:port` + pathPrefix (e.g. `/t/TOKEN`) and its pid sidecar; returns its path. */
export function writeAddressFile(dir: string, host: string, port: number, pathPrefix = ''): string {
  const ip = reachableHost(host)
  // An IPv6 address is written in brackets so `http://` + the file's text stays a valid URL.
  const hostPart = ip.includes(':') ? `[${ip}]` : ip
  const path = join(dir, `Host${ip}_IP${port}.txt`)
  try {
    mkdirSync(dir, { recursive: true })
    writeFileSync(pidFile(path), String(process.pid))
    // A path prefix carries the server's token: readable by the owner only.
    writeFileSync(path, `${hostPart}:${port}${pathPrefix}`, { mode: pathPrefix ? 0o600 : 0o644 })
  } catch (e) {
    throw new GymError('server.address_file', `cannot write the address file ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e })
  }
  return path
}

export function removeAddressFile(path: string): void {
  rmSync(path, { force: true })
  rmSync(pidFile(path), { force: true })
}

function addressFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => ADDRESS_FILE.test(f)).sort().map((f) => join(dir, f))
  } catch {
    return []
  }
}

/** Remove the address files in DIR whose recorded writer no longer runs; returns the removed paths with their pids.
 * Files without a sidecar (written by something else) are left alone. */
export function removeStaleAddressFiles(dir: string): { path: string; pid: number }[] {
  const out: { path: string; pid: number }[] = []
  for (const path of addressFiles(dir)) {
    const pid = recordedPid(path)
    if (pid !== undefined && !pidAlive(pid)) {
      removeAddressFile(path)
      out.push({ path, pid })
    }
  }
  return out
}

/** The addresses a reader should use: every address file's text, skipping those whose recorded writer is dead. */
export function liveAddresses(dir: string): string[] {
  const out: string[] = []
  for (const path of addressFiles(dir)) {
    const pid = recordedPid(path)
    if (pid !== undefined && !pidAlive(pid)) continue
    try {
      out.push(readFileSync(path, 'utf8'))
    } catch {
      // removed between the listing and the read
    }
  }
  return out
}

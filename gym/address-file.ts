// gym/address-file: the server address file AReaL/ASearcher's local knowledge-base client looks for —
// `$RAG_SERVER_ADDR_DIR/Host<ip>_IP<port>.txt` holding `ip:port` with no trailing newline (ASearcher reads the
// file without stripping one). Written by `gym serve --address-file DIR`, removed when the server stops.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { GymError } from '../infra/errors'

/** The address other machines reach: the bound host, or the first external IPv4 when bound to every interface. */
export function reachableHost(host: string): string {
  if (host !== '0.0.0.0' && host !== '::' && host !== '') return host
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return '127.0.0.1'
}

/** Write `DIR/Host<ip>_IP<port>.txt` = `ip:port`; returns its path. */
export function writeAddressFile(dir: string, host: string, port: number): string {
  const ip = reachableHost(host)
  // An IPv6 address is written in brackets so `http://` + the file's text stays a valid URL.
  const hostPart = ip.includes(':') ? `[${ip}]` : ip
  const path = join(dir, `Host${ip}_IP${port}.txt`)
  try {
    mkdirSync(dir, { recursive: true })
    writeFileSync(path, `${hostPart}:${port}`)
  } catch (e) {
    throw new GymError('server.address_file', `cannot write the address file ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e })
  }
  return path
}

export function removeAddressFile(path: string): void {
  rmSync(path, { force: true })
}

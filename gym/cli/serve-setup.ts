// gym/cli/serve-setup: what every `gym serve` process role shares once the command line is resolved — the config, the
// token, the log, the open-host warning, the address file — and the one way a serving process opens its world and its
// HTTP server. The roles (serve-alone, serve-primary, serve-worker) each take a ServeSetup; none parses a flag.
import { openGymWorld } from '../open-gym-world'
import { removeStaleAddressFiles, writeAddressFile } from '../address-file'
import { pathPrefixFor } from '../path-token'
import { startGymServer, type SessionsFactory } from '../server'
import type { EngineName } from '../../world'
import type { GymServeConfig } from './serve-fields'

export interface ServeSetup {
  /** The world folder. */
  dir: string
  c: GymServeConfig
  token: string
  /** Worker processes (the config's, or the machine's cores). */
  workers: number
  /** /retrieve search threads of each serving process. */
  searchThreads: number
  engine?: EngineName
  embedder?: string
  log(line: string): void
  /** The open-host warning, said once by the process that prints the URL. */
  warnOpen(): void
}

/** The address file for a server on `port` (stale ones of dead servers removed first); undefined without one. */
export function writeAddress(setup: ServeSetup, port: number): string | undefined {
  const folder = setup.c.addressFile
  if (!folder) return undefined
  for (const st of removeStaleAddressFiles(folder)) setup.log(`removed the stale address file ${st.path} (its server, pid ${st.pid}, no longer runs)`)
  return writeAddressFile(folder, setup.c.host, port, setup.token ? pathPrefixFor(setup.token) : '')
}

/** ', /retrieve serves passages' when it does (the URL line says so). */
export const unitNote = (setup: ServeSetup) => (setup.c.retrieveUnit === 'passage' ? ', /retrieve serves passages' : '')

/** A serving process's world and HTTP server, with `sessions` (a worker's cluster sessions) or the server's own. */
export async function openServer(setup: ServeSetup, port: number, sessions?: SessionsFactory) {
  const { c } = setup
  const world = await openGymWorld(setup.dir, { engine: setup.engine, embedder: setup.embedder, allowEngineMismatch: c.allowEngineMismatch, searchThreads: setup.searchThreads })
  const s = await startGymServer(world, {
    host: c.host,
    port,
    token: setup.token,
    maxTopK: c.maxTopK,
    retrieveUnit: c.retrieveUnit,
    maxEnvs: c.maxEnvs,
    envIdleMs: Math.round(c.idleSeconds * 1000),
    maxBatchQueries: c.maxBatchQueries,
    maxQueryChars: c.maxQueryChars,
    maxBodyBytes: c.maxBodyBytes,
    maxRetrieveHits: c.maxRetrieveHits,
    maxResponseBytes: c.maxResponseBytes,
    allowHosts: c.allowHost,
    sessions,
  })
  return { world, s }
}

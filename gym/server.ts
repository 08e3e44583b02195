// gym/server: the gym over HTTP (hono on @hono/node-server) — the server's options (defaults, ranges), the one map from
// errors to HTTP statuses, and createGymServer, which composes the server from its parts: the guards (gym/server-guards:
// Host/Origin, bearer token, JSON-only, body limit), the env API (gym/server-env-routes: health, questions, env
// sessions), the stateless tools (gym/server-search-routes: search, access, /retrieve and /access for outside engines)
// and OpenEnv's face (gym/openenv); startGymServer listens. Every bad input is a 4xx JSON error {error: {message, type,
// param, code}} (infra/http). Built from any GymWorld (fixture or openGymWorld). The HTTP stack (hono,
// @hono/node-server, the zod schemas, the parts above) is imported when a server is made, so the commands that import
// the gym and serve nothing (gym check, bench, train) never load it.
import type { AddressInfo } from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Context, Hono } from 'hono'
import { mergeStrict } from '../infra/config'
import { ConfigError, GymError, SearchError, SearchGymError } from '../infra/errors'
import type { Qa, RetrieveUnit, Split } from '../world'
import type { EnvRegistry } from './env-registry'
import { resolveGymOptions, type GymOptions } from './make-env'
import { LocalEnvSessions, type EnvSessions } from './env-sessions'
import { errorBody, HttpError, type HttpStatus } from '../infra/http/errors'
import type { GymWorld } from './world-view'
import { getPathWithoutToken } from './path-token'
import { passageRetriever } from './passages'

export interface GymServerOptions {
  /** Token required on every route but /health — as `Authorization: Bearer TOKEN` or as the path prefix `/t/TOKEN/`
   * (gym/path-token; for engines that send no header); empty: no auth. Without it /health says only `{"status":"up"}`. */
  token: string
  maxBodyBytes: number
  maxQueryChars: number
  maxUrlChars: number
  maxActionChars: number
  maxEnvs: number
  envIdleMs: number
  maxTopK: number
  /** Queries answered per /retrieve call; the rest of a longer batch is answered empty, with a note. */
  maxBatchQueries: number
  /** Most hits (queries x topk) one /retrieve call may ask for; more is a 413 before any search. */
  maxRetrieveHits: number
  /** Largest /retrieve answer in bytes; a bigger one is a 413. */
  maxResponseBytes: number
  /** Options every created env starts from; a create request may override them. */
  envDefaults: Partial<GymOptions>
  /** What a /retrieve hit is: a whole page (default) or a ~100-word passage with the title as first line (gym/passages). */
  retrieveUnit: RetrieveUnit
  /** The interface the server listens on: its name is an accepted Host (infra/http/host-guard). */
  bindHost: string
  /** Extra Host names accepted besides loopback and bindHost (gym serve --allow-host; '*': any). */
  allowHosts: string[]
}

export const DEFAULT_SERVER_OPTIONS: GymServerOptions = {
  token: '',
  // Search-R1's default GRPO batch is 512 prompts x 5 samples = 2,560 queries per /retrieve call.
  maxBodyBytes: 16 << 20,
  maxQueryChars: 2048,
  maxUrlChars: 2048,
  maxActionChars: 200_000,
  maxEnvs: 4096,
  envIdleMs: 10 * 60_000,
  maxTopK: 50,
  maxBatchQueries: 16_384,
  // 2,560 x 25 or 16,384 x 4: Search-R1's stock batch at any topk it uses; 16,384 x 50 (~2 GB of answer) is refused.
  maxRetrieveHits: 65_536,
  maxResponseBytes: 256 << 20,
  envDefaults: {},
  retrieveUnit: 'page',
  bindHost: '127.0.0.1',
  allowHosts: [],
}

export interface GymServer {
  app: Hono
  /** This process's envs (in worker mode: this worker's). */
  registry: EnvRegistry
  options: GymServerOptions
  /** The HTTP server's 'upgrade' listener: the OpenEnv face's WebSocket sessions (gym/openenv). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  dispose(): void
}

/** Ranges of the numeric server options (the same rules `gym serve` applies to its flags). */
export const SERVER_OPTION_RANGES: Record<Exclude<keyof GymServerOptions, 'token' | 'envDefaults' | 'retrieveUnit' | 'bindHost' | 'allowHosts'>, [number, number]> = {
  maxBodyBytes: [1024, 1 << 30],
  maxQueryChars: [1, 1_000_000],
  maxUrlChars: [1, 1_000_000],
  maxActionChars: [1, 100_000_000],
  maxEnvs: [1, 10_000_000],
  envIdleMs: [10, 7 * 24 * 3600_000],
  maxTopK: [1, 1000],
  maxBatchQueries: [1, 10_000_000],
  maxRetrieveHits: [1, 100_000_000],
  maxResponseBytes: [1024, 1 << 30],
}

/** Check every numeric server option against its range; a bad one is a ConfigError naming it. */
export function validateServerOptions(o: GymServerOptions, name: (key: string) => string = (k) => `server option ${k}`): void {
  for (const [k, [lo, hi]] of Object.entries(SERVER_OPTION_RANGES)) {
    const v = (o as unknown as Record<string, unknown>)[k]
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
      throw new ConfigError('server.bad_option', `${name(k)} must be an integer in [${lo}, ${hi}], got ${String(v)}`)
  }
}

/** The server's version, as /metadata and /openapi.json of the OpenEnv face say it (package.json's). */
export const SERVER_VERSION = '0.1.0'

/** Retry-After (seconds) of a 429 env.limit. */
export const ENV_LIMIT_RETRY_AFTER_S = 1

export function statusOf(e: unknown): { status: HttpStatus; code: string; message: string } {
  if (e instanceof HttpError) return { status: e.status, code: e.code, message: e.message }
  if (e instanceof SearchGymError) {
    const byCode: Record<string, 404 | 409 | 429> = {
      'env.not_found': 404,
      'env.expired': 404,
      'env.unknown_qa': 404,
      'env.busy': 409,
      'env.limit': 429,
    }
    const s = byCode[e.code]
    if (s) return { status: s, code: e.code, message: e.message }
    // Option/spec errors are the caller's input; a failing search engine is the server's (503, never for bad input).
    if (e instanceof SearchError) return { status: 503, code: e.code, message: e.message }
    if (e instanceof ConfigError || e instanceof GymError) return { status: 400, code: e.code, message: e.message }
  }
  return { status: 500, code: 'internal', message: 'internal error; see the server log' }
}

/** Where a server's envs live: this process (default), or routed between worker processes (gym/cluster-sessions),
 *  built from the merged options and the resolved env defaults. */
export type SessionsFactory = (world: GymWorld, o: GymServerOptions, envDefaults: GymOptions) => { sessions: EnvSessions; registry: EnvRegistry }

const localSessions: SessionsFactory = (world, o, envDefaults) => {
  const sessions = new LocalEnvSessions(world, envDefaults, o.maxEnvs, o.envIdleMs)
  return { sessions, registry: sessions.registry }
}

/** The server's error answer: statusOf's status and code in the JSON error body (a 500's stack goes to stderr only). */
function answerError(err: Error, c: Context) {
  const s = statusOf(err)
  if (s.status === 500) process.stderr.write(`searchgym gym server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  // A full server: come back in a second (an env frees when a client closes one; clients that wait do not poll hot).
  const headers: Record<string, string> = s.code === 'env.limit' ? { 'retry-after': String(ENV_LIMIT_RETRY_AFTER_S) } : {}
  return c.json(errorBody(s.status, s.code, s.message, err instanceof HttpError ? err.param : null), s.status, headers)
}

/** The world's questions per split (all: no split), listed once on first use. */
function questionLists(world: GymWorld): (split?: Split) => Qa[] {
  const splits = new Map<string, Qa[]>()
  return (split?: Split) => {
    const key = split ?? '*'
    let l = splits.get(key)
    if (!l) splits.set(key, (l = world.listQa(split)))
    return l
  }
}

/** The server: options merged and checked, its env sessions, then the app — error answers, guards
 *  (gym/server-guards), the env API (gym/server-env-routes), the stateless tools (gym/server-search-routes), OpenEnv's
 *  face (gym/openenv) — in that order. dispose() closes OpenEnv's sessions, then the envs. */
export async function createGymServer(world: GymWorld, options: Partial<GymServerOptions> = {}, makeSessions: SessionsFactory = localSessions): Promise<GymServer> {
  const o = mergeStrict(DEFAULT_SERVER_OPTIONS, options, 'server options', ['server options.envDefaults'])
  validateServerOptions(o)
  // One after the other (concurrent imports of one graph trip jest's ESM loader).
  const { Hono } = await import('hono')
  const { installGuards, tokenCheck } = await import('./server-guards')
  const { gymSchemas } = await import('./server-schemas')
  const { mountEnvRoutes } = await import('./server-env-routes')
  const { mountSearchRoutes } = await import('./server-search-routes')
  const envDefaults = resolveGymOptions(o.envDefaults)
  const { sessions, registry } = makeSessions(world, o, envDefaults)
  const qaList = questionLists(world)
  // Routes match with a leading /t/TOKEN cut off (gym/path-token); the auth middleware checks that token.
  const app = new Hono({ getPath: getPathWithoutToken })
  // OpenEnv's routes, WebSocket and MCP over these same sessions and guards (gym/openenv; docs/openenv.md).
  const { openEnvFace } = await import('./openenv')
  const openenv = openEnvFace({ world, sessions, envDefaults, qaList, limits: o, version: SERVER_VERSION })
  const authorized = tokenCheck(o.token)
  if (o.retrieveUnit !== 'page' && o.retrieveUnit !== 'passage') throw new ConfigError('server.bad_option', `server option retrieveUnit must be page or passage, got ${String(o.retrieveUnit)}`)
  const passages = o.retrieveUnit === 'passage' ? passageRetriever(world) : undefined

  app.onError(answerError)
  app.notFound((c) => c.json(errorBody(404, 'route.not_found', `no route ${c.req.method} ${c.req.path.slice(0, 200)}`), 404))
  installGuards(app, { options: o, errorShape: openenv.errorShape, authorized })
  const schemas = gymSchemas({ ...o, searchTopK: envDefaults.topK })
  mountEnvRoutes(app, { world, sessions, qaList, schemas, authorized })
  mountSearchRoutes(app, { world, options: o, envDefaults, schemas, passages })
  openenv.mount(app)

  return {
    app,
    registry,
    options: o,
    upgrade: openenv.upgrade,
    dispose: () => {
      openenv.dispose()
      sessions.dispose()
    },
  }
}

/** How long an idle keep-alive connection stays open. */
export const GYM_KEEP_ALIVE_MS = 65_000

export interface RunningGymServer {
  url: string
  port: number
  server: GymServer
  close(): Promise<void>
}

/** Listen on host:port (port 0 picks a free one). */
export async function startGymServer(
  world: GymWorld,
  opts: Partial<GymServerOptions> & { host?: string; port?: number; sessions?: SessionsFactory } = {},
): Promise<RunningGymServer> {
  const { host = '127.0.0.1', port = 0, sessions, ...rest } = opts
  const gs = await createGymServer(world, { bindHost: host, ...rest }, sessions)
  const { serve } = await import('@hono/node-server')
  return new Promise((resolve, reject) => {
    const srv = serve({ fetch: gs.app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const h = host.includes(':') ? `[${host}]` : host
      resolve({
        url: `http://${h}:${info.port}`,
        port: info.port,
        server: gs,
        close: () =>
          new Promise<void>((res) => {
            gs.dispose()
            if ('closeAllConnections' in srv) srv.closeAllConnections()
            srv.close(() => res())
          }),
      })
    })
    srv.on('upgrade', gs.upgrade)
    // Node's 5 s keep-alive resets reused connections of clients starved past undici's 4 s reuse window (a loaded
    // trainer); idle sockets stay open 65 s, as in model serve.
    const http = srv as unknown as { keepAliveTimeout: number; headersTimeout: number }
    http.keepAliveTimeout = GYM_KEEP_ALIVE_MS
    http.headersTimeout = GYM_KEEP_ALIVE_MS + 1000
    srv.once('error', (e) => reject(new GymError('server.listen', `cannot listen on ${host}:${port}: ${e.message}`)))
  })
}

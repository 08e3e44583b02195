// gym/server: the gym over HTTP (hono on @hono/node-server) — env sessions (create by QA id or split+index, step,
// close), stateless search/access, /retrieve (Search-R1, verl, AReaL/ASearcher shapes), ASearcher's /access {urls}, health
// (open and reaped envs); bearer token, body/query/env limits, idle expiry (the server's, or shorter per env).
// Every bad input is a 4xx JSON error {error: {message, type, param, code}} (infra/http). Batch endpoints never fail a
// batch for one item: a bad or over-long item is answered empty or cut, and the response says so. Built from any
// GymWorld (fixture or openGymWorld). The HTTP stack (hono, @hono/node-server, the zod schemas) is imported when a
// server is made, so the commands that import the gym and serve nothing (gym check, bench, train) never load it.
import cluster from 'node:cluster'
import { timingSafeEqual, createHash } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Context, Hono } from 'hono'
import { mergeStrict } from '../infra/config'
import { ConfigError, GymError, SearchError, SearchGymError } from '../infra/errors'
import type { RetrieveUnit, Split } from '../world'
import type { EnvRegistry } from './env-registry'
import { resolveGymOptions, type GymOptions } from './make-env'
import { LocalEnvSessions, type EnvSessions } from './env-sessions'
import { errorBody, HttpError, type HttpStatus } from '../infra/http/errors'
import { hostGuard, requireJson } from '../infra/http/host-guard'
import { parseJsonBody, type Body } from './server-validate'
import { checkRetrieveWork, retrieveResultParts, streamJson } from './retrieve-batch'
import type { GymWorld, SearchResult } from './world-view'
import { extraFieldNotes, IGNORED_FIELDS_HEADER } from './extra-fields'
import { getPathWithoutToken, pathToken, rawPath } from './path-token'
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

const digest = (s: string) => createHash('sha256').update(s).digest()

/** The server's version, as /metadata and /openapi.json of the OpenEnv face say it (package.json's). */
export const SERVER_VERSION = '0.1.0'

/** A refused body declared at most this long is read and discarded before the 413 (see tooLargeDrained), for at most
 *  DRAIN_MAX_MS. */
const DRAIN_MAX_BYTES = 64 << 20
const DRAIN_MAX_MS = 10_000

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

export async function createGymServer(world: GymWorld, options: Partial<GymServerOptions> = {}, makeSessions: SessionsFactory = localSessions): Promise<GymServer> {
  const o = mergeStrict(DEFAULT_SERVER_OPTIONS, options, 'server options', ['server options.envDefaults'])
  validateServerOptions(o)
  // One after the other (concurrent imports of one graph trip jest's ESM loader).
  const { Hono } = await import('hono')
  const { bodyLimit } = await import('hono/body-limit')
  const { checkBody, gymSchemas, toAction, DEFAULT_RETRIEVE_TOPK } = await import('./server-schemas')
  const envDefaults = resolveGymOptions(o.envDefaults)
  const { sessions, registry } = makeSessions(world, o, envDefaults)
  const splits = new Map<string, ReturnType<GymWorld['listQa']>>()
  const qaList = (split?: Split) => {
    const key = split ?? '*'
    let l = splits.get(key)
    if (!l) splits.set(key, (l = world.listQa(split)))
    return l
  }
  // Routes match with a leading /t/TOKEN cut off (gym/path-token); the auth middleware checks that token.
  const app = new Hono({ getPath: getPathWithoutToken })
  const loggedFields = new Set<string>()
  // OpenEnv's routes, WebSocket and MCP over these same sessions and guards (gym/openenv; docs/openenv.md).
  const { openEnvFace } = await import('./openenv')
  const openenv = openEnvFace({ world, sessions, envDefaults, qaList, limits: o, version: SERVER_VERSION })
  const tokenDigest = o.token ? digest(o.token) : undefined
  if (o.retrieveUnit !== 'page' && o.retrieveUnit !== 'passage') throw new ConfigError('server.bad_option', `server option retrieveUnit must be page or passage, got ${String(o.retrieveUnit)}`)
  const passages = o.retrieveUnit === 'passage' ? passageRetriever(world) : undefined

  app.onError((err, c) => {
    const s = statusOf(err)
    if (s.status === 500) process.stderr.write(`searchgym gym server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    // A full server: come back in a second (an env frees when a client closes one; clients that wait do not poll hot).
    const headers: Record<string, string> = s.code === 'env.limit' ? { 'retry-after': String(ENV_LIMIT_RETRY_AFTER_S) } : {}
    return c.json(errorBody(s.status, s.code, s.message, err instanceof HttpError ? err.param : null), s.status, headers)
  })
  app.notFound((c) => c.json(errorBody(404, 'route.not_found', `no route ${c.req.method} ${c.req.path.slice(0, 200)}`), 404))

  app.use('*', openenv.errorShape) // first: it sees the guards' refusals on OpenEnv paths
  // A response sent before the request body was read (401, 404, 413, ...) leaves unread bytes on the connection:
  // close it instead of letting a keep-alive client send its next request into them.
  app.use('*', async (c, next) => {
    await next()
    const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined
    if (hasBody && !c.req.raw.bodyUsed) c.res.headers.set('connection', 'close')
  })
  // DNS rebinding and blind cross-site POSTs: a foreign Host or Origin is refused; a POST with a body must be JSON.
  app.use('*', hostGuard({ bindHost: o.bindHost, allowHosts: o.allowHosts }))
  const jsonOnly = requireJson()
  app.use('*', (c, next) => (c.req.header('content-type') !== undefined || Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined ? jsonOnly(c, next) : next()))
  const authorized = (c: Context): boolean => {
    if (!tokenDigest) return true
    const m = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')
    const given = m ? m[1].trim() : pathToken(rawPath(c.req.url))
    return given !== undefined && timingSafeEqual(digest(given), tokenDigest)
  }
  app.use('*', async (c, next) => {
    if (c.req.path !== '/health' && !authorized(c))
      return c.json(errorBody(401, 'auth.unauthorized', 'missing or wrong token (Authorization: Bearer TOKEN, or the URL path prefix /t/TOKEN/)'), 401)
    await next()
  })
  // The unread rest of a refused body makes the connection unusable: tell the client not to reuse it.
  const tooLarge = (c: Context) =>
    c.json(errorBody(413, 'request.too_large', `the request body exceeds ${o.maxBodyBytes} bytes`), 413, {
      connection: 'close',
    })
  // A client still sending a refused body reads a 413 sent at once only by luck: the close resets the connection and
  // the peer's kernel may drop the answer with it (TCP RST). A declared body of up to DRAIN_MAX_BYTES is read and
  // discarded first (a lingering close, as nginx does; bounded in bytes and in time, nothing kept), then answered.
  const tooLargeDrained = async (c: Context, length: number) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    if (incoming && length <= DRAIN_MAX_BYTES) {
      const drained = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), DRAIN_MAX_MS)
        incoming.once('end', () => (clearTimeout(t), resolve(true)))
        incoming.once('error', () => (clearTimeout(t), resolve(false)))
        incoming.resume()
      })
      if (drained) return c.json(errorBody(413, 'request.too_large', `the request body exceeds ${o.maxBodyBytes} bytes`), 413)
    }
    return tooLarge(c)
  }
  const streamingLimit = bodyLimit({ maxSize: o.maxBodyBytes, onError: tooLarge })
  app.use('*', async (c, next) => {
    // With a Content-Length the header decides, and the body is later read on @hono/node-server's fast path
    // (hono's bodyLimit touches Request.body, which builds a full web Request per call: ~10% of the server's CPU).
    const te = c.req.header('transfer-encoding')
    const cl = c.req.header('content-length')
    if (te === undefined && cl !== undefined) return Number(cl) > o.maxBodyBytes ? tooLargeDrained(c, Number(cl)) : next()
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    return streamingLimit(c, next) // chunked uploads: counted while streaming
  })

  const schemas = gymSchemas({ ...o, searchTopK: envDefaults.topK })
  const body = async (c: Context): Promise<Body> => parseJsonBody(await c.req.text())

  // Public, for load balancers: with a token set, an unauthenticated /health answers only that the server is up (no world,
  // counts or pids, and no call to another worker); with the token (or without one set), the detail (open envs, envs reaped
  // by idle expiry since start, the world's content hash, the serving process's pid — the primary's under --workers N):
  // "degraded" while a worker of --workers N is down (still 200: the other workers serve; a server with none up does not
  // answer at all). 503 server.starting while a worker's peers are still coming up, with the token or without.
  const servingPid = cluster.isWorker ? process.ppid : process.pid
  app.get('/health', async (c) => {
    if (sessions.starting?.()) return c.json(errorBody(503, 'server.starting', 'gym serve is starting: not every worker is up yet'), 503)
    if (!authorized(c)) return c.json({ status: 'up' })
    const h = await sessions.health()
    // Degraded while a worker is down or up but silent (each is named in workers.list: alive, responding, silentSince).
    const status = h.workers && h.workers.responding < h.workers.count ? 'degraded' : 'ok'
    return c.json({ status, world: world.name, ...(world.hash ? { worldHash: world.hash } : {}), qa: qaList().length, ...h, pid: servingPid })
  })

  app.get('/v1/qa', (c) => {
    const split = c.req.query('split')
    if (split !== undefined && split !== 'train' && split !== 'bench')
      throw new HttpError(400, 'request.bad_field', 'split must be train or bench')
    const num = (k: string, d: number, hi: number) => {
      const v = c.req.query(k)
      if (v === undefined) return d
      const n = Number(v)
      if (!Number.isInteger(n) || n < 0 || n > hi) throw new HttpError(400, 'request.bad_field', `${k} must be an integer in [0, ${hi}]`)
      return n
    }
    const all = qaList(split as Split | undefined)
    const offset = num('offset', 0, Number.MAX_SAFE_INTEGER)
    const limit = num('limit', 100, 10_000)
    // Question metadata only: answers stay on the server.
    const items = all.slice(offset, offset + limit).map((q) => ({ id: q.id, type: q.type, hops: q.hops, split: q.split, question: q.question }))
    return c.json({ total: all.length, offset, items })
  })

  app.post('/v1/envs', async (c) => {
    const b = checkBody(schemas.createEnv, await body(c))
    let qa
    if (b.qaId != null) {
      if (b.split != null || b.index != null) throw new HttpError(400, 'request.bad_body', 'give either qaId or split + index, not both')
      qa = world.qa(b.qaId)
      if (!qa) throw new HttpError(404, 'qa.not_found', `no QA with id ${JSON.stringify(b.qaId.slice(0, 100))}`)
    } else {
      if (b.split == null) throw new HttpError(400, 'request.missing_field', 'give qaId, or split (train or bench) + index', 'split')
      if (b.index == null) throw new HttpError(400, 'request.missing_field', 'the field "index" is required with split', 'index')
      const list = qaList(b.split)
      if (b.index >= list.length)
        throw new HttpError(404, 'qa.not_found', `split ${b.split} has ${list.length} questions; index ${b.index} is out of range`)
      qa = list[b.index]
    }
    const { envId, observation, tools } = await sessions.create(qa, b.options ?? {}, b.idleSeconds == null ? undefined : Math.round(b.idleSeconds * 1000))
    // The question's text beside its metadata (as /v1/qa lists it): a client need not dig it out of the observation.
    return c.json({ envId, qa: { id: qa.id, type: qa.type, hops: qa.hops, split: qa.split, question: qa.question }, observation, tools }, 201)
  })

  app.post('/v1/envs/:id/step', async (c) => {
    const a = toAction(checkBody(schemas.step, await body(c)).action)
    return jsonText(c, await sessions.step(c.req.param('id'), a))
  })

  const close = async (c: Context) => jsonText(c, await sessions.close(c.req.param('id') ?? ''))
  app.delete('/v1/envs/:id', close)
  app.post('/v1/envs/:id/close', close)

  app.post('/v1/search', async (c) => {
    const { query, k: kIn } = checkBody(schemas.search, await body(c))
    const k = kIn ?? envDefaults.topK
    return c.json({ results: query.trim() ? await world.search(query, k) : [] })
  })

  app.post('/v1/access', async (c) => {
    const { url } = checkBody(schemas.access, await body(c))
    const page = await world.access(url.trim())
    if (!page) throw new HttpError(404, 'access.not_found', `no such page: ${JSON.stringify(url.slice(0, 200))}`)
    return c.json({ page })
  })

  // Search-R1's retrieval server: {"queries": [...], "topk": k, "return_scores": bool} → {"result": [[...]]}. Its rollout
  // sends every active sample's query in one call: [] when no sample searched, up to batch x n (2,560) otherwise.
  // One bad item never fails the batch: a non-string is answered [], an over-long query is cut, queries past
  // maxBatchQueries are answered [] — each noted in `notes` and counted in the x-searchgym-retrieve-notes header.
  app.post('/retrieve', async (c) => {
    const raw = await body(c)
    const b = checkBody(schemas.retrieve, raw)
    const ignored = extraFieldNotes(loggedFields, '/retrieve', raw)
    if (ignored) c.header(IGNORED_FIELDS_HEADER, ignored)
    const qs = b.queries
    const topk = b.topk ?? DEFAULT_RETRIEVE_TOPK
    const withScores = b.return_scores ?? false
    const notes: RetrieveNote[] = []
    const queries: string[] = new Array<string>(qs.length)
    for (let i = 0; i < qs.length; i++) {
      const q: unknown = qs[i]
      if (i >= o.maxBatchQueries) {
        queries[i] = ''
        if (i === o.maxBatchQueries) notes.push({ index: i, note: `queries ${i}..${qs.length - 1} not searched: at most ${o.maxBatchQueries} per call (gym serve --max-batch-queries)` })
      } else if (typeof q !== 'string') {
        queries[i] = ''
        notes.push({ index: i, note: 'not a string; answered []' })
      } else if (q.length > o.maxQueryChars) {
        queries[i] = q.slice(0, o.maxQueryChars)
        notes.push({ index: i, note: `cut from ${q.length} to ${o.maxQueryChars} characters (gym serve --max-query-chars)` })
      } else queries[i] = q
    }
    // Bounded up front (both units): one batch never stalls /health or another env's steps.
    const work = { maxHits: o.maxRetrieveHits, maxResponseBytes: o.maxResponseBytes }
    checkRetrieveWork(Math.min(qs.length, o.maxBatchQueries), topk, work)
    // Pages or passages: searched a slice at a time off the event loop (on the search threads when there are), streamed
    // (gym/retrieve-batch). Shapes (Search-R1/verl with scores, AReaL/ASearcher flat items): gym/retrieve-batch, gym/passages.
    // A streamed Response bypasses c.header(): the ignored-fields header goes in explicitly.
    const parts = await retrieveResultParts(world, queries, topk, withScores, work, passages)
    const headers: Record<string, string> = ignored ? { [IGNORED_FIELDS_HEADER]: ignored } : {}
    if (notes.length === 0) return streamJson(parts, {}, headers)
    return streamJson(parts, { notes }, { ...headers, 'x-searchgym-retrieve-notes': String(notes.length) })
  })

  // AReaL/ASearcher's access call: {"urls": [...]} → {"result": [page | null]}, one entry per url in order. An unknown
  // page (or a non-string / over-long url) is null with 200: ASearcher retries a 404 or a missing key ten times and
  // then stops the run. `contents` is title + "\n" + text, the same as a /retrieve hit.
  app.post('/access', async (c) => {
    const raw = await body(c)
    const { urls } = checkBody(schemas.accessMany, raw)
    const ignored = extraFieldNotes(loggedFields, '/access', raw)
    if (ignored) c.header(IGNORED_FIELDS_HEADER, ignored)
    if (urls.length > o.maxBatchQueries)
      throw new HttpError(400, 'request.too_many', `at most ${o.maxBatchQueries} urls per /access call, got ${urls.length} (gym serve --max-batch-queries)`, 'urls')
    const result = await Promise.all(
      urls.map(async (u) => {
        if (typeof u !== 'string' || u.length > o.maxUrlChars) return null
        const page = await world.access(u.trim())
        return page ? { id: page.url, url: page.url, title: page.title, contents: `${page.title}\n${page.text}`, text: page.text } : null
      }),
    )
    return c.json({ result })
  })

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

/** A 200 whose body is JSON text already (a step or close answer, possibly from another worker). */
const jsonText = (c: Context, text: string) => c.body(text, 200, { 'content-type': 'application/json' })

interface RetrieveNote {
  /** Position of the query in the request's `queries`. */
  index: number
  note: string
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

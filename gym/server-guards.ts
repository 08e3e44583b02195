// gym/server-guards: what every gym server request passes before a route, in order — connection close after an unread
// body, the Host/Origin allowlist, JSON-only bodies, the bearer or path token (all but /health), the body limit (a
// declared over-long body drained before its 413). Loaded when a server is made (it imports hono's body limit); it
// knows no route, world or env.
import { timingSafeEqual, createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Context, Hono, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { errorBody } from '../infra/http/errors'
import { hostGuard, requireJson } from '../infra/http/host-guard'
import { pathToken, rawPath } from './path-token'

/** A refused body declared at most this long is read and discarded before the 413 (see tooLargeDrained), for at most
 *  DRAIN_MAX_MS. */
const DRAIN_MAX_BYTES = 64 << 20
const DRAIN_MAX_MS = 10_000

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Whether a request carries the server's token (as `Authorization: Bearer TOKEN` or the path prefix /t/TOKEN/);
 *  always true when no token is set. Compared in constant time. */
export function tokenCheck(token: string): (c: Context) => boolean {
  const tokenDigest = token ? digest(token) : undefined
  return (c) => {
    if (!tokenDigest) return true
    const m = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')
    const given = m ? m[1].trim() : pathToken(rawPath(c.req.url))
    return given !== undefined && timingSafeEqual(digest(given), tokenDigest)
  }
}

export interface GuardOptions {
  options: { maxBodyBytes: number; bindHost: string; allowHosts: string[] }
  /** OpenEnv's error shape: first, so that it sees the guards' refusals on OpenEnv paths. */
  errorShape: MiddlewareHandler
  authorized: (c: Context) => boolean
}

/** Register the guards on every path, in the order they must run. */
export function installGuards(app: Hono, g: GuardOptions): void {
  const o = g.options
  app.use('*', g.errorShape)
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
  app.use('*', async (c, next) => {
    if (c.req.path !== '/health' && !g.authorized(c))
      return c.json(errorBody(401, 'auth.unauthorized', 'missing or wrong token (Authorization: Bearer TOKEN, or the URL path prefix /t/TOKEN/)'), 401)
    await next()
  })
  app.use('*', bodyLimitGuard(o))
}

/** The body limit: with a Content-Length the header decides; chunked uploads are counted while streaming. */
function bodyLimitGuard(o: { maxBodyBytes: number }): MiddlewareHandler {
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
  return async (c, next) => {
    // With a Content-Length the header decides, and the body is later read on @hono/node-server's fast path
    // (hono's bodyLimit touches Request.body, which builds a full web Request per call: ~10% of the server's CPU).
    const te = c.req.header('transfer-encoding')
    const cl = c.req.header('content-length')
    if (te === undefined && cl !== undefined) return Number(cl) > o.maxBodyBytes ? tooLargeDrained(c, Number(cl)) : next()
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    return streamingLimit(c, next) // chunked uploads: counted while streaming
  }
}

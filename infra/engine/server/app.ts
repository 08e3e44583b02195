// infra/engine/server/app: the OpenAI-compatible HTTP surface (hono): POST /v1/chat/completions, POST /v1/completions
// (token-id prompts), GET /v1/models, GET /health. Errors answer in OpenAI's JSON shape with a code (infra/http). Bodies
// are refused by size before they are read (Content-Length) or while they stream (chunked). Listening is listen.ts's job.
import { createHash, timingSafeEqual } from 'node:crypto'
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { hostGuard, requireJson } from '../../http/host-guard'
import { oneLine } from '../../errors'
import { ApiError } from './api-error'
import type { ChatService } from './chat-service'
import { completeTokens, parseTokenCompletionRequest } from './completions'
import { DEFAULT_LIMITS, parseChatRequest, type RequestLimits } from './validate'

/** The status a log line gives a request whose client disconnected before its answer (nginx's code). */
export const CLIENT_GONE_STATUS = 499

export interface AppOptions {
  limits?: RequestLimits
  /** Bodies larger than this many bytes are refused (413). Default: what the longest prompt the service reads can
   * take as JSON (6 bytes a character, as \uXXXX escapes) + 1 MiB, at most 64 MiB. */
  maxBodyBytes?: number
  /** The interface the server listens on: its name is an accepted Host (infra/http/host-guard). Default 127.0.0.1. */
  bindHost?: string
  /** Extra Host names accepted besides loopback and bindHost ('*': any). */
  allowHosts?: readonly string[]
  /** Bearer token required on every route but /health; empty or absent: no auth. */
  token?: string
  /** Called with each request's outcome (for a log line); optional. */
  onRequest?: (info: { path: string; status: number; ms: number; promptTokens?: number; completionTokens?: number }) => void
}

export function createServerApp(service: ChatService, opts: AppOptions = {}): Hono {
  const app = new Hono()
  // When each request arrived: the log line of an error (onError) says how long it took, as a success's does.
  // Keyed by the context: body limits may replace c.req.raw on the way.
  const started = new WeakMap<Context, number>()
  const elapsed = (c: Context) => performance.now() - (started.get(c) ?? performance.now())
  app.use('*', async (c, next) => {
    started.set(c, performance.now())
    await next()
  })
  const limits = opts.limits ?? DEFAULT_LIMITS
  const maxBody = opts.maxBodyBytes ?? defaultMaxBodyBytes(service.maxPromptChars)
  const tooLarge = (len: number | string) => new ApiError(413, 'body_too_large', `the request body is ${len} bytes; the limit is ${maxBody}`)
  // DNS rebinding and blind cross-site POSTs: a foreign Host or Origin is refused, a POST must be JSON.
  app.use('*', hostGuard({ bindHost: opts.bindHost ?? '127.0.0.1', allowHosts: opts.allowHosts }))
  if (opts.token) {
    const digest = (v: string) => createHash('sha256').update(v).digest()
    const want = digest(opts.token)
    app.use('*', async (c, next) => {
      if (c.req.path === '/health') return next()
      const m = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')
      if (!m || !timingSafeEqual(digest(m[1].trim()), want))
        return c.json(new ApiError(401, 'invalid_api_key', 'missing or wrong bearer token (Authorization: Bearer TOKEN; model serve --token)').body(), 401)
      return next()
    })
  }
  app.use('/v1/chat/completions', requireJson())
  app.use('/v1/completions', requireJson())
  // Chunked uploads carry no Content-Length: count them while they stream.
  const streamingLimit = bodyLimit({ maxSize: maxBody, onError: (c) => c.json(tooLarge(`over ${maxBody}`).body(), 413, { connection: 'close' }) })
  app.use('/v1/*', async (c, next) => {
    if (c.req.method !== 'POST') return next()
    const cl = c.req.header('content-length')
    if (cl !== undefined && c.req.header('transfer-encoding') === undefined) {
      // Answered at once; @hono/node-server then drains the unread body, so the client reads the 413 instead of a reset.
      if (Number(cl) > maxBody) return c.json(tooLarge(cl).body(), 413)
      return next()
    }
    return streamingLimit(c, next)
  })

  app.get('/health', (c) => c.json({ status: 'ok', models: service.modelIds(), queue: service.queue.depth, dropped: service.queue.dropped, cancelled: service.queue.cancelled }))

  app.get('/v1/models', (c) =>
    c.json({ object: 'list', data: service.modelIds().map((id) => ({ id, object: 'model', created: 0, owned_by: 'searchgym' })) }),
  )

  app.post('/v1/chat/completions', async (c) => {
    const body = parseJsonBody(await c.req.text())
    const completion = await service.complete(parseChatRequest(body, limits), c.req.raw.signal)
    opts.onRequest?.({
      path: c.req.path,
      status: 200,
      ms: elapsed(c),
      promptTokens: completion.usage.prompt_tokens,
      completionTokens: completion.usage.completion_tokens,
    })
    return c.json(completion)
  })

  // Token-id prompts with per-token log-probs (vLLM/SGLang shape) for RL samplers: see completions.ts.
  app.post('/v1/completions', async (c) => {
    const body = parseJsonBody(await c.req.text())
    const r = await completeTokens(service, parseTokenCompletionRequest(body, service.opts.tokenizer.vocabSize, limits.maxN), c.req.raw.signal)
    opts.onRequest?.({ path: c.req.path, status: 200, ms: elapsed(c), promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens })
    return c.json(r)
  })

  app.notFound((c) => {
    const e = new ApiError(404, 'not_found', `no route ${c.req.method} ${c.req.path}; try POST /v1/chat/completions, POST /v1/completions
// (token-id prompts), GET /v1/models, GET /health`)
    return c.json(e.body(), 404)
  })

  app.onError((err, c) => {
    const e = err instanceof ApiError ? err : new ApiError(500, 'internal_error', `the engine failed: ${oneLine(err)}`)
    // A client that left is logged with nginx's 499 (client closed request), not as a bad request; no answer reaches it.
    opts.onRequest?.({ path: c.req.path, status: e.code === 'client_gone' ? CLIENT_GONE_STATUS : e.status, ms: elapsed(c) })
    return c.json(e.body(), e.status)
  })

  return app
}

/** Deepest nesting a request body may have: tool schemas and arguments are a few levels; 20,000 would overflow the
 *  stack of every recursive walk after the parse (a 500). */
export const MAX_JSON_DEPTH = 64

/** The body as JSON, refused (400) when it is not JSON or nests deeper than MAX_JSON_DEPTH. */
function parseJsonBody(text: string): unknown {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (e) {
    throw new ApiError(400, 'invalid_json', `the request body is not valid JSON: ${oneLine(e)}`)
  }
  // Iterative, so the check itself cannot overflow.
  const stack: [unknown, number][] = [[body, 1]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (d > MAX_JSON_DEPTH) throw new ApiError(400, 'invalid_value', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`, 'body')
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (typeof x === 'object' && x !== null) stack.push([x, d + 1])
  }
  return body
}

export function defaultMaxBodyBytes(maxPromptChars: number): number {
  return Math.min(64 << 20, maxPromptChars * 6 + (1 << 20))
}

// gym/openenv/http-face: OpenEnv's HTTP routes on the gym server's hono app — POST /reset, POST /step, GET /state,
// GET /schema, GET /metadata, GET /openapi.json (what `openenv validate --url` reads, _validation.py:102-427), POST /mcp,
// and GET /ws (the WebSocket's handshake; answered 426 to a plain GET) — at the root and again under /openenv, where
// /health is OpenEnv's HealthResponse too (types.py:239-245). Errors are FastAPI's shape, as an OpenEnv server answers:
// {"detail": [{type, loc, msg}]} with 422 for a request that does not validate, {"detail": "…"} with the gym's status
// (401, 403, 404, 409, 413, 415, 421, 429) for the rest, the gym's stable code in the x-searchgym-error-code header;
// the value that failed is never echoed. The guards in front of every gym route (Host/Origin, token, JSON content type,
// body size) apply unchanged. Knows no WebSocket framing (gym/openenv/ws-face) and no env (gym/openenv/episode).
import type { Context, Hono, MiddlewareHandler } from 'hono'
import type { GymWorld } from '../world-view'
import type { HttpSessions } from './http-sessions'
import { answerRpc, RPC } from './mcp'
import { check, OPENENV_PATHS, OPENENV_PREFIX, parseAction, schemaResponse, ValidationProblems, type WireSchemas } from './wire'

type Json = Record<string, unknown>

/** A response header naming the gym's stable error code of a refusal on the OpenEnv face. */
export const ERROR_CODE_HEADER = 'x-searchgym-error-code'
/** The answer of the handshake probe that lets a WebSocket upgrade through (gym/openenv/ws-face; never sent to a client). */
export const WS_ACCEPT_HEADER = 'x-searchgym-ws'

export const isOpenEnvPath = (path: string): boolean =>
  (OPENENV_PATHS as readonly string[]).includes(path) || path === OPENENV_PREFIX || path.startsWith(`${OPENENV_PREFIX}/`)

/** Every refusal on an OpenEnv path in FastAPI's shape: the gym's {error: {message, code}} becomes {detail: message}. */
export function openEnvErrorShape(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    if (c.res.status < 400 || !isOpenEnvPath(c.req.path)) return
    let body: unknown
    try {
      body = await c.res.clone().json()
    } catch {
      return
    }
    const err = (body as { error?: { message?: unknown; code?: unknown } } | null)?.error
    if (!err || typeof err.message !== 'string') return
    const headers = new Headers(c.res.headers)
    headers.set('content-type', 'application/json')
    headers.delete('content-length')
    if (typeof err.code === 'string') headers.set(ERROR_CODE_HEADER, err.code)
    c.res = new Response(JSON.stringify({ detail: err.message }), { status: c.res.status, headers })
  }
}

export interface HttpFaceDeps {
  world: GymWorld
  schemas: WireSchemas
  sessions: HttpSessions
  /** Whether the server's default env has the access tool (tools/list without a session). */
  defaultAccess: boolean
  version: string
}

/** The body as JSON ({} when empty, for /reset); a body that is not JSON or not an object is a 422 as FastAPI's. */
async function jsonBody(c: Context, emptyIs?: Json): Promise<Json> {
  const text = await c.req.text()
  if (text.trim() === '' && emptyIs) return emptyIs
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new ValidationProblems([{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }])
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ValidationProblems([{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object' }])
  return v as Json
}

/** 422 {detail: [...]} for a request that does not validate; every other error goes on to the server's handler. */
const validated =
  (fn: (c: Context) => Promise<Response>) =>
  async (c: Context): Promise<Response> => {
    try {
      return await fn(c)
    } catch (e) {
      if (e instanceof ValidationProblems) return c.json({ detail: e.problems }, 422, { [ERROR_CODE_HEADER]: 'request.invalid' })
      throw e
    }
  }

function openApi(base: string, version: string): Json {
  const op = (summary: string) => ({ summary, responses: { '200': { description: 'OK' }, '422': { description: 'Validation Error' } } })
  return {
    openapi: '3.1.0',
    info: { title: 'OpenEnv Environment HTTP API (SearchGym)', version: '1.0.0', description: `searchgym ${version}: the gym server's OpenEnv face (docs/openenv.md)` },
    paths: {
      [`${base}/reset`]: { post: op('Reset: open a session with an episode of one question') },
      [`${base}/step`]: { post: op("Step: the assistant's turn, or one tool call, in a session") },
      [`${base}/state`]: { get: op("State of a session's episode (?session_id=)") },
      [`${base}/schema`]: { get: op('JSON schemas of action, observation and state') },
      [`${base}/metadata`]: { get: op('Environment metadata') },
      [`${base}/health`]: { get: op('Health check') },
      [`${base}/mcp`]: { post: op('MCP JSON-RPC: tools/list, tools/call, openenv/session/create|close') },
    },
  }
}

/** Register the OpenEnv routes at `base` ('' or OPENENV_PREFIX). */
export function registerOpenEnvRoutes(app: Hono, base: string, d: HttpFaceDeps): void {
  if (base === OPENENV_PREFIX) app.get(`${base}/health`, (c) => c.json({ status: 'healthy' }))

  app.post(
    `${base}/reset`,
    validated(async (c) => {
      const { session_id, ...params } = check(d.schemas.httpReset, await jsonBody(c, {}), ['body'])
      return c.json(await d.sessions.reset(params, session_id))
    }),
  )

  app.post(
    `${base}/step`,
    validated(async (c) => {
      const b = check(d.schemas.httpStep, await jsonBody(c), ['body'])
      const action = parseAction(d.schemas, b.action, ['body', 'action'])
      return c.json(await d.sessions.step(b.session_id, action))
    }),
  )

  app.get(`${base}/state`, async (c) => {
    const sid = c.req.query('session_id')
    // Without a session, what OpenEnv's GET /state gives for a fresh env (http_server.py:1159-1164): an empty State.
    if (sid === undefined || sid === '') return c.json({ episode_id: null, step_count: 0 })
    return c.json(await d.sessions.state(sid.slice(0, 200)))
  })

  app.get(`${base}/schema`, (c) => c.json(schemaResponse(d.schemas)))

  app.get(`${base}/metadata`, (c) =>
    c.json({
      name: 'search_gym',
      description: `SearchGym world ${d.world.name}: multi-hop questions answered with search and access tools over a synthetic web; reward: the gym's reward spec (default token F1)`,
      readme_content: null,
      version: d.version,
      author: null,
      documentation_url: null,
    }),
  )

  app.get(`${base}/openapi.json`, (c) => c.json(openApi(base, d.version)))

  app.post(`${base}/mcp`, async (c) => {
    const text = await c.req.text()
    let raw: unknown
    try {
      raw = JSON.parse(text)
    } catch {
      return c.json({ jsonrpc: '2.0', id: null, error: { code: RPC.parse, message: 'Parse error' } })
    }
    return c.json(await answerRpc(raw, { schemas: d.schemas, defaultAccess: d.defaultAccess, http: d.sessions }))
  })

  // The WebSocket handshake comes through here as a probe from gym/openenv/ws-face (c.env.openenvUpgrade), after the
  // guards every route passes; a plain GET is told to upgrade.
  app.get(`${base}/ws`, (c) => {
    if ((c.env as { openenvUpgrade?: unknown } | undefined)?.openenvUpgrade === true) return c.body(null, 204, { [WS_ACCEPT_HEADER]: 'accept' })
    return c.json({ detail: 'this is the WebSocket endpoint of the OpenEnv session protocol: connect with a WebSocket client (ws://HOST:PORT/ws)' }, 426, { upgrade: 'websocket' })
  })
}

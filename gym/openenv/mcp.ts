// gym/openenv/mcp: the OpenEnv face's MCP JSON-RPC (POST /mcp and the /ws message type "mcp") — tools/list, tools/call
// and OpenEnv's session methods, as http_server.py:670-962 answers them: a JSON-RPC 2.0 response with `result` or
// `error` (mcp_types.py:33-160), never an HTTP error. A tools/call plays one step of a session's episode (the tool call
// as the env's protocol writes it; answer ends the episode), so its result carries the step's reward and done beside
// the tool's text. Over HTTP the session is one of HttpSessions (openenv/session/create opens it with reset's
// parameters); over /ws the socket's own episode. Knows no transport.
import { HttpError } from '../../infra/http/errors'
import { toolSchemas } from '../protocol/tools'
import type { Answer, OpenEnvEpisode } from './episode'
import { mcpTools } from './episode'
import type { HttpSessions } from './http-sessions'
import { check, ValidationProblems, type Action, type WireSchemas } from './wire'

type Json = Record<string, unknown>

/** JsonRpcErrorCode (mcp_types.py:33-48). */
export const RPC = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603, server: -32000 } as const

export interface RpcContext {
  schemas: WireSchemas
  /** The server's default tools (tools/list without a session). */
  defaultAccess: boolean
  /** POST /mcp: the HTTP sessions. */
  http?: HttpSessions
  /** /ws: the socket's episode. */
  episode?: OpenEnvEpisode
}

const response = (id: unknown, body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }): Json => ({ jsonrpc: '2.0', id: id ?? null, ...body })
const fail = (id: unknown, code: number, message: string, data?: unknown) => response(id, { error: { code, message, ...(data === undefined ? {} : { data }) } })

/** One JSON-RPC request (already parsed from JSON) → its response. */
export async function answerRpc(raw: unknown, ctx: RpcContext): Promise<Json> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(null, RPC.invalidRequest, 'Invalid request: a JSON-RPC 2.0 request object')
  const r = raw as Json
  const id = typeof r.id === 'string' || (typeof r.id === 'number' && Number.isFinite(r.id)) ? r.id : null
  const known = new Set(['jsonrpc', 'method', 'params', 'id'])
  const extra = Object.keys(r).find((k) => !known.has(k))
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || extra !== undefined)
    return fail(id, RPC.invalidRequest, `Invalid request: ${extra !== undefined ? `unknown field ${JSON.stringify(extra.slice(0, 60))}` : 'jsonrpc must be "2.0" and method a string'}`)
  const params = r.params ?? {}
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return fail(id, RPC.invalidParams, 'Params must be an object')
  const p = params as Json
  try {
    switch (r.method) {
      case 'openenv/session/create': {
        if (ctx.episode) return response(id, { result: { session_id: ctx.episode.sessionId } })
        if (!ctx.http) return fail(id, RPC.methodNotFound, 'Method not found: openenv/session/create')
        const { session_id: _ignored, ...rest } = p
        const a = await ctx.http.reset(check(ctx.schemas.reset, rest, ['params']))
        return response(id, { result: { session_id: a.observation.session_id, observation: a.observation } })
      }
      case 'openenv/session/close': {
        const sid = p.session_id
        if (typeof sid !== 'string' || sid === '') return fail(id, RPC.invalidParams, "Invalid params - 'session_id' is required")
        if (ctx.episode) return fail(id, RPC.invalidRequest, 'Cannot close active WebSocket-managed session via MCP method')
        if (!ctx.http || !(await ctx.http.end(sid))) return fail(id, RPC.invalidParams, `Unknown session_id: ${sid.slice(0, 80)}`)
        return response(id, { result: { session_id: sid, closed: true } })
      }
      case 'tools/list':
        return response(id, { result: { tools: mcpTools(toolSchemas(ctx.defaultAccess ? ['search', 'access'] : ['search'])) } })
      case 'tools/call': {
        const name = p.name
        if (typeof name !== 'string' || name === '') return fail(id, RPC.invalidParams, "Missing 'name' in params")
        const args = p.arguments ?? {}
        if (typeof args !== 'object' || args === null || Array.isArray(args)) return fail(id, RPC.invalidParams, "'arguments' must be an object")
        const action: Action = { kind: 'tool', name, arguments: args as Json }
        let a: Answer
        if (ctx.episode) a = await ctx.episode.step(action)
        else {
          const sid = p.session_id
          if (typeof sid !== 'string' || sid === '' || !ctx.http)
            return fail(id, RPC.invalidParams, "tools/call plays a step of an episode: give 'session_id' (openenv/session/create opens one)")
          a = await ctx.http.step(sid, action)
        }
        const o = a.observation
        const text = typeof o.result === 'string' ? o.result : ''
        return response(id, {
          result: {
            content: [{ type: 'text', text }],
            structured_content: { reward: a.reward, done: a.done, terminated: o.terminated, truncated: o.truncated, stop_reason: o.stop_reason },
            data: text,
            is_error: false,
          },
        })
      }
      default:
        return fail(id, RPC.methodNotFound, `Method not found: ${r.method.slice(0, 80)}`)
    }
  } catch (e) {
    if (e instanceof ValidationProblems) return fail(id, RPC.invalidParams, `Invalid params: ${e.message}`, e.problems)
    if (e instanceof HttpError && e.status < 500) return fail(id, e.status === 404 && e.code === 'session.not_found' ? RPC.invalidParams : RPC.server, e.message, { status: e.status, code: e.code })
    if (e instanceof HttpError) return fail(id, RPC.server, e.message, { status: e.status, code: e.code })
    throw e
  }
}

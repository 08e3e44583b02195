// gym/openenv/ws-face: OpenEnv's WebSocket session protocol on `gym serve` (/ws and /openenv/ws): one connection is one
// session with its own episode (OpenEnvEpisode over the env API's sessions), messages {type: reset|step|state|close|mcp,
// data} answered {type: observation|state|mcp|error, data} (http_server.py:1298-1512; types.py:248-314), one at a time
// in the order sent. The handshake is put through the gym app itself first (a probe request on /ws), so the Host/Origin
// guard and the token (Bearer header or /t/TOKEN/ path prefix) refuse a socket exactly as they refuse an HTTP call,
// with the same status and body. A message over --max-body-bytes closes the socket (1009); a connection idle past
// --idle-seconds is closed (1001); a closed socket closes its env. Knows no HTTP routes but the probe.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Hono } from 'hono'
import { WebSocketServer, type WebSocket, type RawData } from 'ws'
import { HttpError } from '../../infra/http/errors'
import { OpenEnvEpisode, type EpisodeHost } from './episode'
import { WS_ACCEPT_HEADER } from './http-face'
import { answerRpc } from './mcp'
import { check, parseAction, ValidationProblems, WS_ERROR, type WireSchemas } from './wire'

type Json = Record<string, unknown>

export interface WsLimits {
  /** Sessions (open sockets) at once in this process; one more is told CAPACITY_REACHED and closed. */
  maxSessions: number
  idleMs: number
  maxMessageBytes: number
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 421: 'Misdirected Request', 426: 'Upgrade Required', 500: 'Internal Server Error' }

export class WsFace {
  private readonly wss: WebSocketServer
  private readonly conns = new Set<WebSocket>()
  private readonly episodes = new Set<OpenEnvEpisode>()

  constructor(
    private readonly app: Hono,
    private readonly host: EpisodeHost,
    private readonly schemas: WireSchemas,
    private readonly limits: WsLimits,
    private readonly defaultAccess: boolean,
  ) {
    // No compression: observations are small text, and an inflated message could pass the size cap.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false })
  }

  /** Open sessions (sockets) of this process. */
  get size(): number {
    return this.conns.size
  }

  /** The HTTP server's 'upgrade' listener. */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy())
    void this.probe(req).then(
      (refusal) => {
        if (refusal) {
          const body = refusal.body
          socket.end(
            `HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
          )
          return
        }
        this.wss.handleUpgrade(req, socket, head, (ws) => this.connect(ws))
      },
      () => socket.destroy(),
    )
  }

  /** Close every socket (1001) and its env. */
  dispose(): void {
    for (const ws of this.conns) ws.close(1001, 'server shutting down')
    for (const ep of this.episodes) void ep.close()
    this.wss.close()
  }

  /** Run the handshake through the app's guards and routes; undefined when it may upgrade, else the refusal to send. */
  private async probe(req: IncomingMessage): Promise<{ status: number; body: string } | undefined> {
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
    let url: string
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`).href
    } catch {
      return { status: 400, body: JSON.stringify({ detail: 'bad request URL or Host' }) }
    }
    const res = await this.app.fetch(new Request(url, { method: 'GET', headers }), { openenvUpgrade: true })
    if (res.headers.get(WS_ACCEPT_HEADER) === 'accept') return undefined
    return { status: res.status === 200 || res.status === 204 ? 400 : res.status, body: await res.text() }
  }

  private connect(ws: WebSocket): void {
    if (this.conns.size >= this.limits.maxSessions) {
      send(ws, { type: 'error', data: { message: `Server at capacity: ${this.conns.size} active sessions of ${this.limits.maxSessions}`, code: WS_ERROR.capacity, active_sessions: this.conns.size, max_sessions: this.limits.maxSessions } })
      ws.close(1013, 'capacity')
      return
    }
    this.conns.add(ws)
    const ep = new OpenEnvEpisode(this.host, `ws_${randomBytes(12).toString('hex')}`)
    this.episodes.add(ep)
    let queue: Promise<void> = Promise.resolve()
    let idle: NodeJS.Timeout | undefined
    const touch = () => {
      if (idle) clearTimeout(idle)
      idle = setTimeout(() => ws.close(1001, 'idle'), this.limits.idleMs)
      idle.unref()
    }
    touch()
    ws.on('message', (data: RawData) => {
      touch()
      queue = queue.then(() => this.answer(ws, ep, data))
    })
    // A message over maxPayload, a bad frame: ws closes the socket itself (1009 / 1002); the close below cleans up.
    ws.on('error', () => {})
    ws.on('close', () => {
      if (idle) clearTimeout(idle)
      this.conns.delete(ws)
      // After the messages already queued (a step in flight finishes, then its env is closed).
      queue = queue.then(() => ep.close()).finally(() => this.episodes.delete(ep))
    })
  }

  private async answer(ws: WebSocket, ep: OpenEnvEpisode, data: RawData): Promise<void> {
    if (ws.readyState !== ws.OPEN) return
    let msg: unknown
    try {
      msg = JSON.parse(rawText(data))
    } catch (e) {
      send(ws, { type: 'error', data: { message: `Invalid JSON: ${(e as Error).message.slice(0, 200)}`, code: WS_ERROR.invalidJson } })
      return
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      send(ws, { type: 'error', data: { message: 'Invalid message', code: WS_ERROR.validation, errors: [{ type: 'model_type', loc: [], msg: 'a message is an object {type, data}' }] } })
      return
    }
    const m = msg as Json
    const type = typeof m.type === 'string' ? m.type : ''
    try {
      switch (type) {
        case 'reset': {
          onlyKeys(m, ['type', 'data'])
          const params = check(this.schemas.reset, m.data ?? {}, ['data'])
          send(ws, { type: 'observation', data: await ep.reset(params) })
          return
        }
        case 'step': {
          onlyKeys(m, ['type', 'data'])
          if (!Object.hasOwn(m, 'data')) throw new ValidationProblems([{ type: 'missing', loc: ['data'], msg: 'Field required' }])
          send(ws, { type: 'observation', data: await ep.step(parseAction(this.schemas, m.data, ['data'])) })
          return
        }
        case 'state':
          onlyKeys(m, ['type'])
          send(ws, { type: 'state', data: ep.state() })
          return
        case 'close':
          onlyKeys(m, ['type'])
          await ep.close()
          ws.close(1000, 'closed by the client')
          return
        case 'mcp': {
          onlyKeys(m, ['type', 'data'])
          send(ws, { type: 'mcp', data: await answerRpc(m.data, { schemas: this.schemas, defaultAccess: this.defaultAccess, episode: ep }) })
          return
        }
        default:
          send(ws, { type: 'error', data: { message: `Unknown message type: ${type.slice(0, 60)}`, code: WS_ERROR.unknownType } })
      }
    } catch (e) {
      if (e instanceof ValidationProblems) {
        send(ws, { type: 'error', data: { message: 'Invalid message', code: WS_ERROR.validation, errors: e.problems } })
        return
      }
      if (e instanceof HttpError) {
        const code = e.code === 'env.limit' || e.code === 'session.limit' ? WS_ERROR.capacity : WS_ERROR.execution
        send(ws, { type: 'error', data: { message: e.status >= 500 ? 'internal error; see the server log' : e.message, code, reason: e.code, status: e.status } })
        return
      }
      process.stderr.write(`searchgym gym server (openenv /ws): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      send(ws, { type: 'error', data: { message: 'internal error; see the server log', code: WS_ERROR.execution } })
    }
  }
}

/** A message with a key its type does not have is refused (OpenEnv's BaseMessage forbids extras: types.py:169-175). */
function onlyKeys(m: Json, keys: string[]): void {
  const extra = Object.keys(m).filter((k) => !keys.includes(k))
  if (extra.length) throw new ValidationProblems(extra.slice(0, 8).map((k) => ({ type: 'extra_forbidden', loc: [k.slice(0, 60)], msg: 'Extra inputs are not permitted' })))
}

function rawText(d: RawData): string {
  if (Buffer.isBuffer(d)) return d.toString('utf8')
  if (Array.isArray(d)) return Buffer.concat(d).toString('utf8')
  return Buffer.from(d).toString('utf8')
}

function send(ws: WebSocket, v: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(v))
}

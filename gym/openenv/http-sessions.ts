// gym/openenv/http-sessions: the OpenEnv face's HTTP sessions — POST /reset opens one (an episode of OpenEnvEpisode),
// POST /step and GET /state name it by session_id. OpenEnv's own HTTP /reset and /step run on a fresh env per request
// (http_server.py:604-667), which a question-answering episode cannot; so here HTTP keeps a session per reset, like
// its /mcp sessions (openenv/session/create, http_server.py:695-778). A session lives in the worker that opened it
// (`gym serve --workers N`: its id names the worker, and a call that arrives on another worker's connection is
// forwarded to it over the peer channel, as env steps are); its env is closed the moment the episode ends, and the
// ended session is kept (bounded) so a late step is told "done" (409) and /state still answers. Sessions idle past
// the server's --idle-seconds are dropped, as their envs are. Knows no routes and no HTTP.
import { randomBytes } from 'node:crypto'
import { HttpError } from '../../infra/http/errors'
import type { PeerHead } from '../worker-peers'
import { OpenEnvEpisode, type Answer, type EpisodeHost } from './episode'
import type { Action, ResetParams } from './wire'

type Json = Record<string, unknown>

/** Ended sessions kept for a late step or /state (oldest dropped first). */
export const ENDED_KEPT = 10_000

/** How sessions reach another worker of `gym serve --workers N` (gym/cluster-sessions' layer ops). */
export interface PeerBridge {
  index: number
  count: number
  call(worker: number, head: PeerHead, payload: string): Promise<string>
  handle(op: string, fn: (head: PeerHead, payload: string) => Promise<string>): void
}

interface Entry {
  ep: OpenEnvEpisode
  lastUsed: number
  busy: boolean
}

const PEER_OP = 'openenv'

export class HttpSessions {
  private readonly open = new Map<string, Entry>()
  private readonly ended = new Map<string, Entry>()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly host: EpisodeHost,
    private readonly limits: { maxSessions: number; idleMs: number },
    private readonly peers?: PeerBridge,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(30_000, Math.floor(limits.idleMs / 2))))
    this.timer.unref()
    peers?.handle(PEER_OP, (head, payload) => this.serve(head, payload))
  }

  /** Sessions with an episode still running (their envs are open). */
  get size(): number {
    return this.open.size
  }

  /** A new session's episode, or (session_id) the next episode of an existing one. */
  async reset(params: ResetParams, sessionId?: string | null): Promise<Answer> {
    if (sessionId != null) return this.route(sessionId, { kind: 'reset', params })
    this.sweep()
    if (this.open.size >= this.limits.maxSessions)
      throw new HttpError(429, 'session.limit', `too many open sessions (${this.limits.maxSessions}): finish episodes (they close when done) or wait for idle ones to expire`)
    const id = `oe_${this.peers ? `w${this.peers.index}_` : ''}${randomBytes(12).toString('hex')}`
    const e: Entry = { ep: new OpenEnvEpisode(this.host, id), lastUsed: Date.now(), busy: true }
    try {
      const a = await e.ep.reset(params)
      this.open.set(id, e)
      return a
    } finally {
      e.busy = false
    }
  }

  step(sessionId: string, action: Action): Promise<Answer> {
    return this.route(sessionId, { kind: 'step', action })
  }

  state(sessionId: string): Promise<Json> {
    return this.route(sessionId, { kind: 'state' })
  }

  /** End a session now (its env closed); false when there is none. */
  async end(sessionId: string): Promise<boolean> {
    try {
      await this.route(sessionId, { kind: 'end' })
      return true
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) return false
      throw e
    }
  }

  dispose(): void {
    clearInterval(this.timer)
    for (const e of this.open.values()) void e.ep.close()
    this.open.clear()
    this.ended.clear()
  }

  /** Run an operation in the session's worker: here, or forwarded. */
  private async route<T>(sessionId: string, op: Op): Promise<T> {
    const w = ownerOf(sessionId)
    if (this.peers && w !== undefined && w !== this.peers.index && w < this.peers.count)
      return JSON.parse(await this.peers.call(w, { op: PEER_OP, id: sessionId }, JSON.stringify(op))) as T
    return (await this.local(sessionId, op)) as T
  }

  private serve(head: PeerHead, payload: string): Promise<string> {
    return this.local(String(head.id), JSON.parse(payload) as Op).then((v) => JSON.stringify(v ?? null))
  }

  private async local(sessionId: string, op: Op): Promise<unknown> {
    const e = this.open.get(sessionId) ?? this.ended.get(sessionId)
    if (!e) throw new HttpError(404, 'session.not_found', `no OpenEnv session ${JSON.stringify(sessionId.slice(0, 80))} (ended long ago, expired, or never opened): POST /reset opens one`)
    if (op.kind === 'state') {
      e.lastUsed = Date.now()
      return e.ep.state()
    }
    if (e.busy) throw new HttpError(409, 'session.busy', 'this session is still answering a call; send one at a time')
    e.busy = true
    try {
      if (op.kind === 'end') {
        await e.ep.close()
        this.open.delete(sessionId)
        this.ended.delete(sessionId)
        return true
      }
      if (op.kind === 'reset') {
        if (!this.open.has(sessionId) && this.open.size >= this.limits.maxSessions)
          throw new HttpError(429, 'session.limit', `too many open sessions (${this.limits.maxSessions})`)
        const a = await e.ep.reset(op.params)
        this.ended.delete(sessionId)
        this.open.set(sessionId, e)
        return a
      }
      const a = await e.ep.step(op.action)
      if (a.done && this.open.delete(sessionId)) this.keepEnded(sessionId, e)
      return a
    } catch (err) {
      // An env that expired under the session ends the session too.
      if (err instanceof HttpError && err.code === 'session.expired') this.open.delete(sessionId)
      throw err
    } finally {
      e.busy = false
      e.lastUsed = Date.now()
    }
  }

  private keepEnded(id: string, e: Entry): void {
    if (this.ended.size >= ENDED_KEPT) this.ended.delete(this.ended.keys().next().value as string)
    this.ended.set(id, e)
  }

  private sweep(): void {
    const t = Date.now()
    for (const [id, e] of this.open)
      if (!e.busy && t - e.lastUsed > this.limits.idleMs) {
        this.open.delete(id)
        void e.ep.close()
      }
    for (const [id, e] of this.ended) if (t - e.lastUsed > this.limits.idleMs) this.ended.delete(id)
  }
}

type Op = { kind: 'reset'; params: ResetParams } | { kind: 'step'; action: Action } | { kind: 'state' } | { kind: 'end' }

/** The worker an OpenEnv HTTP session id names (oe_w2_…), or undefined for one of a single process. */
export function ownerOf(id: string): number | undefined {
  const m = /^oe_w(\d{1,4})_/.exec(id)
  return m ? Number(m[1]) : undefined
}

// gym/cluster-sessions: env sessions spread over the `gym serve --workers N` processes. Every worker answers HTTP on
// the shared port; an env lives in the worker that built it, whose index its id carries (env_w2_...). A step for
// another worker's env is forwarded to its owner over gym/worker-peers (one framed call on a Unix socket; the answer
// is JSON text passed through untouched); a step for a local env runs here. Creates go round-robin over the live
// workers, so envs spread whatever connection they arrive on. Which workers are up (and their pids) is what the
// primary last said (setWorkers): a worker known to be down answers 503 env.worker_down for its envs at once; once its
// replacement is up, calls go to the new process (which never held the old envs: 404). A worker that is up but does
// not answer (stopped, hung) cannot hang the gym: every forwarded call has a deadline, each worker pings its peers
// (pingEveryMs), a peer silent for stallMs of this worker's own live time is skipped for creates, fails its envs' steps at once (503
// env.worker_unresponsive, envs kept) and is named in /health ("degraded", `responding: false`, since when); an env a
// timed-out create made anyway is closed when its late answer arrives. Knows nothing of HTTP routes or of how the
// processes were started.
import { GymError } from '../infra/errors'
import { HttpError, type HttpStatus } from '../infra/http/errors'
import type { Qa } from '../world'
import { LocalEnvSessions, type CreatedEnv, type EnvSessions, type WorkerHealth, type WorkerState } from './env-sessions'
import type { AssistantAction } from './types'
import type { GymWorld } from './world-view'
import { PeerDownError, PeerLink, type PeerFailure, type PeerHandler, type PeerHead } from './worker-peers'

type Json = Record<string, unknown>

/** How long /health waits for another worker's env count (then `envs: null`): a worker busy with a batch answers
 *  between slices, and /health may not wait for the batch (at 500 ms, /health's max during one was the timeout). */
export const HEALTH_PEER_TIMEOUT_MS = 100

/** The deadlines of forwarded calls and the silence after which a peer counts as not responding. A create that gets
 *  no answer in createMs is made on the next worker; a step or close gets stepMs (a step is one search or access:
 *  milliseconds; a busy worker answers between batch slices). Silence is counted in this worker's own live time: each
 *  ping tick adds the time since the last tick, but at most 2 × pingEveryMs, so a stall of this process (or of the
 *  whole box) cannot make a peer whose answer waits unread in the socket look silent. At 3 s of wall-clock silence a
 *  loaded box (32 clients on 2 cores, the paper world) marked healthy workers unresponsive (24 false 503s in 60 s). */
export const PEER_DEADLINES = { createMs: 2_000, stepMs: 10_000, stallMs: 5_000, pingEveryMs: 500 }

/** The worker index an env id names, or undefined for an id of no worker. */
export function ownerOf(id: string): number | undefined {
  const m = /^env_w(\d{1,4})_/.exec(id)
  return m ? Number(m[1]) : undefined
}

/** Env slots of worker `index` of `count` when the server holds at most `maxEnvs` (they add up to maxEnvs exactly). */
export function workerMaxEnvs(maxEnvs: number, index: number, count: number): number {
  return Math.floor(maxEnvs / count) + (index < maxEnvs % count ? 1 : 0)
}

export interface ClusterPlan {
  /** This worker's index in [0, count). */
  index: number
  count: number
  /** Unix socket path of worker i's peer channel. */
  socketPath(i: number): string
}

export class ClusterEnvSessions implements EnvSessions {
  readonly local: LocalEnvSessions
  private readonly peers: (PeerLink | undefined)[]
  private readonly pids: (number | null)[]
  private readonly restarts: number[]
  private turn = 0
  /** Calls of a layer above the env sessions (gym/openenv's HTTP sessions), answered here by op name. */
  private readonly layerOps = new Map<string, PeerHandler>()
  /** Whether the primary has told this worker which workers are up: it first does once every worker is ready. */
  private told = false
  private readonly pinger: NodeJS.Timeout
  /** Envs made by a create whose answer came after its deadline, closed since (reported in /health). */
  private orphansClosed = 0
  /** Per peer: the silence being counted (its unansweredSince) and the live ms credited to it so far. */
  private readonly silence: { since: number | undefined; ms: number }[]
  private lastTick = performance.now()

  constructor(
    private readonly world: GymWorld,
    local: LocalEnvSessions,
    private readonly plan: ClusterPlan,
    private readonly deadlines = PEER_DEADLINES,
  ) {
    this.local = local
    this.peers = Array.from({ length: plan.count }, (_, i) => (i === plan.index ? undefined : new PeerLink(plan.socketPath(i), `worker ${i}`)))
    this.pids = Array.from({ length: plan.count }, (_, i) => (i === plan.index ? process.pid : null))
    this.restarts = Array.from({ length: plan.count }, () => 0)
    this.silence = Array.from({ length: plan.count }, () => ({ since: undefined, ms: 0 }))
    // A stopped peer is noticed without a client's call: a ping to each peer with none in flight, every pingEveryMs;
    // each tick credits the peers' silences with this process's live time since the last tick.
    this.pinger = setInterval(() => {
      this.creditSilence()
      for (const p of this.peers) if (p && !p.dead && p.inFlight === 0) p.call({ op: 'ping' }, '', 60_000).catch(() => undefined)
    }, this.deadlines.pingEveryMs)
    this.pinger.unref()
  }

  /** Add the live time since the last tick (at most two tick intervals: a stall of this process is not the peer's
   *  silence) to each peer that has answered nothing since a call was sent; a peer that answered starts again at 0. */
  private creditSilence(): void {
    const now = performance.now()
    const dt = Math.min(now - this.lastTick, 2 * this.deadlines.pingEveryMs)
    this.lastTick = now
    this.peers.forEach((p, w) => {
      const since = p?.unansweredSince
      const s = this.silence[w]
      if (since === undefined) this.silence[w] = { since: undefined, ms: 0 }
      else if (s.since !== since) this.silence[w] = { since, ms: Math.min(now - since, dt) }
      else s.ms += dt
    })
  }

  /** How long worker w has answered nothing while a call to it was waiting (live ms of this process, counted by the
   *  ping ticks), or undefined while it responds or has been silent for less than stallMs. */
  private silentMs(w: number): number | undefined {
    const since = this.peers[w]?.unansweredSince
    const s = this.silence[w]
    if (since === undefined || s.since !== since) return undefined
    return s.ms >= this.deadlines.stallMs ? s.ms : undefined
  }

  /** What the primary says of the workers: one that is down fails calls at once; a new process at an index gets a
   *  fresh connection. */
  setWorkers(states: WorkerState[]): void {
    this.told = true
    for (const st of states) {
      const i = st.index
      if (!Number.isInteger(i) || i < 0 || i >= this.plan.count) continue
      this.restarts[i] = st.restarts
      const p = this.peers[i]
      if (!p) continue
      if (!st.up) {
        p.dead = true
        p.close()
      } else if (p.dead || this.pids[i] !== st.pid) {
        p.close()
        p.dead = false
      }
      this.pids[i] = st.pid
    }
  }

  /** Before the primary's first word this worker listens while others may still be starting (startWorkers sends the
   *  first WorkerState list once all are ready). */
  starting(): boolean {
    return !this.told
  }

  /** Whether every worker is up, as far as the primary has said (no call to any worker). */
  allUp(): boolean {
    return this.peers.every((p) => !p?.dead)
  }

  /** Answer a peer's forwarded call (the worker's peer channel handler). */
  async serve(head: PeerHead, payload: string): Promise<string> {
    switch (head.op) {
      case 'create': {
        const qa = this.world.qa(String(head.qaId))
        if (!qa) throw new HttpError(404, 'qa.not_found', `no QA with id ${JSON.stringify(String(head.qaId).slice(0, 100))}`)
        return JSON.stringify(await this.local.create(qa, JSON.parse(payload) as Json, typeof head.idleMs === 'number' ? head.idleMs : undefined))
      }
      case 'step':
        return this.local.step(String(head.id), JSON.parse(payload) as AssistantAction | string)
      case 'close':
        return this.local.close(String(head.id))
      case 'health':
        return JSON.stringify({ pid: process.pid, envs: this.local.registry.size, reaped: this.local.registry.reaped, orphansClosed: this.orphansClosed })
      case 'ping':
        return '{}'
      default: {
        const layer = this.layerOps.get(String(head.op))
        if (layer) return layer(head, payload)
        throw new GymError('server.peer_op', `unknown peer call ${String(head.op)}`)
      }
    }
  }

  async create(qa: Qa, overrides: Json, idleMs?: number): Promise<CreatedEnv> {
    this.local.resolve(overrides) // a bad option is this request's 400, before any worker is asked
    let last: unknown
    for (let k = 0; k < this.plan.count; k++) {
      const w = (this.plan.index + this.turn + k) % this.plan.count
      const p = this.peers[w]
      // Down, or up but silent (stopped, hung): its turn goes to the next worker.
      if (p?.dead || this.silentMs(w) !== undefined) continue
      try {
        const made = p
          ? (JSON.parse(await this.forward(w, { op: 'create', qaId: qa.id, ...(idleMs === undefined ? {} : { idleMs }) }, JSON.stringify(overrides), this.deadlines.createMs, (late) => this.closeOrphan(w, late))) as CreatedEnv)
          : await this.local.create(qa, overrides, idleMs)
        this.turn = (this.turn + k + 1) % this.plan.count
        return made
      } catch (e) {
        // A full or just-exited worker: try the next one.
        if (!isRetryable(e)) throw e
        last = e
      }
    }
    if (last) throw last
    throw new HttpError(503, 'env.worker_down', 'no live worker to create the env on')
  }

  step(id: string, action: AssistantAction | string): Promise<string> {
    const w = ownerOf(id)
    if (w === undefined || w >= this.plan.count) return this.local.step(id, action)
    return this.lostOnRestart(w, w === this.plan.index ? this.local.step(id, action) : this.forwardToOwner(w, { op: 'step', id }, JSON.stringify(action)))
  }

  close(id: string): Promise<string> {
    const w = ownerOf(id)
    if (w === undefined || w >= this.plan.count) return this.local.close(id)
    return this.lostOnRestart(w, w === this.plan.index ? this.local.close(id) : this.forwardToOwner(w, { op: 'close', id }))
  }

  /** A step or close for worker w's env: at once 503 when w is known silent (its envs are kept: retry later), else
   *  forwarded with the step deadline. */
  private async forwardToOwner(w: number, head: PeerHead, payload = ''): Promise<string> {
    const silent = this.silentMs(w)
    if (silent !== undefined)
      throw new HttpError(503, 'env.worker_unresponsive', `worker ${w} (which holds this env) has answered nothing for ${(silent / 1000).toFixed(1)} s (stopped or overloaded); its envs are kept: retry later`)
    return this.forward(w, head, payload, this.deadlines.stepMs)
  }

  /** The env a create made after its deadline passed (the client got another one, or an error): closed on its owner. */
  private closeOrphan(w: number, late: string): void {
    let id: unknown
    try {
      id = (JSON.parse(late) as CreatedEnv).envId
    } catch {
      return
    }
    if (typeof id !== 'string') return
    this.peers[w]
      ?.call({ op: 'close', id }, '', this.deadlines.stepMs)
      .then(() => this.orphansClosed++)
      .catch(() => undefined)
  }

  /** This worker's index and the worker count (a layer above names its own objects' owners with them). */
  get worker(): { index: number; count: number } {
    return { index: this.plan.index, count: this.plan.count }
  }

  /** Answer peer calls of `op` with `fn` (a layer above the env sessions: its objects live in one worker, as envs do). */
  handleLayerOp(op: string, fn: PeerHandler): void {
    if (['create', 'step', 'close', 'health'].includes(op)) throw new GymError('server.peer_op', `peer op ${op} is the env sessions' own`)
    this.layerOps.set(op, fn)
  }

  /** Call worker w's handler of head.op (its failures come back as the same HttpError; a down worker is 503). */
  callLayerOp(w: number, head: PeerHead, payload = ''): Promise<string> {
    return this.forward(w, head, payload)
  }

  /** An env that worker w does not know, once w has been restarted: say that envs from before a restart are lost. */
  private async lostOnRestart(w: number, call: Promise<string>): Promise<string> {
    try {
      return await call
    } catch (e) {
      const code = (e as { code?: unknown }).code
      const n = this.restarts[w]
      if (code !== 'env.not_found' || !n) throw e
      throw new HttpError(404, 'env.not_found', `${(e as Error).message} (worker ${w} was restarted ${n === 1 ? 'once' : `${n} times`}; envs made before a restart are lost: create a new one)`)
    }
  }

  async health(): Promise<{ envs: number; reaped: number; orphansClosed: number; workers: { count: number; alive: number; responding: number; list: WorkerHealth[] } }> {
    const list = await Promise.all(
      this.peers.map(async (p, i): Promise<WorkerHealth> => {
        const restarts = this.restarts[i]
        const silent = (): Pick<WorkerHealth, 'responding' | 'silentSince'> => {
          // Since the first call it left unanswered (wall clock), once that silence has counted stallMs.
          const since = this.silence[i].since
          return this.silentMs(i) === undefined || since === undefined ? { responding: true, silentSince: null } : { responding: false, silentSince: new Date(performance.timeOrigin + since).toISOString() }
        }
        if (!p) return { index: i, pid: process.pid, alive: true, responding: true, silentSince: null, envs: this.local.registry.size, reaped: this.local.registry.reaped, orphansClosed: this.orphansClosed, restarts }
        if (p.dead) return { index: i, pid: this.pids[i], alive: false, responding: false, silentSince: null, envs: null, reaped: null, restarts }
        if (this.silentMs(i) !== undefined) return { index: i, pid: this.pids[i], alive: true, ...silent(), envs: null, reaped: null, restarts }
        try {
          const h = JSON.parse(await p.call({ op: 'health' }, '', HEALTH_PEER_TIMEOUT_MS)) as { pid: number; envs: number; reaped: number; orphansClosed?: number }
          this.pids[i] = h.pid
          return { index: i, pid: h.pid, alive: true, responding: true, silentSince: null, envs: h.envs, reaped: h.reaped, orphansClosed: h.orphansClosed ?? 0, restarts }
        } catch (e) {
          // Slow (busy with a batch): alive, count unknown; silent past stallMs: not responding. Unreachable (not
          // listening yet, or gone before the primary said so): not alive.
          const busy = e instanceof PeerDownError && e.timedOut
          return { index: i, pid: this.pids[i], alive: busy && !p.dead, ...silent(), envs: null, reaped: null, restarts }
        }
      }),
    )
    return {
      envs: list.reduce((s, w) => s + (w.envs ?? 0), 0),
      // Counts of workers that answered (a restarted worker's count starts again at 0).
      reaped: list.reduce((s, w) => s + (w.reaped ?? 0), 0),
      orphansClosed: list.reduce((s, w) => s + (w.orphansClosed ?? 0), 0),
      workers: { count: this.plan.count, alive: list.filter((w) => w.alive).length, responding: list.filter((w) => w.alive && w.responding).length, list },
    }
  }

  private async forward(w: number, head: PeerHead, payload = '', timeoutMs = 0, onLate?: (payload: string) => void): Promise<string> {
    try {
      return await this.peers[w]!.call(head, payload, timeoutMs, onLate)
    } catch (e) {
      if (e instanceof PeerDownError && e.timedOut)
        throw new HttpError(503, 'env.worker_unresponsive', `worker ${w} (which holds this env) did not answer within ${(timeoutMs / 1000).toFixed(0)} s (stopped or overloaded); the call may have been applied there: retry later or create a new env`)
      if (e instanceof PeerDownError)
        throw new HttpError(503, 'env.worker_down', `worker ${w} (which holds this env) is not running (${e.message}); its envs are lost — create new ones`)
      const f = (e as { failure?: PeerFailure }).failure
      if (f) throw new HttpError(f.status as HttpStatus, f.code, f.message, f.param)
      throw e
    }
  }

  dispose(): void {
    clearInterval(this.pinger)
    for (const p of this.peers) p?.close()
    this.local.dispose()
  }
}

function isRetryable(e: unknown): boolean {
  if (e instanceof HttpError) return e.code === 'env.limit' || e.code === 'env.worker_down' || e.code === 'env.worker_unresponsive'
  return e instanceof GymError && e.code === 'env.limit'
}

// gym/env-registry: the server's open env sessions — ids, a cap on how many are open, idle expiry (the server's, or a
// shorter one asked for by the env's creator), a count of the envs it reaped, and one step at a time per env. Knows
// nothing of HTTP.
import { randomBytes } from 'node:crypto'
import { GymError } from '../infra/errors'
import type { GymEnv } from './env'
import type { EpisodeStats } from './wrappers/episode-stats'

export type SessionEnv = GymEnv & { stats(): EpisodeStats }

interface Session {
  env: SessionEnv
  lastUsed: number
  busy: boolean
  /** This env's idle expiry (at most the registry's). */
  idleMs: number
}

/** The sweep period for an idle expiry: half of it, within [50 ms, 30 s]. */
const sweepEvery = (idleMs: number) => Math.max(50, Math.min(30_000, Math.floor(idleMs / 2)))

export class EnvRegistry {
  private readonly sessions = new Map<string, Session>()
  /** Recently expired ids, so a late client is told "expired" rather than "unknown" (bounded). */
  private readonly expired = new Map<string, number>()
  private timer: NodeJS.Timeout
  private sweepMs: number
  /** Envs closed by idle expiry since start (their clients vanished without closing them). */
  private reapedCount = 0

  constructor(
    private readonly maxEnvs: number,
    private readonly idleMs: number,
    private readonly now: () => number = () => Date.now(),
    /** Start of every id ('env_'; gym serve --workers names the owner: 'env_w3_'). */
    private readonly idPrefix = 'env_',
  ) {
    this.sweepMs = sweepEvery(idleMs)
    this.timer = this.startSweeps()
  }

  private startSweeps(): NodeJS.Timeout {
    const t = setInterval(() => this.sweep(), this.sweepMs)
    t.unref()
    return t
  }

  get size(): number {
    return this.sessions.size
  }

  /** Envs reaped by idle expiry since start. */
  get reaped(): number {
    return this.reapedCount
  }

  /** The idle expiry an env gets when its creator asks for `askedMs` (undefined: the registry's): never longer. */
  private idleFor(askedMs?: number): number {
    return askedMs === undefined ? this.idleMs : Math.min(this.idleMs, askedMs)
  }

  /** Throw env.limit when no slot is free (call before building an env, so a refused create does no work). */
  checkCapacity(): void {
    this.sweep()
    if (this.sessions.size >= this.maxEnvs)
      throw new GymError('env.limit', `too many open envs (${this.maxEnvs}); close finished envs with DELETE /v1/envs/{id}`)
  }

  /** Register env; `idleMs` shortens its idle expiry (a client whose envs live for one call asks for little, so
   *  envs of clients that vanish are reaped soon), never lengthens it. */
  add(env: SessionEnv, idleMs?: number): string {
    this.checkCapacity()
    const id = `${this.idPrefix}${randomBytes(12).toString('hex')}`
    const idle = this.idleFor(idleMs)
    this.sessions.set(id, { env, lastUsed: this.now(), busy: false, idleMs: idle })
    // A shorter expiry than any before it: sweep often enough for it.
    if (sweepEvery(idle) < this.sweepMs) {
      this.sweepMs = sweepEvery(idle)
      clearInterval(this.timer)
      this.timer = this.startSweeps()
    }
    return id
  }

  /** Run fn with the env, one call at a time per env. */
  async use<T>(id: string, fn: (env: SessionEnv) => Promise<T>): Promise<T> {
    const s = this.sessions.get(id)
    if (!s) {
      const idle = this.expired.get(id)
      if (idle !== undefined) throw new GymError('env.expired', `env '${id}' expired after ${idle} ms idle; create a new one`)
      throw new GymError('env.not_found', `no open env '${id.slice(0, 80)}'; create one with POST /v1/envs`)
    }
    if (s.busy) throw new GymError('env.busy', `env '${id}' is already stepping; send one step at a time`)
    s.busy = true
    try {
      return await fn(s.env)
    } finally {
      s.busy = false
      s.lastUsed = this.now()
    }
  }

  close(id: string): SessionEnv | undefined {
    const s = this.sessions.get(id)
    this.sessions.delete(id)
    return s?.env
  }

  sweep(): void {
    const t = this.now()
    for (const [id, s] of this.sessions) {
      if (!s.busy && t - s.lastUsed > s.idleMs) {
        this.sessions.delete(id)
        this.reapedCount++
        if (this.expired.size >= 10_000) this.expired.delete(this.expired.keys().next().value as string)
        this.expired.set(id, s.idleMs)
      }
    }
  }

  dispose(): void {
    clearInterval(this.timer)
    this.sessions.clear()
  }
}

// gym/env-registry: the server's open env sessions — ids, a cap on how many are open, idle expiry, and one step at a
// time per env. Knows nothing of HTTP.
import { randomBytes } from 'node:crypto'
import { GymError } from '../infra/errors'
import type { GymEnv } from './env'
import type { EpisodeStats } from './wrappers/episode-stats'

export type SessionEnv = GymEnv & { stats(): EpisodeStats }

interface Session {
  env: SessionEnv
  lastUsed: number
  busy: boolean
}

export class EnvRegistry {
  private readonly sessions = new Map<string, Session>()
  /** Recently expired ids, so a late client is told "expired" rather than "unknown" (bounded). */
  private readonly expired = new Set<string>()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly maxEnvs: number,
    private readonly idleMs: number,
    private readonly now: () => number = () => Date.now(),
    /** Start of every id ('env_'; gym serve --workers names the owner: 'env_w3_'). */
    private readonly idPrefix = 'env_',
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(30_000, Math.floor(idleMs / 2))))
    this.timer.unref()
  }

  get size(): number {
    return this.sessions.size
  }

  /** Throw env.limit when no slot is free (call before building an env, so a refused create does no work). */
  checkCapacity(): void {
    this.sweep()
    if (this.sessions.size >= this.maxEnvs)
      throw new GymError('env.limit', `too many open envs (${this.maxEnvs}); close finished envs with DELETE /v1/envs/{id}`)
  }

  add(env: SessionEnv): string {
    this.checkCapacity()
    const id = `${this.idPrefix}${randomBytes(12).toString('hex')}`
    this.sessions.set(id, { env, lastUsed: this.now(), busy: false })
    return id
  }

  /** Run fn with the env, one call at a time per env. */
  async use<T>(id: string, fn: (env: SessionEnv) => Promise<T>): Promise<T> {
    const s = this.sessions.get(id)
    if (!s) {
      if (this.expired.has(id)) throw new GymError('env.expired', `env '${id}' expired after ${this.idleMs} ms idle; create a new one`)
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
      if (!s.busy && t - s.lastUsed > this.idleMs) {
        this.sessions.delete(id)
        if (this.expired.size >= 10_000) this.expired.delete(this.expired.values().next().value as string)
        this.expired.add(id)
      }
    }
  }

  dispose(): void {
    clearInterval(this.timer)
    this.sessions.clear()
  }
}

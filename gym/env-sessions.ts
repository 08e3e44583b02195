// gym/env-sessions: where the gym server's env sessions live. The routes create, step and close envs through
// EnvSessions; LocalEnvSessions keeps them in this process (EnvRegistry + makeEnv), gym/cluster-sessions routes them
// between `gym serve --workers N` processes. Step and close answer JSON text, so a forwarded answer is never re-parsed.
// Knows nothing of HTTP.
import { HttpError } from '../infra/http/errors'
import type { Qa } from '../world'
import type { AssistantAction, Observation } from './types'
import type { FunctionSchema } from './protocol/tools'
import type { GymWorld } from './world-view'
import { EnvRegistry } from './env-registry'
import { makeResolvedEnv, resolveGymOptions, type GymOptions } from './make-env'

type Json = Record<string, unknown>

export interface CreatedEnv {
  envId: string
  observation: Observation
  tools: FunctionSchema[]
}

/** One worker's line in /health (gym serve --workers N). */
export interface WorkerHealth {
  index: number
  pid: number | null
  /** false while the worker process is down (exited, its restart pending or starting; its envs answer 503 env.worker_down). */
  alive: boolean
  /** false while an alive worker answers nothing (stopped, hung): skipped for creates, its envs answer 503
   *  env.worker_unresponsive at once. */
  responding: boolean
  /** When it stopped answering (ISO time), while it does not respond. */
  silentSince: string | null
  /** Open envs; null when the worker did not answer in time. */
  envs: number | null
  /** Envs this worker reaped by idle expiry since it started; null when it did not answer in time. */
  reaped: number | null
  /** Envs this worker closed because a create forwarded to a peer was answered after its deadline (the client had
   *  been given another env); absent when it did not answer. */
  orphansClosed?: number
  /** Times this worker was restarted after it exited. */
  restarts: number
}

/** What the primary of `gym serve --workers N` tells every worker about worker `index` (sent on every change). */
export interface WorkerState {
  index: number
  /** The process id of the worker that runs (or last ran) at this index. */
  pid: number | null
  /** Listening and serving; false from its exit until its replacement is ready. */
  up: boolean
  restarts: number
}

export interface EnvSessions {
  /** Build an env for qa with the request's option overrides (over the server's defaults); the id names its owner.
   *  `idleMs` shortens the env's idle expiry below the server's (never lengthens it). */
  create(qa: Qa, overrides: Json, idleMs?: number): Promise<CreatedEnv>
  /** The StepResult of one action, as JSON text. */
  step(id: string, action: AssistantAction | string): Promise<string>
  /** `{"closed":true,"stats":...}` as JSON text; throws env.not_found (404) when no such env is open. */
  close(id: string): Promise<string>
  /** Open envs and envs reaped by idle expiry in all workers, and the workers when there are several. */
  health(): Promise<{ envs: number; reaped: number; orphansClosed?: number; workers?: { count: number; alive: number; responding: number; list: WorkerHealth[] } }>
  /** True while this server is still coming up (a worker of --workers N before the primary said all are up): /health is
   *  503 then. Answered without a call to any other process. */
  starting?(): boolean
  dispose(): void
}

/** The env options that are objects of independent settings, merged key by key over the server's defaults. */
const MERGED_OPTIONS = new Set(['budgets', 'faults'])

/** Two-level merge of env option overrides (budgets, faults are objects) over the server's defaults. */
export function mergeOverrides(base: GymOptions, over: Json): Json {
  const out: Json = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (!Object.hasOwn(base, k))
      throw new HttpError(400, 'config.unknown_key', `unknown env option ${JSON.stringify(k.slice(0, 60))}; known: ${Object.keys(base).join(', ')}`)
    // budgets and faults are merged a level down (a request sets one budget); every other option, the reward
    // included, is replaced whole: a reward is a spec name, so {"terms":["em"]} may not pass under the default's "f1".
    const cur = (base as unknown as Json)[k]
    out[k] = MERGED_OPTIONS.has(k) && typeof cur === 'object' && cur !== null && typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...cur, ...v } : v
  }
  return out
}

/** The envs of this process. */
export class LocalEnvSessions implements EnvSessions {
  readonly registry: EnvRegistry

  constructor(
    private readonly world: GymWorld,
    private readonly envDefaults: GymOptions,
    maxEnvs: number,
    idleMs: number,
    idPrefix = 'env_',
  ) {
    this.registry = new EnvRegistry(maxEnvs, idleMs, undefined, idPrefix)
  }

  /** The resolved options of a create request (throws the caller's 400 before any work). */
  resolve(overrides: Json): GymOptions {
    return resolveGymOptions(mergeOverrides(this.envDefaults, overrides))
  }

  async create(qa: Qa, overrides: Json, idleMs?: number): Promise<CreatedEnv> {
    const merged = this.resolve(overrides)
    // Everything that can fail on the request's input runs before the env takes a slot: a refused create never
    // holds one (the slot is only taken once the first observation exists).
    this.registry.checkCapacity()
    const env = makeResolvedEnv(this.world, qa, merged)
    const observation = await env.initialObservation()
    return { envId: this.registry.add(env, idleMs), observation, tools: env.tools }
  }

  async step(id: string, action: AssistantAction | string): Promise<string> {
    return JSON.stringify(await this.registry.use(id, (env) => env.step(action)))
  }

  async close(id: string): Promise<string> {
    const env = this.registry.close(id)
    if (!env) throw new HttpError(404, 'env.not_found', 'no open env with this id')
    return JSON.stringify({ closed: true, stats: env.stats() })
  }

  async health(): Promise<{ envs: number; reaped: number }> {
    return { envs: this.registry.size, reaped: this.registry.reaped }
  }

  dispose(): void {
    this.registry.dispose()
  }
}

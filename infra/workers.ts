// infra/workers: how many worker threads a parallel build step uses — SEARCHGYM_THREADS, else the machine's cores
// (at most 8). One knob for every sharded stage (edge verification, the oracle check). ("Workers" are processes:
// gym serve --workers; threads are named threads, as in --threads and --search-threads.)
import { availableParallelism } from 'node:os'
import { ConfigError } from './errors'

export const MAX_DEFAULT_WORKERS = 8

/** Environment variables renamed (old → new): a stale one is refused in one line rather than silently ignored. */
const RENAMED_ENV = { SEARCHGYM_WORKERS: 'SEARCHGYM_THREADS', SEARCHGYM_WORKER_HEAP_MB: 'SEARCHGYM_THREAD_HEAP_MB' } as const

function refuseRenamedEnv(): void {
  for (const [old, now] of Object.entries(RENAMED_ENV))
    if (process.env[old] !== undefined) throw new ConfigError('config.threads', `${old} was renamed: use ${now} (worker threads; --workers is gym serve's worker processes)`)
}

/** Worker threads for a parallel step (explicit request > SEARCHGYM_THREADS > cores, capped at 8). */
export function workerCount(requested?: number): number {
  refuseRenamedEnv()
  const env = process.env.SEARCHGYM_THREADS
  const n = requested ?? (env !== undefined && env !== '' ? Number(env) : Math.min(availableParallelism(), MAX_DEFAULT_WORKERS))
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError('config.threads', `SEARCHGYM_THREADS must be a positive integer, got ${JSON.stringify(requested ?? env)}`)
  return n
}

/**
 * Heap limit of each worker thread (SEARCHGYM_THREAD_HEAP_MB: the old generation, in MB), for a memory ceiling on big
 * worlds: without it a worker may grow its heap as far as the main thread's limit (NODE_OPTIONS=--max-old-space-size
 * applies to every thread), so N workers could take N times that. Undefined when unset (V8's default).
 */
export function workerResourceLimits(): { maxOldGenerationSizeMb: number } | undefined {
  refuseRenamedEnv()
  const env = process.env.SEARCHGYM_THREAD_HEAP_MB
  if (env === undefined || env === '') return undefined
  const mb = Number(env)
  if (!Number.isInteger(mb) || mb < 64)
    throw new ConfigError('config.threads', `SEARCHGYM_THREAD_HEAP_MB must be an integer number of MB (at least 64), got ${JSON.stringify(env)}`)
  return { maxOldGenerationSizeMb: mb }
}

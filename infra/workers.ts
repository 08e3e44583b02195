// infra/workers: how many worker threads a parallel build step uses — SEARCHGYM_WORKERS, else the machine's cores
// (at most 8). One knob for every sharded stage (edge verification, the oracle check).
import { availableParallelism } from 'node:os'
import { ConfigError } from './errors'

export const MAX_DEFAULT_WORKERS = 8

/** Worker threads for a parallel step (explicit request > SEARCHGYM_WORKERS > cores, capped at 8). */
export function workerCount(requested?: number): number {
  const env = process.env.SEARCHGYM_WORKERS
  const n = requested ?? (env !== undefined && env !== '' ? Number(env) : Math.min(availableParallelism(), MAX_DEFAULT_WORKERS))
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError('config.workers', `SEARCHGYM_WORKERS must be a positive integer, got ${JSON.stringify(requested ?? env)}`)
  return n
}

/**
 * Heap limit of each worker thread (SEARCHGYM_WORKER_HEAP_MB: the old generation, in MB), for a memory ceiling on big
 * worlds: without it a worker may grow its heap as far as the main thread's limit (NODE_OPTIONS=--max-old-space-size
 * applies to every thread), so N workers could take N times that. Undefined when unset (V8's default).
 */
export function workerResourceLimits(): { maxOldGenerationSizeMb: number } | undefined {
  const env = process.env.SEARCHGYM_WORKER_HEAP_MB
  if (env === undefined || env === '') return undefined
  const mb = Number(env)
  if (!Number.isInteger(mb) || mb < 64)
    throw new ConfigError('config.workers', `SEARCHGYM_WORKER_HEAP_MB must be an integer number of MB (at least 64), got ${JSON.stringify(env)}`)
  return { maxOldGenerationSizeMb: mb }
}

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

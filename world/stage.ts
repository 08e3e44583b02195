// world/stage: the build-stage contract. A world is built by running stages in order; each stage owns its
// tables, is resumable (re-running a finished stage is a no-op; a killed stage restarts or continues
// from its own checkpoints), and contributes canonical rows to the content hash.
import type { SearchHandle } from './indexing/search-handle'
import type { Db } from '../infra/store'
import type { WorldConfig } from './config'

export interface StageContext {
  db: Db
  config: WorldConfig
  /** The world folder (world.db lives in it). */
  dir: string
  /** The run's open search index (index and verify share it); owned by whoever runs the stages, one per run. */
  search: SearchHandle
  /** Quiet progress output (tests). */
  quiet: boolean
  log(message: string): void
  /** What this stage's `warm` returned, when the build warmed it (run() may use it; the build releases it after). */
  warm?: WarmHandle
  /** Set when the next stage was warmed and takes early input: final items of this stage's output, in order (the qa
   *  stage hands its questions over as it draws them, so the check's threads start on them at once). */
  ahead?: (items: readonly unknown[]) => void
}

/** Work a stage started early (threads, indexes); released by the build once the stage ran or the build stopped. */
export interface WarmHandle {
  release(): void
  /** Early input from the stage before (StageContext.ahead), in order. */
  accept?(items: readonly unknown[]): void
}

export interface Stage {
  name: string
  /** Create this stage's tables (idempotent). */
  init(db: Db): void
  /** Do the work; must leave no partial state that `isDone` would report as finished. */
  run(ctx: StageContext): Promise<void>
  /** Feed this stage's content to the hash in a deterministic order (rows via `emit`). */
  hashRows(db: Db, emit: (row: unknown) => void): void
  /** Optional: start work that needs only what the stages before the previous one made (worker threads opening
   *  the index) while the previous stage runs — the build calls it just before that stage starts, when this stage
   *  will run after it, and hands the handle to run() as `ctx.warm`. It must not write the world, and run() must give
   *  the same rows with or without it (a resumed build runs cold). */
  warm?(ctx: StageContext): Promise<WarmHandle | undefined>
  /** Optional: the earlier stages whose hashed rows this stage may change under `config` (the rephrase stage rewords
   *  the qa stage's questions when it has a model). The build hashes a finished stage's section early, in a worker
   *  (world/build/prehash), only once no stage after it names it here: a stage that changes another stage's hashed
   *  rows must say so. */
  rewrites?(config: WorldConfig): readonly string[]
}

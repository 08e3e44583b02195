// world/stage: the build-stage contract. A world is built by running stages in order; each stage owns its
// tables, is resumable (re-running a finished stage is a no-op; a killed stage restarts or continues
// from its own checkpoints), and contributes canonical rows to the content hash.
import type { Db } from '../infra/store'
import type { WorldConfig } from './config'

export interface StageContext {
  db: Db
  config: WorldConfig
  /** The world folder (world.db lives in it). */
  dir: string
  /** Quiet progress output (tests). */
  quiet: boolean
  log(message: string): void
}

export interface Stage {
  name: string
  /** Create this stage's tables (idempotent). */
  init(db: Db): void
  /** Do the work; must leave no partial state that `isDone` would report as finished. */
  run(ctx: StageContext): Promise<void>
  /** Feed this stage's content to the hash in a deterministic order (rows via `emit`). */
  hashRows(db: Db, emit: (row: unknown) => void): void
}

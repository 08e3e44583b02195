// agent/train/source: the interface through which the training loop asks "which questions next" — implemented by
// curriculum/ (stages, presets, adaptive sampling), which sits above agent. Draws come from the Rng the loop passes
// (one derived stream per step), so data order is seeded and a resumed run draws what the killed one would have.
import type { Rng } from '../../infra/rng'
import type { Qa } from '../../world'

export interface QuestionOutcome {
  qa: Qa
  /** Mean reward of the question's unmasked rollouts this step. */
  meanReward: number
}

export interface QuestionSource {
  /** `count` training questions for this step (the current stage's filter and weights). */
  next(count: number, rng: Rng): Qa[]
  /** Rewards of this step's questions (adaptive weights, moving averages). */
  observe(outcomes: readonly QuestionOutcome[]): void
  /** Held-out evaluation result after `step` (plateau gates); returns a log line when the stage switched. */
  afterStep(step: number, evalScore: number | null): string | null
  /** The current stage's name (logged per step). */
  stage(): string
  /** Held-out training questions for periodic evaluation (never drawn by next()). */
  heldOut(): Qa[]
  /** JSON-serialisable state (stage, cursors, pass rates) for checkpoints, and its inverse. */
  state(): unknown
  load(state: unknown): void
}

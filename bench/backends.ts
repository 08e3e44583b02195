// bench/backends: where the bench plugs into the rest of the project — how a world directory becomes questions and
// envs, the gym's answer scorer, and the oracle policy. The CLI uses the gym's (bench/gym-backends); tests swap in fixtures.
import type { Policy } from '../gym/types'
import type { Qa } from '../world/types'
import type { AnswerScorer, BenchWorld } from './types'

export interface BenchBackends {
  openWorld(dir: string): Promise<BenchWorld>
  scorer: AnswerScorer
  /** The gym's oracle for a question (follows the gold path, reads answers from accessed documents). */
  oracle?: (world: BenchWorld, qa: Qa) => Policy
}

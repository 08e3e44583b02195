// bench/backends: where the bench plugs into the rest of the project — how a world directory becomes questions and
// envs, the gym's answer scorer, and the oracle policy. Tests swap in fixtures; the CLI uses `defaultBackends`.
import type { Policy } from '../gym/types'
import type { Qa } from '../world/types'
import { BenchError } from '../infra/errors'
import type { AnswerScorer, BenchWorld } from './types'

export interface BenchBackends {
  openWorld(dir: string): Promise<BenchWorld>
  scorer: AnswerScorer
  /** The gym's oracle for a question (follows the gold path, reads answers from accessed documents). */
  oracle?: (world: BenchWorld, qa: Qa) => Policy
}

function notYet(what: string): never {
  throw new BenchError('bench.not_integrated', `${what} is not wired into the bench on this branch yet (it lands with the gym/world packages)`)
}

export const defaultBackends: BenchBackends = {
  openWorld: async (dir) => notYet(`opening the world ${dir} (world.db + the gym's Env)`),
  scorer: () => notYet("the gym's answer scorer"),
}

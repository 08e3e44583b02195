// curriculum/budgets: which training questions each stage's turn budget lets be solved — the oracle plays every
// question of the stage through the real gym under the budget the trainer would give it (gym/episode-budgets: the
// config's gym.budgets, its turn limit fixed or scaled with hops; token budgets lifted unless given), and the
// result (solved / total per stage, the turns the oracle needed, the ids it could not solve) is recorded.
import { episodeBudgets, makeEnv, resolveGymOptions, type GymOptionsJson, type GymWorld } from '../gym'
import { runOracle, type OracleKnowledge } from '../agent'
import type { Qa } from '../world'
import { inStage, type CurriculumSpec } from './stages'

export interface StageBudgetReport {
  stage: string
  questions: number
  solved: number
  /** Oracle turns: median and max over solved questions. */
  medianTurns: number
  maxTurns: number
  unsolved: { id: string; hops: number; budget: number; failure: string }[]
}

/** Token budgets the coverage lifts unless the config gives them: it asks about turns. */
const LIFTED_TOKENS = { maxResponseTokens: 1_000_000, maxContextTokens: 100_000_000 }

export async function budgetCoverage(
  world: GymWorld,
  knowledge: OracleKnowledge,
  spec: CurriculumSpec,
  train: readonly Qa[],
  gymJson: GymOptionsJson = {},
): Promise<StageBudgetReport[]> {
  const gym = resolveGymOptions({ ...gymJson, protocol: 'hermes' })
  const out: StageBudgetReport[] = []
  for (const st of spec.stages) {
    const qs = train.filter((q) => inStage(q, st))
    const turns: number[] = []
    const unsolved: StageBudgetReport['unsolved'] = []
    for (const qa of qs) {
      const budgets = episodeBudgets(qa, gymJson.budgets, LIFTED_TOKENS)
      const budget = budgets.maxTurns
      const env = makeEnv(world, qa, { ...gym, budgets })
      const r = await runOracle(env, qa, knowledge)
      if (r.failure) unsolved.push({ id: qa.id, hops: qa.hops, budget, failure: r.failure })
      else turns.push(r.turns)
    }
    turns.sort((a, b) => a - b)
    out.push({ stage: st.name, questions: qs.length, solved: turns.length, medianTurns: turns.length ? turns[Math.floor(turns.length / 2)] : 0, maxTurns: turns.at(-1) ?? 0, unsolved })
  }
  return out
}

// agent/policy/oracle-check: run the oracle through the real env over many QA and report every question it cannot
// solve, with why — the proof that a world's questions are answerable with its own Search/Access tools.
import pMap from 'p-map'
import { progress } from '../../infra/progress'
import { makeEnv, type GymOptions } from '../../gym'
import type { GymWorld } from '../../gym'
import type { Qa, QaType } from '../../world'
import { runOracle, type OracleKnowledge, type OracleRun } from './oracle'

export interface OracleCheckReport {
  total: number
  solved: number
  meanF1: number
  byType: Record<string, { total: number; solved: number }>
  /** Assistant turns the oracle needed (two tool calls per page + the answer). */
  turns: { p50: number; max: number; overPaperBudget: number }
  failures: (OracleRun & { type: QaType; hops: number; split: string })[]
}

/** Budgets are lifted in the check: it proves solvability with the tools; the paper's 16 turns are reported apart. */
export const CHECK_GYM_OPTIONS: Partial<GymOptions> = {
  budgets: { maxTurns: 1000, maxResponseTokens: 100_000, maxContextTokens: 100_000_000 },
}

export async function checkWithOracle(
  world: GymWorld,
  k: OracleKnowledge,
  qas: Qa[],
  opts: { gym?: Partial<GymOptions>; concurrency?: number; quiet?: boolean } = {},
): Promise<OracleCheckReport> {
  const bar = progress('oracle check', qas.length, { quiet: opts.quiet })
  const gym = { ...CHECK_GYM_OPTIONS, ...opts.gym }
  const runs = await pMap(
    qas,
    async (qa) => {
      const r = await runOracle(makeEnv(world, qa, gym), qa, k)
      bar.tick()
      return r
    },
    { concurrency: opts.concurrency ?? 8 },
  )
  bar.done()
  const byType: OracleCheckReport['byType'] = {}
  const failures: OracleCheckReport['failures'] = []
  let f1 = 0
  runs.forEach((r, i) => {
    const qa = qas[i]
    const t = (byType[qa.type] ??= { total: 0, solved: 0 })
    t.total++
    f1 += r.f1
    if (r.failure === undefined && r.f1 === 1) t.solved++
    else failures.push({ ...r, type: qa.type, hops: qa.hops, split: qa.split })
  })
  const turns = runs.map((r) => r.turns).sort((a, b) => a - b)
  return {
    total: qas.length,
    solved: qas.length - failures.length,
    meanF1: qas.length ? f1 / qas.length : 0,
    byType,
    turns: { p50: turns[Math.floor((turns.length - 1) / 2)] ?? 0, max: turns[turns.length - 1] ?? 0, overPaperBudget: turns.filter((t) => t > 16).length },
    failures,
  }
}

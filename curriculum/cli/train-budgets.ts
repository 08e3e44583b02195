// curriculum/cli/train-budgets: `searchgym train budgets` — flags → budgetCoverage; prints a line per stage and
// writes the full report (unsolved ids and why) as JSON.
import { writeFileSync } from 'node:fs'
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { DEFAULT_BUDGETS, openGymWorld } from '../../gym'
import { worldOracleKnowledge } from '../../agent'
import { resolveTrainConfig } from '../../agent'
import { openWorld } from '../../world'
import { budgetCoverage } from '../budgets'
import { CurriculumSource } from '../source'
import { curriculumPreset } from '../stages'
import { readJsonFile } from '../../infra/config'

export const trainBudgetsCommand: Command = {
  command: 'budgets',
  describe: "which training questions each stage's turn budget lets the oracle solve (fixed or hop-scaled budgets)",
  builder: (y: Argv) =>
    y
      .option('world', { type: 'string', demandOption: true, describe: 'built world folder' })
      .option('curriculum', { type: 'string', default: 'two-stage', describe: 'curriculum preset whose turn budgets to report' })
      .option('config', { type: 'string', describe: 'train config JSON (its gym.budgets: maxTurns, turnsPerHop)' })
      .option('out', { type: 'string', describe: 'write the JSON report here' })
      .example('searchgym train budgets --world worlds/paper', 'which training questions each stage\'s turn budget lets the oracle solve'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const cfg = resolveTrainConfig(argv.config === undefined ? undefined : readJsonFile(argv.config as string, '--config file'))
    const spec = curriculumPreset(String(argv.curriculum), cfg.switchSteps)
    const w = openWorld(String(argv.world))
    const gw = await openGymWorld(String(argv.world))
    try {
      const train = gw.listQa('train')
      // The source's own checks (every stage has questions in this world) before the oracle plays.
      new CurriculumSource(spec, train, { seed: cfg.seed, heldOut: 0 })
      const maxTurns = cfg.gym.budgets?.maxTurns ?? DEFAULT_BUDGETS.maxTurns
      const perHop = cfg.gym.budgets?.turnsPerHop ?? 0
      const rule = perHop ? 'hop-scaled' : 'fixed'
      const rep = await budgetCoverage(gw, worldOracleKnowledge(w), spec, train, cfg.gym)
      for (const r of rep)
        process.stdout.write(`${r.stage}: oracle solves ${r.solved}/${r.questions} within the ${rule} budget (median ${r.medianTurns} turns, max ${r.maxTurns})\n`)
      if (argv.out) writeFileSync(String(argv.out), JSON.stringify({ curriculum: spec.name, turnBudget: perHop ? 'hop-scaled' : 'fixed', maxTurns, ...(perHop ? { turnsPerHop: perHop } : {}), stages: rep }, null, 2) + '\n')
    } finally {
      await gw.close()
      w.close()
    }
  }),
}

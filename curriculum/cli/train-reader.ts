// curriculum/cli/train-reader: `searchgym train reader` — a config file → runReader (the reading curriculum: drills
// whose contexts grow from the evidence sentence to the page and the episode, then the agentic turns). Thin.
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
import { readReaderConfig } from '../reading/config'
import { runReader } from '../reading/run'

export const trainReaderCommand: Command = {
  command: 'reader',
  describe: 'the reading curriculum from a config file: full-weight drills with the loss on the target turn, phases with gates; resumable',
  builder: (y: Argv) =>
    y
      .option('config', { type: 'string', demandOption: true, describe: 'the curriculum config (JSON), e.g. curriculum/recipes/reader-v1.json' })
      .option('out', { type: 'string', demandOption: true, describe: 'run folder (worlds/, init/, phases/NAME/, model/); rerun the same command to resume' })
      .option('cpu-budget', { type: 'number', describe: 'stop this run after this many CPU seconds of training (checkpoint written; rerun to go on)' })
      .option('committed', { type: 'string', describe: 'folder of committed phases: adopt a finished phase from it, write each phase finished here to it' })
      .option('backend', { type: 'string', default: 'auto', describe: 'engine backend: auto | native | ts | cuda' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines (also SEARCHGYM_QUIET=1)' })
      .example('searchgym train reader --config curriculum/recipes/reader-v1.json --out runs/reader-v1 --committed curriculum/starts/reader-v1/phases', 'the reader start, resumable, adopting committed phases'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as { config: string; out: string; 'cpu-budget'?: number; committed?: string; backend: string; quiet: boolean }
    if (a['cpu-budget'] !== undefined && !(a['cpu-budget'] > 0)) throw new ConfigError('reader.cpu_budget', `--cpu-budget must be a number of seconds > 0, got ${a['cpu-budget']}`)
    const config = readReaderConfig(a.config)
    const log = a.quiet || process.env.SEARCHGYM_QUIET === '1' ? undefined : (l: string) => process.stderr.write(l + '\n')
    const r = await runReader({ config, configFile: a.config, out: a.out, backend: a.backend, cpuBudgetS: a['cpu-budget'], committed: a.committed, log })
    const lines = r.phases.map((p) => `  ${p.name}: ${p.steps} steps (${p.reason}), ${p.cpuS} CPU s, best gate EM ${(100 * p.best.value).toFixed(1)}% at step ${p.best.step}`)
    if (r.paused) process.stdout.write(`train reader: paused by --cpu-budget after ${r.phases.length} of ${config.phases.length} phases; rerun the same command to go on\n${lines.join('\n')}\n`)
    else process.stdout.write(`train reader: ${r.phases.length} phases done; model ${r.model}\n${lines.join('\n')}\n`)
  }),
}

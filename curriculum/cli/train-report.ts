// curriculum/cli/train-report: `searchgym train report RUN` — flags → writeTrainReport.
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { writeTrainReport } from '../report'

export const trainReportCommand: Command = {
  command: 'report <run>',
  describe: 'write RUN/report.md with SVG curves from metrics.jsonl',
  builder: (y: Argv) => y.positional('run', { type: 'string', demandOption: true, describe: 'run folder of `searchgym train`' })
      .example('searchgym train report runs/grpo', 'the run\'s curves and held-out results'),
  handler: handler((argv: Record<string, unknown>) => {
    process.stdout.write(`train report: ${writeTrainReport(String(argv.run))}\n`)
  }),
}

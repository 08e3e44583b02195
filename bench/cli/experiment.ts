// bench/cli/experiment: `searchgym experiment run FILE --out DIR` (build what is missing, train every arm × seed from
// the shared start, bench them, report; resumable) and `experiment report DIR` (re-render the report). Thin.
import { resolve } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { writeExperimentReport } from '../experiment/report'
import { runExperiment } from '../experiment/run'
import { readExperiment } from '../experiment/spec'

const runCommand: Command = {
  command: 'run <file>',
  describe: 'run an experiment file: worlds, start, every arm × seed (train + bench), report; rerun the same command to resume',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'experiment JSON (see curriculum/experiments/)' })
      .option('out', { type: 'string', demandOption: true, describe: 'experiment folder (runs/NAME)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
      .example('$0 experiment run curriculum/experiments/tiny.json --out runs/exp-tiny', ''),
  handler: handler(async (argv: Record<string, unknown>) => {
    const spec = readExperiment(String(argv.file))
    const log = argv.quiet ? undefined : (l: string) => process.stderr.write(l + '\n')
    const r = await runExperiment(spec, resolve(String(argv.out)), { log })
    process.stdout.write(`experiment ${spec.name}: ${r.ran} phases run, ${r.skipped} found done; report ${r.report}\n`)
  }),
}

const reportCommand: Command = {
  command: 'report <dir>',
  describe: "re-render an experiment's report (report.json, report.md, curves.svg, gains.svg) from its run folders",
  builder: (y: Argv) => y.positional('dir', { type: 'string', demandOption: true, describe: 'experiment folder written by experiment run' }),
  handler: handler((argv: Record<string, unknown>) => {
    const dir = resolve(String(argv.dir))
    const r = writeExperimentReport(dir)
    process.stdout.write(`experiment report: ${dir}/report.md (${r.runsDone}/${r.runsTotal} runs finished, ${r.sets.length} tables)\n`)
  }),
}

export function experimentCommands(): Command[] {
  return [
    {
      command: 'experiment',
      describe: 'curriculum ablations as one resumable command: world recipe, shared start, arms × seeds, report',
      builder: (y: Argv) => y.command([runCommand, reportCommand]).demandCommand(1, 'give an experiment sub-command: run or report; see searchgym experiment --help'),
      handler: () => {},
    },
  ]
}

// bench/cli/experiment: `searchgym experiment run FILE [--set KEY=VALUE] --out DIR [--results RDIR]` (build what is missing, train every
// arm × seed from the shared start, bench them, report; resumable, and carried across sessions through a results
// folder) and `experiment report DIR` (re-render the report). Thin.
import { resolve } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
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
      .option('results', { type: 'string', describe: 'results folder to commit (e.g. curriculum/results/NAME): finished units (the start, each arm × seed) are restored from it into --out and exported to it, the report is copied there; large files stay out' })
      .option('set', { type: 'string', describe: 'KEY=VALUE: one key of the experiment file over its value there (repeatable), e.g. --set train.steps=4 --set seeds=[0,1]' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
      .example('$0 experiment run curriculum/experiments/tiny.json --out runs/exp-tiny', '')
      .example('$0 experiment run curriculum/experiments/quick-smoke.json --set train.steps=4 --out runs/smoke-4', 'the file with one key changed (a run folder keeps the resolved spec)')
      .example('$0 experiment run curriculum/experiments/tiny.json --out runs/exp-tiny --results curriculum/results/tiny', 'carry finished units across sessions in a folder of the repo'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const spec = readExperiment(String(argv.file), argv.set === undefined ? [] : ([] as unknown[]).concat(argv.set).map(String))
    if (argv.results !== undefined && (typeof argv.results !== 'string' || argv.results.trim() === ''))
      throw new ConfigError('experiment.results_flag', '--results needs a folder (e.g. --results curriculum/results/' + spec.name + ')')
    const log = argv.quiet ? undefined : (l: string) => process.stderr.write(l + '\n')
    const r = await runExperiment(spec, resolve(String(argv.out)), { log, ...(argv.results !== undefined ? { results: resolve(String(argv.results)) } : {}) })
    const restored = r.restored.length > 0 ? `, ${r.restored.length} units restored from ${String(argv.results)}` : ''
    process.stdout.write(`experiment ${spec.name}: ${r.ran} phases run, ${r.skipped} found done${restored}; report ${r.report}\n`)
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

// bench/cli/compare: `searchgym bench compare runs/A runs/B [...]` — paired differences against the first run (thin).
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { compareRuns, formatComparisonText, loadRun, writeComparison } from '../compare'
import { checkRunNumbers } from '../run'

export interface CompareArgs {
  runs: string[]
  out?: string
  bootstrap: number
  seed: number
  groups: 'all' | 'every'
}

export function compareFromArgs(a: CompareArgs): void {
  // Bounds before any run is read: --bootstrap -1 or 1e9 is one line (bench run's bounds), not a crash or 2 GB.
  checkRunNumbers({ bootstrap: a.bootstrap, seed: a.seed })
  const c = compareRuns(a.runs.map(loadRun), { resamples: a.bootstrap, seed: a.seed })
  process.stdout.write(formatComparisonText(c, a.groups))
  if (a.out) {
    writeComparison(a.out, c)
    process.stdout.write(`wrote ${a.out}/compare.md, compare.svg, compare.json\n`)
  }
}

export const compareCommand: Command = {
  command: 'compare <runs..>',
  describe: 'paired differences of runs on the same questions (first run = baseline), with bootstrap CIs and p-values',
  builder: (y: Argv) =>
    y
      .positional('runs', { type: 'string', array: true, default: undefined, defaultDescription: 'none', describe: 'run directories, two or more; the first is the baseline' })
      .option('out', { type: 'string', describe: 'write compare.md, compare.svg and compare.json here' })
      .option('bootstrap', { type: 'number', default: 2000, describe: 'bootstrap resamples for the paired 95% CIs' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the bootstrap and permutation draws' })
      .option('groups', { choices: ['all', 'every'] as const, default: 'every' as const, describe: "print only 'all' or also by type and hops" })
      .example('searchgym bench compare runs/oracle runs/tiny --out runs/compare', 'paired differences against the first run, with bootstrap CIs'),
  handler: handler((a: unknown) => compareFromArgs(a as CompareArgs)),
}

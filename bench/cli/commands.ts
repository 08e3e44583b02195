// bench/cli/commands: the `searchgym bench run|report|compare|funnel` command group (thin: parse flags, call an exported function).
import type { Argv, Command } from '../../infra/cli-util'
import { compareCommand } from './compare'
import { funnelCommand } from './funnel'
import { reportCommand } from './report'
import { runCommand } from './run'

export function benchCommands(): Command[] {
  return [
    {
      command: 'bench',
      describe: 'SearchGymBench: run policies, report, compare runs, the reading funnel of a local model',
      builder: (y: Argv) => y.command([runCommand(), reportCommand, compareCommand, funnelCommand]).demandCommand(1, 'give a bench sub-command: run, report, compare or funnel; see searchgym bench --help'),
      handler: () => {},
    },
  ]
}

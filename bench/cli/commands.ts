// bench/cli/commands: the `searchgym bench run|report|compare` command group (thin: parse flags, call an exported function).
import type { Argv, Command } from '../../infra/cli-util'
import { compareCommand } from './compare'
import { reportCommand } from './report'
import { runCommand } from './run'

export function benchCommands(): Command[] {
  return [
    {
      command: 'bench',
      describe: 'SearchGymBench: run policies, report, compare runs',
      builder: (y: Argv) => y.command([runCommand(), reportCommand, compareCommand]).demandCommand(1, 'give a bench sub-command: run, report or compare; see searchgym bench --help'),
      handler: () => {},
    },
  ]
}

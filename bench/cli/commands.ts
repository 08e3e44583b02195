// bench/cli/commands: the `searchgym bench ...` sub-commands (thin: parse flags, call an exported function).
import type { Argv, Command } from '../../infra/cli-util'
import type { BenchBackends } from '../backends'
import { compareCommand } from './compare'
import { reportCommand } from './report'
import { runCommand } from './run'
import { gymBackends } from '../gym-world'
import type { ClientTuning } from '../policies'

/** The `bench` command group over given backends (tests pass fixtures; the CLI the real ones). */
export function benchCommand(backends: BenchBackends, tuning: ClientTuning = {}): Command {
  return {
    command: 'bench <command>',
    describe: 'SearchGymBench: run policies, report, compare runs',
    builder: (y: Argv) => y.command([runCommand(backends, tuning), reportCommand, compareCommand]).demandCommand(1),
    handler: () => {},
  }
}

export const commands: Command[] = [benchCommand(gymBackends)]

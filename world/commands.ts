// world/commands: the `searchgym world ...` sub-commands (thin: parse flags, call an exported function).
// One line per sub-command; other packages add theirs (verify, qa, ...) here.
import type { Command } from '../infra/cli-util'
import { buildCommand } from './cli/build'
import { statsCommand } from './cli/stats'
import { showCommand } from './cli/show'
import { exportCommand } from './cli/export'
import { verifyCommand } from './cli/verify'
import { qaCommand } from './qa/commands'

export const worldSubcommands: Command[] = [
  buildCommand,
  statsCommand,
  showCommand,
  exportCommand,
  verifyCommand,
  qaCommand,
]

export const commands: Command[] = [
  {
    command: 'world <command>',
    describe: 'build and inspect worlds (graph, documents, world file)',
    builder: (y) => y.command(worldSubcommands).demandCommand(1, 'give a world sub-command; see searchgym world --help'),
    handler: () => undefined,
  },
]

// world/cli/commands: the `searchgym world ...` sub-commands (thin: parse flags, call an exported function).
// One line per sub-command; other packages add theirs (verify, qa, ...) here.
import type { Command } from '../../infra/cli-util'
import { buildCommand } from './build'
import { statsCommand } from './stats'
import { showCommand } from './show'
import { exportCommand } from './export'
import { verifyCommand } from './verify'
import { qaCommand } from './qa'

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

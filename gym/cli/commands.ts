// gym/cli/commands: the `searchgym` sub-commands of the gym package (thin: parse flags, call an exported function):
// `gym serve DIR`, `gym check DIR`, and the top-level `score`.
import { handler, type Command } from '../../infra/cli-util'
import { serveCommand } from './serve'
import { scoreCommand } from './score'
import { checkCommand } from '../../agent/cli/check'

const gym: Command = {
  command: 'gym <command>',
  describe: 'the Search/Access gym: serve a world over HTTP, check that every question is solvable',
  builder: (y) => y.command([serveCommand, checkCommand]).demandCommand(1, 'give a gym command; see searchgym gym --help'),
  handler: handler(() => {}),
}

export const commands: Command[] = [gym, scoreCommand]

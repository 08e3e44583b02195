// gym/cli/commands: the gym package's commands (thin: parse flags, call an exported function): `gym serve DIR` and
// the top-level `score`. Verbs from higher packages (agent's `gym check`) are passed in by the root CLI.
import { handler, type Command } from '../../infra/cli-util'
import { serveCommand } from './serve'
import { scoreCommand } from './score'

/** `searchgym gym serve|…` (plus `extra` verbs under `gym`) and `searchgym score`. */
export function gymCommands(extra: Command[] = []): Command[] {
  const gym: Command = {
    command: 'gym',
    describe: 'the Search/Access gym: serve a world over HTTP, check that every question is solvable',
    builder: (y) => y.command([serveCommand, ...extra]).demandCommand(1, 'give a gym sub-command: serve or check; see searchgym gym --help'),
    handler: handler(() => {}),
  }
  return [gym, scoreCommand]
}

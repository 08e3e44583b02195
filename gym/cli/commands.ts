// gym/cli/commands: the gym package's commands (thin: parse flags, call an exported function): `gym serve DIR`, `gym mcp DIR` and
// the top-level `score`. Verbs from higher packages (agent's `gym check`) are passed in by the root CLI.
import { handler, type Command } from '../../infra/cli-util'
import { serveCommandWith } from './serve'
import type { Stage } from '../../world'
import { scoreCommand } from './score'
import { mcpCommandWith } from './mcp'

/** `searchgym gym serve|…` (plus `extra` verbs under `gym`) and `searchgym score`; with `stages`, `gym serve` checks the
 *  world's content against its hash before serving it. */
export function gymCommands(extra: Command[] = [], stages?: readonly Stage[]): Command[] {
  const gym: Command = {
    command: 'gym',
    describe: 'the Search/Access gym: serve a world over HTTP or MCP, check that every question is solvable',
    builder: (y) => y.command([serveCommandWith(stages), mcpCommandWith(stages), ...extra]).demandCommand(1, 'give a gym sub-command: serve, mcp or check; see searchgym gym --help'),
    handler: handler(() => {}),
  }
  return [gym, scoreCommand]
}

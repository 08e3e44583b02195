// agent/cli/commands: the agent package's commands (thin: parse flags, call an exported function) — `model init|pretrain|serve`
// (the local policy engine's models; init composes a world's texts with the engine) and `gym check` (mounted under
// the gym group by the root CLI).
import type { Argv, Command } from '../../infra/cli-util'
import { modelServeCommand, type ModelServeDeps } from '../../infra/engine'
import { modelInitCommand } from './model-init'
import { modelPretrainCommand } from './model-pretrain'
export { checkCommand } from './check'

/** `searchgym model init|serve`. `deps`: what the composition root injects into `model serve` (cli.ts's main). */
export function agentCommands(deps: ModelServeDeps = {}): Command[] {
  return [
    {
      command: 'model',
      describe: 'local policy engine: create random models, pretrain them on world pages, serve a model over an OpenAI-compatible API',
      builder: (y: Argv) => y.command([modelInitCommand, modelPretrainCommand, modelServeCommand(deps)]).demandCommand(1, 'give a model sub-command: init, pretrain or serve'),
      handler: () => undefined,
    },
  ]
}

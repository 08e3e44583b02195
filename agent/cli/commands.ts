// agent/cli/commands: the `searchgym` sub-commands of the agent package (thin: parse flags, call an exported function).
import type { Argv, Command } from '../../infra/cli-util'
import { modelInitCommand } from '../../infra/engine/cli/model-init'
import { modelServeCommand } from '../../infra/engine/cli/model-serve'

/** `searchgym model init|serve`: the local policy engine's models. */
const modelCommand: Command = {
  command: 'model <command>',
  describe: 'local policy engine: create random models, serve a model over an OpenAI-compatible API',
  builder: (y: Argv) => y.command([modelInitCommand, modelServeCommand]).demandCommand(1, 'give a model sub-command: init or serve'),
  handler: () => undefined,
}

export const commands: Command[] = [modelCommand]

// curriculum/cli/commands: the curriculum package's `searchgym` verbs — `train`, `train sft`, `train report`,
// `train budgets` (sub-commands of train).
import type { Command } from '../../infra/cli-util'
import { trainCommand, type TrainCommandDeps } from './train'

/** `deps`: what the composition root injects (cli.ts's main; tests' scripted entry). */
export function curriculumCommands(deps: TrainCommandDeps = {}): Command[] {
  return [trainCommand(deps)]
}

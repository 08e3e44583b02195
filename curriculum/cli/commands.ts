// curriculum/cli/commands: the curriculum package's `searchgym` verbs — `train`, `train sft`, `train report`,
// `train budgets` (sub-commands of train).
import type { Command } from '../../infra/cli-util'
import { trainCommand } from './train'

export function curriculumCommands(): Command[] {
  return [trainCommand]
}

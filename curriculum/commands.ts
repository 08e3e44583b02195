// curriculum/commands: the `searchgym` sub-commands of the curriculum package (train, train sft, train report).
import type { Command } from '../infra/cli-util'
import { trainCommand } from './cli/train'

export const commands: Command[] = [trainCommand]

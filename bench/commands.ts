// bench/commands: the `searchgym` sub-commands of the bench package (thin: parse flags, call an exported function).
import type { Command } from '../infra/cli-util'

export const commands: Command[] = []

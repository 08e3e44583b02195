// gym/commands-check: `searchgym gym check DIR` — the oracle through the real env over every QA; lists failures.
import type { ArgumentsCamelCase } from 'yargs'
import { handler, type Command } from '../infra/cli-util'
import { GymError } from '../infra/errors'

export const checkCommand: Command = {
  command: 'check <dir>',
  describe: 'run the oracle policy through the real env over every QA of a world and list questions it cannot solve',
  builder: (y) => y.positional('dir', { type: 'string', demandOption: true }),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as { dir: string }
    throw new GymError('check.unavailable', `cannot check '${a.dir}': the oracle needs the QA stage, which has not landed in this build yet`)
  }),
}

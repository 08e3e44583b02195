// cli: the root `searchgym` command — the composition root: it takes each package's commands from its index.ts and
// hands the stage list and mounted verbs across packages (agent's oracle check joins the world build and `gym check`).
// Holds no logic of its own.
import yargs from 'yargs'
import { hideBin } from 'yargs/helpers'
import { worldCommands } from './world'
import { gymCommands } from './gym'
import { agentCommands, checkCommand, CHECKED_WORLD_STAGES } from './agent'
import { curriculumCommands } from './curriculum'
import { benchCommands } from './bench'
import { viewCommands } from './view'
import { fail } from './infra/cli-util'

const cli = yargs(hideBin(process.argv))
  .scriptName('searchgym')
  .usage('$0 <command> [options]\n\nVerifiable synthetic worlds for training search agents.')
  .command([...worldCommands(CHECKED_WORLD_STAGES), ...gymCommands([checkCommand]), ...agentCommands(), ...curriculumCommands(), ...benchCommands(), ...viewCommands()])
  .demandCommand(1, 'give a command; see --help')
  .strict()
  .help()
  .version()
  .wrap(Math.min(110, process.stdout.columns || 100))
  .fail((msg, err) => {
    if (err) fail(err)
    process.stderr.write(`searchgym: error: ${msg.replace(/\s*\n\s*/g, ' ')}\n`)
    process.exit(2)
  })

await cli.parseAsync()

// cli: the root `searchgym` command; composes each package's commands.ts (yargs). Holds no logic of its own.
import yargs from 'yargs'
import { hideBin } from 'yargs/helpers'
import { commands as world } from './world/commands'
import { commands as gym } from './gym/commands'
import { commands as agent } from './agent/commands'
import { commands as curriculum } from './curriculum/commands'
import { commands as bench } from './bench/commands'
import { fail } from './infra/cli-util'
import { registerFinalStage } from './world/pipeline'
import { oracleCheckStage } from './agent/world-check-stage'

// The oracle check needs agent/, so world/ cannot list it itself: the composition root appends it to the pipeline.
registerFinalStage(oracleCheckStage)

const cli = yargs(hideBin(process.argv))
  .scriptName('searchgym')
  .usage('$0 <command> [options]\n\nVerifiable synthetic worlds for training search agents.')
  .command([...world, ...gym, ...agent, ...curriculum, ...bench])
  .demandCommand(1, 'give a command; see --help')
  .strict()
  .help()
  .version()
  .wrap(Math.min(110, process.stdout.columns || 100))
  .fail((msg, err) => {
    if (err) fail(err)
    process.stderr.write(`searchgym: error: ${msg}\n`)
    process.exit(2)
  })

await cli.parseAsync()

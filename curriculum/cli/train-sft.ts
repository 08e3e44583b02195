// curriculum/cli/train-sft: `searchgym train sft` — the run's identity as flags (world, model, out), every knob from
// the SFT field table (curriculum/sft-config: --config FILE, --set KEY=VALUE, the old flags as aliases) → runSft.
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { checkSftConfig, SFT_FIELDS, type SftConfig } from '../sft-config'
import { runSft } from '../sft-run'
import { worldArgs } from '../world-pool'

export const trainSftCommand: Command = {
  command: 'sft',
  describe: 'SFT warm start: clone the oracle on training questions (loss on assistant tokens only)',
  builder: (y: Argv) =>
    fieldOptions(
      y
      .option('world', { type: 'string', describe: 'built world folder; repeat for a pool of worlds (question ids become WORLD/ID)' })
      .option('worlds', { type: 'string', describe: 'JSON file: a list of world folders, or a recipe {preset, config, seeds, cache} built on demand' })
      .option('model', { type: 'string', demandOption: true, describe: 'model folder' })
      .option('out', { type: 'string', demandOption: true, describe: 'output folder (adapter/, metrics.jsonl, sft.json)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
      .example('searchgym train sft --world worlds/tiny --model models/tiny-tiny --out runs/sft --set questions=8 --set epochs=2 --set batch=2', 'a LoRA warm start on oracle trajectories')
      .example('searchgym train sft --world worlds/a --world worlds/b --model runs/pre/model --set full=true --set mix=demo=1,answer=2,read=2 --set eval.worlds=worlds/c --out runs/sft', 'one mixed full-weight SFT with the funnel on an unseen world'),
      SFT_FIELDS,
    ),
  handler: handler(async (argv: Record<string, unknown>) => {
    // Every knob checked (the table's checks, then the cross-field ones, named as given) before any work.
    const { config, name } = fieldArgs<SftConfig>(SFT_FIELDS, argv)
    checkSftConfig(config, name)
    const a = argv as { world?: string | string[]; worlds?: string; model: string; out: string; quiet: boolean }
    const log = a.quiet ? undefined : (l: string) => process.stderr.write(l + '\n')
    const worlds = await worldArgs(a.world, a.worlds, log)
    const r = await runSft({ world: worlds.length === 1 ? worlds[0] : worlds, model: a.model, out: a.out, log }, config)
    const what = config.full ? 'model' : 'adapter'
    const stop = r.budgetStopped ? ` — stopped by the CPU budget (${r.cpuS.toFixed(0)} CPU s); rerun with a bigger --set cpuBudgetS=… to go on` : ''
    if (r.steps === 0) process.stdout.write(`train sft: ${r.solved}/${r.episodes} oracle episodes, 0 optimizer steps (nothing trained); ${what} ${r.adapterDir}\n`)
    else process.stdout.write(`train sft: ${r.solved}/${r.episodes} oracle episodes, ${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}, ${r.cpuS.toFixed(0)} CPU s; ${what} ${r.adapterDir}${stop}\n`)
  }),
}

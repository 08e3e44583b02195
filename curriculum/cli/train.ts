// curriculum/cli/train: `searchgym train` (GRPO with a curriculum preset), `train sft` (oracle warm start) and
// `train report` (report.md with SVG curves). Thin: flags → runTraining / runSft / writeTrainReport; the train config's
// keys come from its field table (agent TRAIN_FIELDS: --config FILE, --set KEY=VALUE, --steps, the old flags as aliases). `train --preset`
// runs a bundled experiment file through the experiment driver, which the composition root injects (it is in bench).
import type { Argv, Command } from '../../infra/cli-util'
import { movedBudgetKeys, noUpdateLine, resolveTrainConfig, TRAIN_FIELDS, type TrainConfig } from '../../agent'
import { fieldArgs, fieldOptions, noteMovedKey } from '../../infra/field-args'
import { getPath, setPath } from '../../infra/fields'
import { handler } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
import { runTraining, type RolloutSamplerFactory } from '../run'
import { presetNames } from '../stages'
import { worldArgs } from '../world-pool'
import { trainSftCommand } from './train-sft'
import { trainReaderCommand } from './train-reader'
import { trainReportCommand } from './train-report'
import { trainBudgetsCommand } from './train-budgets'

interface GrpoArgs {
  world?: string | string[]
  worlds?: string
  model?: string
  preset?: string
  adapter?: string
  curriculum: string
  out: string
  access: boolean
  reward?: string
  backend: string
  quiet: boolean
}

/** `train --preset NAME --out DIR`: the bundled experiment files and their runner (bench/experiment/presets.ts). */
export interface TrainPresets {
  /** Preset name → what it runs (help and validation). */
  names: ReadonlyMap<string, string>
  /** Runs the preset's experiment under out; returns its result line. */
  run(o: { preset: string; out: string; steps?: number; backend?: string; log?: (line: string) => void; notice?: (line: string) => void }): Promise<string>
}

/** What the composition root injects into `train`: the presets' experiment runner (cli.ts, always); tests: a scripted
 *  rollout sampler (see runTraining's `sampler`). */
export interface TrainCommandDeps {
  sampler?: RolloutSamplerFactory
  presets?: TrainPresets
}

const grpoCommand = (deps: TrainCommandDeps): Command => ({
  command: '$0',
  describe: 'GRPO on a world with a curriculum preset (resumes from runs/NAME/checkpoints)',
  builder: (y: Argv) =>
    fieldOptions(
      y
        .option('world', { type: 'string', describe: 'built world folder; repeat for a pool of worlds (each question searches its own world)' })
        .option('worlds', { type: 'string', describe: 'JSON file: a list of world folders, or a recipe {preset, config, seeds, cache} built on demand' })
        .option('preset', { type: 'string', describe: `a bundled experiment file (curriculum/experiments/NAME.json) under --out, as \`experiment run\` runs it: the start and the trained adapter on the held-out slice; resumable. ${deps.presets ? [...deps.presets.names].map(([k, v]) => `${k}: ${v}`).join('; ') : ''}` })
        .option('model', { type: 'string', describe: 'model folder (config.json, safetensors, tokenizer); required unless --preset' })
        .option('adapter', { type: 'string', describe: 'PEFT adapter to start from (e.g. a `train sft` output)' })
        .option('curriculum', { type: 'string', default: 'two-stage', describe: `preset: ${presetNames().join(', ')}` })
        .option('out', { type: 'string', demandOption: true, describe: 'run folder (runs/NAME)' })
        .option('access', { type: 'boolean', default: true, describe: '--no-access: the no-Access ablation (search returns full documents; gym.access false)' })
        .option('reward', { type: 'string', describe: "reward spec (gym.reward): f1 (default), process, cost, cost-group, em+format, ... or terms joined by '+' (gym/README.md)" })
        .option('backend', { type: 'string', default: 'auto', describe: 'engine backend: auto (native where it built, else ts) | native | ts | cuda' })
        .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
        .example('$0 train --preset quick --out runs/quick', 'GRPO from the shipped reader start on a world it never saw, held-out F1 before/after (70 s measured on 2 cores); = experiment run curriculum/experiments/quick.json --out runs/quick')
        .example('$0 train --preset quick-smoke --out runs/quick-smoke', 'the scratch loop at its smallest size (3.4 s measured)')
        .example('$0 train --world worlds/tiny --model models/tiny --adapter runs/sft/adapter --curriculum two-stage --out runs/grpo', '')
        .example('$0 train --world worlds/tiny --model models/tiny --adapter runs/sft/adapter --set ppoMiniBatch=16 --set ppoEpochs=2 --out runs/grpo-mb', 'PPO mini-batches × epochs')
        .example('$0 train --world worlds/t5 --world worlds/t6 --model models/tiny --out runs/grpo-pool', 'a pool of two worlds'),
      TRAIN_FIELDS,
    ),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as unknown as GrpoArgs
    for (const k of ['model', 'out', 'curriculum', 'adapter', 'reward', 'preset'] as const)
      if (Array.isArray(a[k])) throw new ConfigError('train.flag', `give --${k} once`)
    // The train config's keys as given (the --config file, --steps and the old flags, --set), each checked by the table.
    // A --config file of the older spelling (its episode limits at the top) is read into gym.budgets first.
    const { config: all, given, name } = fieldArgs<TrainConfig>(TRAIN_FIELDS, argv, { readFile: (raw, file) => movedBudgetKeys(raw, '', (old, now) => noteMovedKey(`${file}: ${old}`, now)) })
    const notice = (l: string) => process.stderr.write(`train: ${l}\n`)
    if (a.preset !== undefined) {
      for (const k of ['world', 'worlds', 'model', 'adapter', 'reward'] as const)
        if (a[k] !== undefined) throw new ConfigError('train.flag', `--preset ${a.preset} builds its own world, model and config; drop --${k}`)
      if (argv.config !== undefined) throw new ConfigError('train.flag', `--preset ${a.preset} builds its own world, model and config; drop --config`)
      const own = [...given].find((k) => k !== 'steps')
      if (own !== undefined) throw new ConfigError('train.flag', `--preset ${a.preset} builds its own world, model and config; drop ${name(own)}`)
      if (!a.access) throw new ConfigError('train.flag', `--preset ${a.preset} builds its own config; drop --no-access`)
      if (a.curriculum !== 'two-stage') throw new ConfigError('train.flag', `--preset ${a.preset} trains two-stage; drop --curriculum`)
      if (!deps.presets) throw new ConfigError('train.preset', '--preset runs an experiment file: run it through the searchgym command (cli.ts injects the experiment driver)')
      const t0 = performance.now()
      const line = await deps.presets.run({ preset: a.preset, out: a.out, steps: given.has('steps') ? all.steps : undefined, backend: a.backend, log: a.quiet ? undefined : (l) => process.stderr.write(l + '\n'), notice })
      process.stdout.write(`${line}; ${((performance.now() - t0) / 1000).toFixed(0)} s\n`)
      return
    }
    if (a.model === undefined) throw new ConfigError('train.flag', 'give --model (or --preset quick for the toy-size loop)')
    // The train config, resolved once here: the keys given (only those: a budget conflict is between keys someone set),
    // then the arm's flags that write into gym.
    const layer: Record<string, unknown> = {}
    for (const k of given) setPath(layer, k, getPath(all, k))
    const overrides: unknown[] = [layer]
    if (!a.access) overrides.push({ gym: { access: false } })
    if (a.reward !== undefined) overrides.push({ gym: { reward: a.reward } })
    const log = a.quiet ? undefined : (l: string) => process.stderr.write(l + '\n')
    const worlds = await worldArgs(a.world, a.worlds, log)
    const config = resolveTrainConfig(...overrides)
    if (config.lr === 0) notice(`lr is 0 — the run samples and scores, but its updates move nothing (a control run)`)
    const r = await runTraining({
      world: worlds.length === 1 ? worlds[0] : worlds,
      model: a.model,
      adapter: a.adapter,
      curriculum: a.curriculum,
      out: a.out,
      config,
      backend: a.backend,
      log,
      notice,
      ...(deps.sampler ? { sampler: deps.sampler } : {}),
    })
    const noUpdate = noUpdateLine(r.optimizerSteps, config.lr)
    process.stdout.write(`train: ${r.steps} steps${r.resumedFrom > 0 ? ` (resumed from step ${r.resumedFrom})` : ''}, ${r.optimizerSteps} optimizer steps; adapter ${r.adapterDir}${noUpdate ? ` — ${noUpdate}` : ''}\n`)
  }),
})

export const trainCommand = (deps: TrainCommandDeps = {}): Command => ({
  command: 'train',
  describe: 'train a search agent: GRPO with a curriculum (default), `train sft` warm start, `train report RUN`',
  builder: (y: Argv) => y.command([grpoCommand(deps), trainSftCommand, trainReaderCommand, trainReportCommand, trainBudgetsCommand]),
  handler: () => undefined,
})

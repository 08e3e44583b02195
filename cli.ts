// cli: the root `searchgym` command — the composition root: it takes each package's commands from its index.ts and
// hands the stage list and mounted verbs across packages (agent's oracle check joins the world build and `gym check`;
// bench's experiment driver runs `train --preset`).
// A package is imported only when its command is named (`searchgym --help` loads none): GROUPS lists each top-level
// command with its usage and description, and tests/cli-help.test.ts checks they equal the packages' own.
// Holds no logic of its own.
import yargs, { type Argv } from 'yargs'
import { hideBin } from 'yargs/helpers'
import { fail, type Command } from './infra/cli-util'
import { nearest } from './infra/did-you-mean'
import type { TrainCommandDeps } from './curriculum'
import type { ModelServeDeps } from './infra/engine'

/** What a caller of main may inject into the commands (none in a user run; tests' scripted entry injects stand-ins). */
export interface CliDeps {
  /** `train`: the rollout sampler. */
  train?: TrainCommandDeps
  /** `model serve`: the reply generator. */
  serve?: ModelServeDeps
}

export interface CommandGroup {
  /** The top-level command as the package declares it (`world`, `score`, …). */
  command: string
  describe: string
  /** The package's real command (imported on demand), with what main injects. */
  load(deps: CliDeps): Promise<Command>
}

const named = (cmds: Command[], command: string): Command => {
  const c = cmds.find((x) => x.command === command)
  if (!c) throw new Error(`cli: no command '${command}' among ${cmds.map((x) => String(x.command)).join(', ')}`)
  return c
}

export const GROUPS: CommandGroup[] = [
  {
    command: 'world',
    describe: 'build and inspect worlds (graph, documents, world file)',
    load: async () => {
      // One after the other: agent imports world (concurrent imports of one graph trip jest's ESM loader).
      const { CHECKED_WORLD_STAGES, exportTuner } = await import('./agent')
      const { exportStager } = await import('./curriculum')
      const { worldCommands } = await import('./world')
      return named(worldCommands(CHECKED_WORLD_STAGES, exportTuner, exportStager), 'world')
    },
  },
  {
    command: 'gym',
    describe: 'the Search/Access gym: serve a world over HTTP or MCP, check that every question is solvable',
    load: async () => {
      const { checkCommand, CHECKED_WORLD_STAGES } = await import('./agent')
      const { gymCommands } = await import('./gym')
      return named(gymCommands([checkCommand], CHECKED_WORLD_STAGES), 'gym')
    },
  },
  {
    command: 'score',
    describe: 'score {"prediction","answers"} JSONL lines with HotpotQA-exact F1/EM; writes each line back with "f1" and "em"',
    load: async () => named((await import('./gym')).gymCommands(), 'score'),
  },
  {
    command: 'model',
    describe: 'local policy engine: create random models, pretrain them on world pages, serve a model over an OpenAI-compatible API',
    load: async (deps) => named((await import('./agent')).agentCommands(deps.serve), 'model'),
  },
  {
    command: 'train',
    describe: 'train a search agent: GRPO with a curriculum (default), `train sft` warm start, `train report RUN`',
    load: async (deps) => {
      // `train --preset` runs a bundled experiment file through the experiment driver (bench sits above curriculum).
      const { runTrainPreset, TRAIN_PRESETS } = await import('./bench')
      const { curriculumCommands } = await import('./curriculum')
      return named(curriculumCommands({ ...deps.train, presets: { names: TRAIN_PRESETS, run: runTrainPreset } }), 'train')
    },
  },
  {
    command: 'bench',
    describe: 'SearchGymBench: run policies, report, compare runs, the reading funnel of a local model',
    load: async () => named((await import('./bench')).benchCommands(), 'bench'),
  },
  {
    command: 'experiment',
    describe: 'curriculum ablations as one resumable command: world recipe, shared start, arms × seeds, report',
    load: async () => named((await import('./bench')).experimentCommands(), 'experiment'),
  },
  {
    command: 'view',
    describe: 'a local web viewer: entities, documents and verification, questions, trajectories, training curves',
    load: async () => named((await import('./view')).viewCommands(), 'view'),
  },
]

/** The top-level word of a command line (the first argument that is not an option), if any. */
function firstWord(args: string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'))
}

/** `searchgym` over `args`: the named group's package is loaded; the others stand as their usage and description.
 * `loadAll` loads every package (the help walk in tests). */
export async function makeCli(args: string[], opts: { loadAll?: boolean; deps?: CliDeps } = {}): Promise<Argv> {
  const word = firstWord(args)
  const commands: Command[] = []
  for (const g of GROUPS) {
    const name = g.command.split(' ')[0]
    if (opts.loadAll || name === word) commands.push(await g.load(opts.deps ?? {}))
    else commands.push({ command: g.command, describe: g.describe, builder: (y: Argv) => y, handler: () => undefined })
  }
  const y: Argv = yargs(args)
  return y
    .scriptName('searchgym')
    .usage('$0 <command> [options]\n\nVerifiable synthetic worlds for training search agents.')
    .command(commands)
    .demandCommand(1, 'give a command; see searchgym --help')
    .strict()
    .help()
    .version()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      // A check that returns its message (renamedFlags) hands it over as err too: a usage error all the same (exit 2).
      if (err && typeof err !== 'string') fail(err)
      process.stderr.write(`searchgym: error: ${msg.replace(/\s*\n\s*/g, ' ')}${didYouMean(msg, args, y)}\n`)
      process.exit(2)
    })
}

/** ' (did you mean --limit?)' for yargs' "Unknown argument(s): limt": the nearest option of the command being parsed
 *  (a flag) or the nearest command at that level (a word); '' when nothing is near. */
function didYouMean(msg: string, args: string[], y: Argv): string {
  const m = /^Unknown arguments?: (.+)$/.exec(msg.trim())
  if (!m) return ''
  // yargs reuses one instance for the command being run: at failure time it holds that command's options.
  const inner = y as unknown as { getOptions(): { key: Record<string, unknown> }; getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } }
  const flags = Object.keys(inner.getOptions().key)
  const commands = inner.getInternalMethods().getCommandInstance().getCommands()
  const hints: string[] = []
  for (const word of m[1].split(', ')) {
    const asFlag = args.some((a) => a === `--${word}` || a.startsWith(`--${word}=`) || a === `-${word}`)
    const near = nearest(word, asFlag ? flags : commands.length > 0 ? commands : GROUPS.map((g) => g.command.split(' ')[0]))
    if (near) hints.push(asFlag ? `--${near}` : near)
  }
  return hints.length > 0 ? ` (did you mean ${hints.join(', ')}?)` : ''
}

/** `searchgym ARGS`. A reader that closes the pipe early (`world verify | head`) ends the command quietly. */
export async function main(args: string[] = hideBin(process.argv), deps: CliDeps = {}): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0)
    fail(e)
  })
  await (await makeCli(args, { deps })).parseAsync()
}

// curriculum/cli/train-sft: `searchgym train sft` — flags → runSft (oracle trajectories → cross-entropy warm start).
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
import { TEXT_PROTOCOLS, type GymOptionsJson } from '../../gym'
import { runSft } from '../sft-run'
import { worldArgs } from '../world-pool'

function parseGymJson(v: string | undefined): GymOptionsJson | undefined {
  if (v === undefined) return undefined
  let x: unknown
  try {
    x = JSON.parse(v)
  } catch (e) {
    throw new ConfigError('sft.gym', `--gym-options is not valid JSON: ${(e as Error).message}`)
  }
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ConfigError('sft.gym', '--gym-options must be a JSON object')
  return x as GymOptionsJson
}

export const trainSftCommand: Command = {
  command: 'sft',
  describe: 'SFT warm start: clone the oracle on training questions (loss on assistant tokens only)',
  builder: (y: Argv) =>
    y
      .option('world', { type: 'string', describe: 'built world folder; repeat for a pool of worlds (question ids become WORLD/ID)' })
      .option('worlds', { type: 'string', describe: 'JSON file: a list of world folders, or a recipe {preset, config, seeds, cache} built on demand' })
      .option('model', { type: 'string', demandOption: true, describe: 'model folder' })
      .option('out', { type: 'string', demandOption: true, describe: 'output folder (adapter/, metrics.jsonl, sft.json)' })
      .option('questions', { type: 'number', default: 0, describe: 'training questions for the oracle (0: all)' })
      .option('protocol', { type: 'string', default: 'hermes', choices: [...TEXT_PROTOCOLS], describe: 'protocol of the demonstrations (must equal the GRPO config protocol)' })
      .option('gym-options', { type: 'string', describe: 'gym options as JSON, e.g. {"topK":3,"observationCap":600} (must equal the GRPO config gym)' })
      .option('max-hops', { type: 'number', default: 0, describe: 'only training questions with at most this many hops (0: all)' })
      .option('oracle-pages', { type: 'string', default: 'needed', choices: ['needed', 'all'], describe: 'how the oracle reads paged documents: needed (in order until the fact is read) or all' })
      .option('oracle-answer', { type: 'string', default: 'open', choices: ['open', 'read'], describe: "an entity answer: open its page (open) or answer with the name once the last hop's evidence sentence is read (read: a one-hop demonstration is search, access, answer)" })
      .option('init-adapter', { type: 'string', describe: 'start from this adapter (a continuation with a new optimizer) instead of a new one' })
      .option('first-turns', { type: 'number', default: 0, describe: "also the oracle's first turn of up to N other training questions (short copy-the-name sequences)" })
      .option('answer-only', { type: 'boolean', default: false, describe: "train only each demonstration's final turn (the answer), the whole episode as context" })
      .option('answer-weight', { type: 'number', describe: "loss weight W of each demonstration's final (answer) turn against 1 on its other assistant tokens (weighted token mean; default 1; not with --answer-only)" })
      .option('turn', { type: 'number', describe: "train only each demonstration's K-th assistant turn (1 = the first search, 2 = the access after it), the turns before it as context, the sequence cut after it" })
      .option('epochs', { type: 'number', default: 3, describe: 'passes over the oracle demonstrations' })
      .option('batch', { type: 'number', default: 16, describe: 'sequences per optimizer step' })
      .option('lr', { type: 'number', default: 1e-3, describe: 'AdamW learning rate of the LoRA weights' })
      .option('seed', { type: 'number', default: 0, describe: 'must equal the GRPO run seed (same held-out slice)' })
      .option('held-out', { type: 'number', default: 64, describe: 'must equal the GRPO run heldOut' })
      .option('lora-rank', { type: 'number', default: 32, describe: 'LoRA rank of the adapter' })
      .option('lora-embed', { type: 'boolean', default: false, describe: 'LoRA on the input embedding too (PEFT target embed_tokens): learned token features for models whose embedding is random' })
      .option('backend', { type: 'string', default: 'auto', describe: 'engine backend: auto (native where it built, else ts) | native | ts | cuda' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
      .example('searchgym train sft --world worlds/tiny --model models/tiny-tiny --out runs/sft --questions 8 --epochs 2 --batch 2', 'a LoRA warm start on oracle trajectories'),
  handler: handler(async (argv: Record<string, unknown>) => {
    const a = argv as Record<string, never>
    const log = a.quiet ? undefined : (l: string) => process.stderr.write(l + '\n')
    const worlds = await worldArgs(a.world, a.worlds, log)
    const r = await runSft({
      world: worlds.length === 1 ? worlds[0] : worlds,
      model: a.model,
      out: a.out,
      questions: a.questions,
      epochs: a.epochs,
      batchSize: a.batch,
      lr: a.lr,
      seed: a.seed,
      heldOut: a['held-out'],
      loraRank: a['lora-rank'],
      loraEmbed: a['lora-embed'],
      backend: a.backend,
      protocol: a.protocol,
      gym: parseGymJson(a['gym-options']),
      maxHops: a['max-hops'],
      oraclePages: a['oracle-pages'],
      oracleAnswer: a['oracle-answer'],
      initAdapter: a['init-adapter'],
      firstTurns: a['first-turns'],
      answerOnly: a['answer-only'],
      answerWeight: a['answer-weight'],
      turn: a.turn,
      log,
    })
    process.stdout.write(`train sft: ${r.solved}/${r.episodes} oracle episodes, ${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}; adapter ${r.adapterDir}\n`)
  }),
}

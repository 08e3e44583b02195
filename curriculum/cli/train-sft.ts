// curriculum/cli/train-sft: `searchgym train sft` — flags → runSft (oracle trajectories → cross-entropy warm start).
import type { Argv, Command } from '../../infra/cli-util'
import { handler } from '../../infra/cli-util'
import { ConfigError } from '../../infra/errors'
import { TEXT_PROTOCOLS, type GymOptionsJson } from '../../gym'
import { parseSftMix, runSft } from '../sft-run'
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

function onceOnly(flag: string, v: unknown): string {
  if (Array.isArray(v)) throw new ConfigError(`sft.${flag}`, `--${flag} was given ${v.length} times; give it once`)
  return String(v)
}

function parseHops(v: string): number[] {
  const hops = String(v).split(',').map((x) => Number(x.trim()))
  if (hops.length === 0 || !hops.every((h) => Number.isInteger(h) && h >= 1)) throw new ConfigError('sft.eval_hops', `--eval-hops must list hop counts ≥ 1, e.g. 1,2; got '${v}'`)
  return hops
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
      .option('full', { type: 'boolean', default: false, describe: 'train every weight of the model (a float32 model folder, e.g. from model pretrain; no adapter): OUT/model is a model folder' })
      .option('mix', { type: 'string', describe: 'one mixed SFT: KIND=WEIGHT,… of demo (whole episodes), search (first turn), access (second turn), answer (final turn, whole episode as context), read (question + last access + its page → answer), all in the same batches' })
      .option('spread', { type: 'boolean', default: false, describe: 'with a pool and --questions: take the questions round-robin across its worlds (default: pool order, the first world first)' })
      .option('short-first', { type: 'boolean', default: false, describe: 'the first epoch in order of increasing sequence length (later epochs shuffled)' })
      .option('cpu-budget', { type: 'number', describe: 'stop after this many CPU seconds of training steps (checkpoint written; a rerun with a bigger budget resumes)' })
      .option('eval-world', { type: 'string', describe: 'an unseen world folder to print the funnel on (search, opened, read|oracle, F1, answer loss); repeat for several' })
      .option('eval-questions', { type: 'number', default: 100, describe: 'questions per hop count of the funnel' })
      .option('eval-hops', { type: 'string', default: '1,2', describe: 'hop counts of the funnel, comma-separated' })
      .option('eval-every', { type: 'number', describe: 'the funnel after every N steps too (default: at the end only)' })
      .option('epochs', { type: 'number', default: 3, describe: 'passes over the oracle demonstrations' })
      .option('batch', { type: 'number', default: 16, describe: 'sequences per optimizer step' })
      .option('lr', { type: 'number', default: 1e-3, describe: 'AdamW learning rate of the LoRA weights' })
      .option('seed', { type: 'number', default: 0, describe: 'must equal the GRPO run seed (same held-out slice)' })
      .option('held-out', { type: 'number', default: 64, describe: 'must equal the GRPO run heldOut' })
      .option('lora-rank', { type: 'number', default: 32, describe: 'LoRA rank of the adapter' })
      .option('lora-embed', { type: 'boolean', default: false, describe: 'LoRA on the input embedding too (PEFT target embed_tokens): learned token features for models whose embedding is random' })
      .option('backend', { type: 'string', default: 'auto', describe: 'engine backend: auto (native where it built, else ts) | native | ts | cuda' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
      .example('searchgym train sft --world worlds/tiny --model models/tiny-tiny --out runs/sft --questions 8 --epochs 2 --batch 2', 'a LoRA warm start on oracle trajectories')
      .example('searchgym train sft --world worlds/a --world worlds/b --model runs/pre/model --full --mix demo=1,answer=2,read=2 --eval-world worlds/c --out runs/sft', 'one mixed full-weight SFT with the funnel on an unseen world'),
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
      full: a.full,
      mix: a.mix === undefined ? undefined : parseSftMix(onceOnly('mix', a.mix)),
      shortFirst: a['short-first'],
      spread: a.spread,
      cpuBudgetS: a['cpu-budget'],
      evalWorlds: a['eval-world'] === undefined ? undefined : ([] as string[]).concat(a['eval-world']),
      evalQuestions: a['eval-questions'],
      evalHops: parseHops(a['eval-hops']),
      evalEvery: a['eval-every'],
      log,
    })
    const what = a.full ? 'model' : 'adapter'
    const stop = r.budgetStopped ? ` — stopped by the CPU budget (${r.cpuS.toFixed(0)} CPU s); rerun with a bigger --cpu-budget to go on` : ''
    if (r.steps === 0) process.stdout.write(`train sft: ${r.solved}/${r.episodes} oracle episodes, 0 optimizer steps (nothing trained); ${what} ${r.adapterDir}\n`)
    else process.stdout.write(`train sft: ${r.solved}/${r.episodes} oracle episodes, ${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}, ${r.cpuS.toFixed(0)} CPU s; ${what} ${r.adapterDir}${stop}\n`)
  }),
}

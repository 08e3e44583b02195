// agent/train/config: the trainer's one documented config (plain JSON, unknown keys rejected) with the paper's
// defaults — N 8, batch 128 trajectories, micro-batch 16, clip 0.4/0.4, LoRA rank 32; the episode limits are the
// gym's (gym.budgets: 16 turns, 1,024 tokens per response) — and a LoRA learning rate (the paper's 5e-6 is for full
// fine-tuning; LoRA needs ~10×). Files of the older spelling (maxTurns, turnBudget, turnsPerHop, maxTokensPerTurn at
// the top) are read through legacy-keys.
import { mergeStrict } from '../../infra/config'
import { noteMovedKey } from '../../infra/field-args'
import { checkField, fieldDefaults, getPath, type FieldTable } from '../../infra/fields'
import { ConfigError } from '../../infra/errors'
import { POLICY_LOSS_NAMES } from '../../infra/engine'
import { checkGivenBudgets, refuseGymProtocol, TEXT_PROTOCOLS, type GymOptionsJson } from '../../gym'
import { movedBudgetKeys } from './legacy-keys'

/** The string fields' choices: their types below are these lists' members, and resolve checks against them. */
export const TRAIN_CHOICES = {
  loss: POLICY_LOSS_NAMES,
  klReference: ['start', 'base'],
  aggregation: ['token-mean', 'sequence-mean'],
  advantageStd: ['population', 'sample'],
  protocol: TEXT_PROTOCOLS,
} as const satisfies Partial<Record<keyof TrainConfig, readonly string[]>>

type Choice<K extends keyof typeof TRAIN_CHOICES> = (typeof TRAIN_CHOICES)[K][number]

export interface TrainConfig {
  seed: number
  /** GRPO steps (policy updates). */
  steps: number
  /** N: rollouts per question. */
  groupSize: number
  /** Trajectories per step (questions per step = batchSize / groupSize). */
  batchSize: number
  /** Datums per forward/backward call. */
  microBatch: number
  loss: Choice<'loss'>
  epsLow: number
  epsHigh: number
  /** β of the k3 KL to the reference (klReference). */
  klBeta: number
  /** The KL reference: 'start' — the adapter the run started from, frozen (the SFT start; with no start adapter the
   *  fresh adapter, which equals the base); 'base' — the base model with the adapter off. */
  klReference: Choice<'klReference'>
  /** Trajectories per optimizer step (verl's ppo_mini_batch_size); 0: the whole batch, one step per batch. The kept
   *  trajectories are shuffled (seeded) and split; each mini-batch is its own token-mean. */
  ppoMiniBatch: number
  /** Passes over the rollout batch (verl's ppo_epochs); the old log-probs stay the sampler's, so from the second
   *  optimizer step on the ratio is no longer 1 and the clip acts. */
  ppoEpochs: number
  /** DAPO overlong filtering: trajectories cut by a budget (turns, tokens, context, time) keep their place in the
   *  group's advantages but are left out of the update (counted in metrics as overlongFiltered). */
  overlongFilter: boolean
  aggregation: Choice<'aggregation'>
  advantageStd: Choice<'advantageStd'>
  lr: number
  weightDecay: number
  gradClip: number
  temperature: number
  topP: number
  topK: number
  /** LoRA of a new adapter; embedTokens: also on the input embedding (PEFT target embed_tokens, default false). */
  lora: { rank: number; alpha: number; embedTokens?: boolean }
  /** Extra rounds of questions drawn to replace groups dropped as constant-reward or masked. */
  refillRounds: number
  checkpointEvery: number
  /** Evaluate on held-out training questions every K steps (0: never). */
  evalEvery: number
  heldOut: number
  /** two-stage: steps in stage 1. */
  switchSteps: number
  /** Cap on the hops of every curriculum stage (0: the preset's ranges). Scales a preset down to what a small model
   *  was warm-started on (e.g. 2: two-stage = Simple 1–2 hops, then all types 1–2 hops); the held-out slice is drawn
   *  from all training questions as without the cap, so it equals `train sft`'s. */
  maxHops: number
  /** Text protocol of the rollouts: hermes (<tool_call> JSON) or search-r1 (<search>/<answer> tags, short prompt). */
  protocol: Choice<'protocol'>
  /** Gym options as the config file spells them (reward by name, access, maxCallsPerTurn, faults, topK, budgets ...);
   *  the run resolves them once (resolveGymOptions) and passes the typed GymOptions down. The episode limits are only
   *  here: gym.budgets.maxTurns (with turnsPerHop, a rule over the question's hops), maxResponseTokens (the rollout
   *  sampler's max new tokens too), maxContextTokens (the model's context unless given). */
  gym: GymOptionsJson
}

/** Every knob of the trainer, once: key, type, default, bounds (integer upper bounds far above any run one machine
 *  can do — a million steps, a group of 1,024, 1,000 turns as the gym's own turn cap; epsLow < 1 keeps the ratio clip's
 *  lower end 1 − eps above 0), choices and help. `train`'s flags and help, `--config` / `--set`, the defaults below and
 *  docs/options.md are derived from it; resolveTrainConfigAt checks every field through it. */
export const TRAIN_FIELDS: FieldTable = [
  { key: 'seed', type: 'int', default: 0, min: 0, max: 2 ** 32 - 1, help: 'seed of the data order, sampling and adapter init' },
  { key: 'steps', type: 'int', default: 100, min: 1, max: 1_000_000, flag: 'steps', help: 'GRPO steps (policy updates)' },
  { key: 'groupSize', type: 'int', default: 8, min: 1, max: 1024, help: 'N: rollouts per question (at least 2)' },
  { key: 'batchSize', type: 'int', default: 128, min: 1, max: 1_048_576, help: 'trajectories per step (questions per step = batchSize / groupSize)' },
  { key: 'microBatch', type: 'int', default: 16, min: 1, max: 65_536, help: 'datums per forward/backward call' },
  { key: 'loss', type: 'enum', choices: TRAIN_CHOICES.loss, default: 'ppo', help: 'policy loss' },
  { key: 'epsLow', type: 'number', default: 0.4, min: 0, max: 0.999, help: 'ratio clip: 1 − epsLow' },
  { key: 'epsHigh', type: 'number', default: 0.4, min: 0, max: 100, help: 'ratio clip: 1 + epsHigh' },
  { key: 'klBeta', type: 'number', default: 0.001, min: 0, max: 1000, help: 'β of the k3 KL to the reference (klReference)' },
  { key: 'klReference', type: 'enum', choices: TRAIN_CHOICES.klReference, default: 'start', aliases: ['kl-reference'], help: "the KL reference: 'start' (the adapter the run started from, frozen) or 'base' (the adapter off)" },
  { key: 'ppoMiniBatch', type: 'int', default: 0, min: 0, max: 1_048_576, aliases: ['ppo-mini-batch'], help: 'trajectories per optimizer step (0: the whole batch, one step per batch)' },
  { key: 'ppoEpochs', type: 'int', default: 1, min: 1, max: 100, aliases: ['ppo-epochs'], help: 'passes over each rollout batch' },
  { key: 'overlongFilter', type: 'bool', default: false, aliases: ['overlong-filter'], help: 'DAPO: leave budget-truncated trajectories out of the update (they keep their place in the advantages)' },
  { key: 'aggregation', type: 'enum', choices: TRAIN_CHOICES.aggregation, default: 'token-mean', help: "the loss's mean over tokens of the batch, or over sequences" },
  { key: 'advantageStd', type: 'enum', choices: TRAIN_CHOICES.advantageStd, default: 'population', help: "the std of a group's rewards in its advantages" },
  { key: 'lr', type: 'number', default: 5e-5, min: 0, max: 1, help: 'AdamW learning rate of the LoRA weights' },
  { key: 'weightDecay', type: 'number', default: 0, min: 0, max: 10, help: 'AdamW weight decay' },
  { key: 'gradClip', type: 'number', default: 1, min: 0, max: 1e6, help: 'global gradient-norm clip' },
  { key: 'temperature', type: 'number', default: 1, min: 0, max: 10, help: 'sampling temperature of the rollouts' },
  { key: 'topP', type: 'number', default: 1, gt: 0, max: 1, help: 'nucleus sampling of the rollouts' },
  { key: 'topK', type: 'int', default: 0, min: 0, max: 1_000_000, help: 'top-k sampling of the rollouts (0: off)' },
  { key: 'lora.rank', type: 'int', default: 32, min: 1, max: 4096, help: 'LoRA rank of a new adapter' },
  { key: 'lora.alpha', type: 'number', default: 64, min: 0, max: 1e6, help: 'LoRA alpha of a new adapter' },
  { key: 'lora.embedTokens', type: 'bool', default: false, help: 'LoRA on the input embedding too (PEFT target embed_tokens)' },
  { key: 'refillRounds', type: 'int', default: 1, min: 0, max: 100, help: 'extra rounds of questions drawn to replace groups dropped as constant-reward or masked' },
  { key: 'checkpointEvery', type: 'int', default: 10, min: 1, max: 1_000_000, help: 'steps between checkpoints' },
  { key: 'evalEvery', type: 'int', default: 10, min: 0, max: 1_000_000, help: 'evaluate on held-out training questions every K steps (0: never)' },
  { key: 'heldOut', type: 'int', default: 64, min: 0, max: 1_000_000, help: 'training questions held out for evaluation (the same slice train sft leaves out)' },
  { key: 'switchSteps', type: 'int', default: 50, min: 1, max: 1_000_000, help: 'two-stage: steps in stage 1' },
  { key: 'maxHops', type: 'int', default: 0, min: 0, max: 100, help: "cap on the hops of every curriculum stage (0: the preset's ranges)" },
  { key: 'protocol', type: 'enum', choices: TRAIN_CHOICES.protocol, default: 'hermes', help: 'text protocol of the rollouts: hermes (<tool_call> JSON) or search-r1 (<search>/<answer> tags, short prompt)' },
  { key: 'gym', type: 'json', default: {}, help: 'gym options as the config file spells them (reward by name, access, topK, faults, …; the episode limits: budgets.maxTurns, budgets.turnsPerHop, budgets.maxResponseTokens — the sampler\'s too —, budgets.maxContextTokens); never protocol' },
]

export const DEFAULT_TRAIN_CONFIG: TrainConfig = fieldDefaults<TrainConfig>(TRAIN_FIELDS)

/** The top-level integer fields' [lo, hi] (from TRAIN_FIELDS): experiment files check their seeds against seed's. */
export const TRAIN_INT_BOUNDS = boundsOf('int')

/** The top-level real-valued fields' inclusive [lo, hi] (from TRAIN_FIELDS). */
export const TRAIN_NUMBER_BOUNDS = boundsOf('number')

function boundsOf(type: 'int' | 'number'): Record<string, readonly [number, number]> {
  const out: Record<string, readonly [number, number]> = {}
  for (const f of TRAIN_FIELDS) if (f.type === type && !f.key.includes('.') && f.min !== undefined && f.max !== undefined) out[f.key] = [f.min, f.max]
  return out
}

/** Defaults ← FILE.json ← overrides; validated (unknown keys, types, ranges) with one-line errors. */
export function resolveTrainConfig(...layers: unknown[]): TrainConfig {
  return resolveTrainConfigAt('train config', ...layers)
}

/** resolveTrainConfig, an unknown key named under `where` (e.g. 'experiment.train': the file's block it came from).
 *  A layer of the older spelling has its episode limits moved into gym.budgets first (legacy-keys; `note` says so). */
export function resolveTrainConfigAt(where: string, ...layers: unknown[]): TrainConfig {
  let c = DEFAULT_TRAIN_CONFIG
  for (const l of layers) if (l !== undefined) c = mergeStrict(c, movedBudgetKeys(l, where === 'train config' ? '' : `${where}.`, noteMovedKey), where, [`${where}.gym`, `${where}.gym.budgets`, `${where}.gym.faults`])
  // Every field's type, bounds and choices through the table (named by its key), then the checks across fields.
  for (const f of TRAIN_FIELDS) checkField(f, getPath(c, f.key), f.key)
  if (c.ppoMiniBatch > c.batchSize) throw new ConfigError('train.range', `ppoMiniBatch (${c.ppoMiniBatch}) must be at most batchSize (${c.batchSize}); 0 = the whole batch`)
  if (c.groupSize < 2) throw new ConfigError('train.range', `groupSize must be at least 2 (GRPO compares rollouts of a question), got ${c.groupSize}`)
  if (c.batchSize % c.groupSize !== 0) throw new ConfigError('train.range', `batchSize (${c.batchSize}) must be a multiple of groupSize (${c.groupSize})`)
  refuseGymProtocol(c.gym)
  // The limits' ranges here, before any work (the gym's own ranges; the run resolves the whole block once, later).
  checkGivenBudgets(c.gym.budgets, 'gym.budgets', ConfigError)
  return c
}

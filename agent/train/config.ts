// agent/train/config: the trainer's one documented config (plain JSON, unknown keys rejected) with the paper's
// defaults — N 8, batch 128 trajectories, micro-batch 16, clip 0.4/0.4, 16 turns, 1,024 tokens per response,
// LoRA rank 32 — and a LoRA learning rate (the paper's 5e-6 is for full fine-tuning; LoRA needs ~10×).
import { mergeStrict } from '../../infra/config'
import { ConfigError } from '../../infra/errors'
import { POLICY_LOSS_NAMES } from '../../infra/engine'
import { refuseBudgetConflicts, TEXT_PROTOCOLS, type GymOptionsJson } from '../../gym'

/** The string fields' choices: their types below are these lists' members, and resolve checks against them. */
export const TRAIN_CHOICES = {
  loss: POLICY_LOSS_NAMES,
  klReference: ['start', 'base'],
  aggregation: ['token-mean', 'sequence-mean'],
  advantageStd: ['population', 'sample'],
  turnBudget: ['fixed', 'hop-scaled'],
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
  /** Turn budget of an episode (per question; see turnBudget). */
  maxTurns: number
  turnBudget: Choice<'turnBudget'>
  turnsPerHop: number
  /** Max new tokens per assistant turn (also the gym's maxResponseTokens). */
  maxTokensPerTurn: number
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
  /** Gym options as the config file spells them (reward by name, access, maxCallsPerTurn, faults, topK, ...); the run
   *  resolves them once (resolveGymOptions) and passes the typed GymOptions down. */
  gym: GymOptionsJson
}

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  seed: 0,
  steps: 100,
  groupSize: 8,
  batchSize: 128,
  microBatch: 16,
  loss: 'ppo',
  epsLow: 0.4,
  epsHigh: 0.4,
  klBeta: 0.001,
  klReference: 'start',
  ppoMiniBatch: 0,
  ppoEpochs: 1,
  overlongFilter: false,
  aggregation: 'token-mean',
  advantageStd: 'population',
  lr: 5e-5,
  weightDecay: 0,
  gradClip: 1,
  maxTurns: 16,
  turnBudget: 'fixed',
  turnsPerHop: 2,
  maxTokensPerTurn: 1024,
  temperature: 1,
  topP: 1,
  topK: 0,
  lora: { rank: 32, alpha: 64, embedTokens: false },
  refillRounds: 1,
  checkpointEvery: 10,
  evalEvery: 10,
  heldOut: 64,
  switchSteps: 50,
  maxHops: 0,
  protocol: 'hermes',
  gym: {},
}

/** Integer fields and their [lo, hi]: checked at resolve time (experiment files and `train --config` go through here),
 *  so `steps: 1e15` or `groupSize: 1e9` is one line before any world is built. The upper bounds sit far above any
 *  run one machine can do (a million steps, a group of 1,024, 1,000 turns as the gym's own turn cap). */
export const TRAIN_INT_BOUNDS = {
  steps: [1, 1_000_000],
  groupSize: [1, 1024],
  batchSize: [1, 1_048_576],
  microBatch: [1, 65_536],
  maxTurns: [1, 1000],
  maxTokensPerTurn: [1, 1_000_000],
  checkpointEvery: [1, 1_000_000],
  switchSteps: [1, 1_000_000],
  ppoEpochs: [1, 100],
  evalEvery: [0, 1_000_000],
  heldOut: [0, 1_000_000],
  refillRounds: [0, 100],
  seed: [0, 2 ** 32 - 1],
  topK: [0, 1_000_000],
  turnsPerHop: [0, 100],
  maxHops: [0, 100],
  ppoMiniBatch: [0, 1_048_576],
} as const satisfies Partial<Record<keyof TrainConfig, readonly [number, number]>>

/** Real-valued fields and their [lo, hi]. epsLow < 1 keeps the ratio clip's lower end 1 − eps above 0. */
export const TRAIN_NUMBER_BOUNDS = {
  lr: [0, 1],
  weightDecay: [0, 10],
  epsLow: [0, 0.999],
  epsHigh: [0, 100],
  klBeta: [0, 1000],
  temperature: [0, 10],
  gradClip: [0, 1e6],
} as const satisfies Partial<Record<keyof TrainConfig, readonly [number, number]>>

const LORA_BOUNDS = { rank: [1, 4096], alpha: [0, 1e6] } as const

/** Defaults ← FILE.json ← overrides; validated (unknown keys, types, ranges) with one-line errors. */
export function resolveTrainConfig(...layers: unknown[]): TrainConfig {
  return resolveTrainConfigAt('train config', ...layers)
}

/** resolveTrainConfig, an unknown key named under `where` (e.g. 'experiment.train': the file's block it came from). */
export function resolveTrainConfigAt(where: string, ...layers: unknown[]): TrainConfig {
  let c = DEFAULT_TRAIN_CONFIG
  for (const l of layers) if (l !== undefined) c = mergeStrict(c, l, where, [`${where}.gym`])
  for (const [k, [lo, hi]] of Object.entries(TRAIN_INT_BOUNDS)) {
    const v = c[k as keyof typeof TRAIN_INT_BOUNDS]
    if (!Number.isInteger(v) || v < lo || v > hi) throw new ConfigError('train.range', `${k} must be an integer in [${lo}, ${hi}], got ${v}`)
  }
  for (const [k, [lo, hi]] of Object.entries(LORA_BOUNDS)) {
    const v = c.lora[k as keyof typeof LORA_BOUNDS]
    if (typeof v !== 'number' || !Number.isFinite(v) || (k === 'rank' && !Number.isInteger(v)) || v < lo || v > hi)
      throw new ConfigError('train.range', `lora.${k} must be ${k === 'rank' ? 'an integer' : 'a number'} in [${lo}, ${hi}], got ${v}`)
  }
  if (c.ppoMiniBatch > c.batchSize) throw new ConfigError('train.range', `ppoMiniBatch (${c.ppoMiniBatch}) must be at most batchSize (${c.batchSize}); 0 = the whole batch`)
  if (typeof c.overlongFilter !== 'boolean') throw new ConfigError('train.range', `overlongFilter must be true or false, got ${JSON.stringify(c.overlongFilter)}`)
  if (c.groupSize < 2) throw new ConfigError('train.range', `groupSize must be at least 2 (GRPO compares rollouts of a question), got ${c.groupSize}`)
  if (c.batchSize % c.groupSize !== 0) throw new ConfigError('train.range', `batchSize (${c.batchSize}) must be a multiple of groupSize (${c.groupSize})`)
  for (const [k, [lo, hi]] of Object.entries(TRAIN_NUMBER_BOUNDS)) {
    const v = c[k as keyof typeof TRAIN_NUMBER_BOUNDS]
    if (!(Number.isFinite(v) && v >= lo && v <= hi)) throw new ConfigError('train.range', `${k} must be a number in [${lo}, ${hi}], got ${v}`)
  }
  if (!(c.topP > 0 && c.topP <= 1)) throw new ConfigError('train.range', `topP must be in (0, 1], got ${c.topP}`)
  for (const [k, xs] of Object.entries(TRAIN_CHOICES) as [keyof typeof TRAIN_CHOICES, readonly string[]][])
    if (!xs.includes(c[k])) throw new ConfigError('train.enum', `${k} must be one of ${xs.join(', ')}, got '${c[k]}'`)
  if (Object.prototype.hasOwnProperty.call(c.gym, 'protocol')) throw new ConfigError('train.gym', 'gym.protocol is set by the config key protocol')
  return withGivenBudgets(c, layers)
}

/** A gym.budgets given is the run's: its turn and response limits become maxTurns (turnBudget fixed) and
 *  maxTokensPerTurn (the sampler's too), so config.json says what the episodes get; a layer that sets one of those
 *  keys to another value, or turnBudget 'hop-scaled' beside a given maxTurns, is refused — never overwritten. */
function withGivenBudgets(c: TrainConfig, layers: unknown[]): TrainConfig {
  const given = c.gym.budgets
  if (given === undefined) return c
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new ConfigError('train.gym', `gym.budgets must be an object {maxTurns, maxResponseTokens, maxContextTokens}, got ${JSON.stringify(given)}`)
  const set = (k: keyof TrainConfig) => layers.some((l) => typeof l === 'object' && l !== null && Object.prototype.hasOwnProperty.call(l, k))
  refuseBudgetConflicts(given, {
    ...(set('maxTurns') ? { maxTurns: { key: 'maxTurns', value: c.maxTurns } } : {}),
    ...(set('maxTokensPerTurn') ? { maxResponseTokens: { key: 'maxTokensPerTurn', value: c.maxTokensPerTurn } } : {}),
  })
  if (given.maxTurns !== undefined && c.turnBudget === 'hop-scaled')
    throw new ConfigError('train.budgets', `gym.budgets.maxTurns ${given.maxTurns} fixes every episode's turn limit but turnBudget 'hop-scaled' scales it with hops: give one`)
  const out = { ...c }
  if (given.maxTurns !== undefined) out.maxTurns = given.maxTurns
  if (given.maxResponseTokens !== undefined) out.maxTokensPerTurn = given.maxResponseTokens
  for (const k of ['maxTurns', 'maxTokensPerTurn'] as const) {
    const [lo, hi] = TRAIN_INT_BOUNDS[k]
    if (!Number.isInteger(out[k]) || out[k] < lo || out[k] > hi) throw new ConfigError('train.range', `gym.budgets.${k === 'maxTurns' ? 'maxTurns' : 'maxResponseTokens'} must be an integer in [${lo}, ${hi}], got ${JSON.stringify(k === 'maxTurns' ? given.maxTurns : given.maxResponseTokens)}`)
  }
  return out
}

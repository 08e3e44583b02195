// curriculum/reading/config: the reading curriculum's one typed config (`train reader --config FILE`) — the world
// recipe (training, validation and never-seen test seeds), the model to start from, the items, the optimizer and the
// phases (each a mix of drill kinds with its own steps, learning rate, CPU budget and gate). Defaults, strict merge
// (unknown keys and wrong types named by their dotted key) and range checks live here, once.
import { mergeStrict, readJsonFile } from '../../infra/config'
import { ConfigError } from '../../infra/errors'
import { READER_GYM, resolveRunGym, type GymOptionsJson } from '../../gym'
import { keyNamer } from '../../infra/fields'
import { DRILL_KINDS, type DrillKind } from './kinds'

export { READER_GYM }

/** What a phase's gate measures on the validation items: a drill kind's greedy EM, or `e2e` / `e2e2` (the model's own
 *  episodes on the validation world's one-hop / two-hop Simple questions: EM). */
export type GateMetric = DrillKind | 'e2e' | 'e2e2'

export interface ReaderPhase {
  name: string
  /** Sampling weights of drill kinds in this phase's batches (a kind's share of the items drawn). */
  mix: Partial<Record<DrillKind, number>>
  /** Planned steps: warmup, then cosine to lr/10 over them. */
  steps: number
  lr: number
  warmup: number
  /** Items per optimizer step. */
  batch: number
  /** Questions of at most this many hops feed the phase (1 or 2). */
  maxHops: number
  /** End the phase after this step (0: run to `steps`); warmup and cosine stay planned over `steps`. The deterministic
   *  way to end a phase early: a recipe pins here the step a budget once stopped it at, so a rerun on any machine
   *  makes the same weights. */
  stopAt: number
  /** Stop the phase after this many CPU seconds of training steps (0: none). Where it stops depends on the machine's
   *  speed and load (and on how many threads the backend gets), so a phase it ends is not reproducible: ship with
   *  `stopAt` instead. */
  cpuBudgetS: number
  /** Evaluate every `every` steps; the phase ends when `metric` has not risen by more than `minDelta` for `patience`
   *  evaluations; the phase's model is the best evaluated one. `report`: more kinds scored at each evaluation. */
  gate: { metric: GateMetric; every: number; patience: number; minDelta: number; report: GateMetric[] }
}

export interface ReaderConfig {
  /** The world recipe: one preset + overrides, seeds for training, for validation (gates) and for the final test
   *  (never trained on, never used to choose). `config` may name a JSON file (relative to the config file). */
  worlds: { preset: string; config: Record<string, unknown> | string; train: number[]; valid: number[]; test: number[] }
  /** Where the model starts: a random model of `preset` with a BPE tokenizer of the first `tokenizerWorlds` training
   *  worlds (`vocab` ids), or an existing float32 model folder (`model`, relative to the config file). */
  init: { preset: string; tokenizerWorlds: number; vocab: number; ropeTheta: number; seed: number; model: string }
  protocol: 'search-r1' | 'hermes'
  gym: GymOptionsJson
  seed: number
  /** Training questions held out of the training worlds (fact-disjoint, as `train` and `train sft` hold them out). */
  heldOut: number
  /** Questions per training world the oracle plays (0: all) for one-hop and for two-hop questions. */
  questions: { hops1: number; hops2: number }
  /** Validation items per kind at each evaluation, and the e2e (and e2e2) questions. */
  eval: { items: number; e2e: number }
  optimizer: { betas: [number, number]; weightDecay: number; gradClip: number; microBatch: number }
  checkpointEvery: number
  phases: ReaderPhase[]
}

export const DEFAULT_READER_CONFIG: ReaderConfig = {
  worlds: { preset: 'small', config: {}, train: [], valid: [], test: [] },
  init: { preset: 'tiny', tokenizerWorlds: 4, vocab: 4096, ropeTheta: 10000, seed: 0, model: '' },
  protocol: 'search-r1',
  gym: READER_GYM,
  seed: 0,
  heldOut: 400,
  questions: { hops1: 0, hops2: 0 },
  eval: { items: 200, e2e: 100 },
  optimizer: { betas: [0.9, 0.95], weightDecay: 0.01, gradClip: 1, microBatch: 64 },
  checkpointEvery: 250,
  phases: [],
}

const DEFAULT_PHASE: ReaderPhase = {
  name: '',
  mix: {},
  steps: 1000,
  lr: 3e-3,
  warmup: 100,
  batch: 32,
  maxHops: 1,
  stopAt: 0,
  cpuBudgetS: 0,
  gate: { metric: 'fact', every: 250, patience: 3, minDelta: 0.005, report: [] },
}

const GATES: readonly string[] = [...DRILL_KINDS, 'e2e', 'e2e2']

function positiveInt(key: string, v: number): void {
  if (!(Number.isInteger(v) && v >= 1)) throw new ConfigError('reader.range', `${key} must be an integer ≥ 1, got ${v}`)
}

/** The config of a file (or an object), defaults merged, every key and range checked; `base` resolves relative paths. */
export function resolveReaderConfig(input: unknown, where = 'reader config'): ReaderConfig {
  const raw = structuredClone(input) as Record<string, unknown>
  const phasesIn = raw && Array.isArray(raw.phases) ? (raw.phases as unknown[]) : undefined
  if (raw && typeof raw === 'object') delete raw.phases
  // worlds.config is a WorldConfig object or a file name: kept apart from the strict merge (the recipe checks it).
  const w = raw && typeof raw.worlds === 'object' && raw.worlds !== null ? (raw.worlds as Record<string, unknown>) : undefined
  const worldConfig = w?.config
  if (w) delete w.config
  if (worldConfig !== undefined && typeof worldConfig !== 'string' && (typeof worldConfig !== 'object' || worldConfig === null || Array.isArray(worldConfig)))
    throw new ConfigError('config.type', `${where}.worlds.config must be a WorldConfig object or a JSON file's path`)
  const c = mergeStrict({ ...DEFAULT_READER_CONFIG, phases: undefined } as unknown as ReaderConfig, raw, where, [`${where}.gym`])
  if (worldConfig !== undefined) c.worlds.config = worldConfig as ReaderConfig['worlds']['config']
  // The gym block is GymOptionsJson: checked by the gym's own resolver (it names the key), protocol kept apart.
  resolveRunGym(c.gym, c.protocol, keyNamer(where))
  if (!phasesIn || phasesIn.length === 0) throw new ConfigError('reader.phases', `${where}.phases must list at least one phase`)
  c.phases = phasesIn.map((p, i) => {
    const key = `${where}.phases[${i}]`
    const q = mergeStrict(DEFAULT_PHASE, p, key, [`${key}.mix`])
    if (!/^[a-z0-9][a-z0-9-]*$/.test(q.name)) throw new ConfigError('reader.phase_name', `${key}.name must be a folder-safe name (a-z, 0-9, -), got '${q.name}'`)
    for (const [k, w] of Object.entries(q.mix)) {
      if (!(DRILL_KINDS as readonly string[]).includes(k)) throw new ConfigError('reader.mix', `${key}.mix.${k} is not a drill kind (kinds: ${DRILL_KINDS.join(', ')})`)
      if (!(typeof w === 'number' && Number.isFinite(w) && w >= 0 && w <= 1e6)) throw new ConfigError('reader.mix', `${key}.mix.${k} must be a weight in [0, 1e6], got ${JSON.stringify(w)}`)
    }
    if (!Object.values(q.mix).some((w) => (w ?? 0) > 0)) throw new ConfigError('reader.mix', `${key}.mix gives no kind a weight > 0`)
    positiveInt(`${key}.steps`, q.steps)
    positiveInt(`${key}.batch`, q.batch)
    positiveInt(`${key}.gate.every`, q.gate.every)
    positiveInt(`${key}.gate.patience`, q.gate.patience)
    if (!(Number.isInteger(q.warmup) && q.warmup >= 0 && q.warmup < q.steps)) throw new ConfigError('reader.range', `${key}.warmup must be an integer in [0, steps), got ${q.warmup}`)
    if (!(q.lr > 0 && q.lr < 1)) throw new ConfigError('reader.range', `${key}.lr must be in (0, 1), got ${q.lr}`)
    if (!(q.maxHops === 1 || q.maxHops === 2)) throw new ConfigError('reader.range', `${key}.maxHops must be 1 or 2, got ${q.maxHops}`)
    if (!(Number.isInteger(q.stopAt) && q.stopAt >= 0 && q.stopAt <= q.steps)) throw new ConfigError('reader.range', `${key}.stopAt must be an integer in [0, steps] (0: run to steps), got ${q.stopAt}`)
    if (!(q.cpuBudgetS >= 0)) throw new ConfigError('reader.range', `${key}.cpuBudgetS must be ≥ 0, got ${q.cpuBudgetS}`)
    for (const g of [q.gate.metric, ...q.gate.report]) if (!GATES.includes(g)) throw new ConfigError('reader.gate', `${key}.gate: '${g}' is not a drill kind, e2e or e2e2`)
    return q
  })
  const names = c.phases.map((p) => p.name)
  if (new Set(names).size !== names.length) throw new ConfigError('reader.phase_name', `${where}.phases: phase names must differ (${names.join(', ')})`)
  for (const k of ['train', 'valid', 'test'] as const) {
    const s = c.worlds[k]
    if (!s.every((x) => Number.isInteger(x) && x >= 0)) throw new ConfigError('reader.worlds', `${where}.worlds.${k} must list seeds (integers ≥ 0)`)
  }
  if (c.worlds.train.length === 0 || c.worlds.valid.length === 0) throw new ConfigError('reader.worlds', `${where}.worlds needs training and validation seeds`)
  const all = [...c.worlds.train, ...c.worlds.valid, ...c.worlds.test]
  if (new Set(all).size !== all.length) throw new ConfigError('reader.worlds', `${where}.worlds: a seed is listed twice (training, validation and test seeds must differ)`)
  if (!c.init.model && c.init.tokenizerWorlds > c.worlds.train.length) throw new ConfigError('reader.init', `${where}.init.tokenizerWorlds ${c.init.tokenizerWorlds} exceeds the ${c.worlds.train.length} training worlds`)
  positiveInt(`${where}.checkpointEvery`, c.checkpointEvery)
  positiveInt(`${where}.optimizer.microBatch`, c.optimizer.microBatch)
  return c
}

/** A config file, resolved; `worlds.config` and `init.model` given as paths are read relative to the file. */
export function readReaderConfig(file: string): ReaderConfig {
  return resolveReaderConfig(readJsonFile(file, 'reader config'), file)
}

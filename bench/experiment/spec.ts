// bench/experiment/spec: the experiment file — one JSON object naming the world recipe (a config, training seeds,
// never-trained evaluation seeds), the model and the start (SFT across the training worlds, or an existing adapter),
// the arms (curriculum × reward × Access), the seeds per arm, the GRPO config and the evaluation sets — resolved once
// over documented defaults with unknown keys rejected (one line naming the key). Knows no runner and no files.
import { resolve, dirname } from 'node:path'
import { DEFAULT_TRAIN_CONFIG, movedBudgetKeys, resolveTrainConfigAt, TRAIN_INT_BOUNDS, type TrainConfig } from '../../agent'
import { presetNames, recipeConfig, resolveSftConfig, type SftConfig } from '../../curriculum'
import { mergeStrict, readJsonFile } from '../../infra/config'
import { ConfigError } from '../../infra/errors'
import { checkGivenBudgets, comparableBudgets, moveBudgetKeys, parseRewardSpec, refuseGymProtocol, responseTokensOf, type BudgetKeyMap, type BudgetsJson, type GymOptionsJson, type TextProtocolName } from '../../gym'
import { fieldOf, keyNamer, resolveFields, type Field, type FieldTable } from '../../infra/fields'
import { MODEL_INIT_FIELDS } from '../../infra/engine'
import { noteMovedKey, setLayer } from '../../infra/field-args'
import { benchKnobs, type BenchKnobs } from '../run-config'
import { BENCH_MOVED_BUDGET_KEYS } from '../run-fields'

export interface ArmSpec {
  /** Folder-safe name (letters, digits, '.', '_', '-'). */
  name: string
  curriculum: string
  /** Reward spec of the GRPO runs (gym reward; 'f1' by default). */
  reward: string
  /** false: the no-Access ablation (search returns full documents); such an arm is benched with and without Access. */
  access: boolean
}

export interface EvalSetSpec {
  name: string
  /** 'eval': the never-trained evaluation worlds; 'train': the training worlds (e.g. their SearchGymBench split). */
  worlds: 'eval' | 'train'
  /** 'heldout' (training worlds only): the slice every GRPO run holds out of their train split — train.heldOut
   *  questions drawn with the run's seed (one seed only; an SFT start excludes it too, model.seed being that seed),
   *  fact-disjoint from what the runs train on. */
  split: 'train' | 'bench' | 'heldout'
  /** Only questions of at most this many hops (0: all). */
  maxHops: number
  /** Questions per world, a seeded sample (0: all). */
  perWorld: number
}

export interface ExperimentSpec {
  name: string
  worlds: {
    preset: string
    /** WorldConfig keys merged over the preset (not seed). */
    config: Record<string, unknown>
    trainSeeds: number[]
    /** Worlds never trained on (no seed shared with trainSeeds). */
    evalSeeds: number[]
    /** Cache folder of built worlds ('' = OUT/worlds); relative to the experiment file's folder. */
    cache: string
  }
  model: {
    preset: 'tiny' | 'small'
    seed: number
    /** World tokenizer vocabulary (built from the first training world's documents). */
    vocab: number
    embedStd: number
    qkNormWeight: number
    /** Every entity name of the first training world and every search-r1 tag one token (model init --name-tokens --tag-tokens). */
    nameTokens: boolean
  }
  start: {
    /** A trained model folder (e.g. curriculum/starts/reader-v0; '' = model init + SFT below); relative to the experiment
     *  file's folder. The experiment then uses it as is (its own tokenizer; no model init, no SFT; the model section is
     *  ignored) and every GRPO run starts from it with a fresh LoRA. Its model.safetensors is checked against its
     *  SHA256SUMS when present; the report records the sha256. Not with adapter or phases. */
    model: string
    /** An existing adapter of this model ('' = SFT below); relative to the experiment file's folder. */
    adapter: string
    sft: { questions: number; epochs: number; batch: number; lr: number; maxHops: number; loraRank: number; loraEmbed: boolean; oracleAnswer: 'open' | 'read'; firstTurns: number }
    /** More SFT phases, each from the previous phase's adapter (train sft --init-adapter): keys of sft (those not given
     *  are sft's) plus turn (0: whole demonstrations), answerOnly and answerWeight — e.g. a first-turn copy phase, then
     *  a polish phase. The last phase's adapter is the start. */
    phases: SftPhase[]
  }
  protocol: TextProtocolName
  /** Gym options of SFT, GRPO and evaluation (topK, observationCap, prompt, accessByTitle, budgets …); not reward/access.
   *  Its budgets are every episode's; train.gym.budgets and eval.gym.budgets override them for GRPO and evaluation. */
  gym: GymOptionsJson
  /** The GRPO config every run shares (agent/train/config.ts), resolved once here: the file's keys over the train
   *  defaults, heldOut and evalEvery 0 unless given; its gym holds budgets alone (GRPO's episode limits over the
   *  experiment's). Not seed or protocol — a run's are the experiment's protocol and gym with these budgets, its arm's
   *  reward and Access and its seed (runTrainConfig). */
  train: ExperimentTrain
  arms: ArmSpec[]
  /** GRPO seeds: every arm runs once per seed (data order, sampling, adapter init). */
  seeds: number[]
  /** The evaluation: its sets, and its episode limits (gym.budgets over the experiment's; maxResponseTokens is the
   *  evaluation sampler's max new tokens too). */
  eval: { sets: EvalSetSpec[]; gym: { budgets: BudgetsJson } }
  /** Bootstrap resamples of the report's intervals. */
  bootstrap: number
  backend: string
}

/** The experiment's GRPO settings: the train config less what each run sets (seed) or the experiment sets once for
 *  SFT, GRPO and evaluation alike (protocol, gym). */
export type ExperimentTrain = Omit<TrainConfig, 'seed' | 'protocol' | 'gym'> & { gym: { budgets?: BudgetsJson } }

/** The train config's defaults in an experiment: evaluation is on the eval sets, not on a held-out slice by default. */
const EXPERIMENT_TRAIN_DEFAULTS = { heldOut: 0, evalEvery: 0 }

export interface SftPhase {
  questions: number
  epochs: number
  batch: number
  lr: number
  maxHops: number
  firstTurns: number
  turn: number
  answerOnly: boolean
  answerWeight: number
}

export const DEFAULT_ARM: ArmSpec = { name: '', curriculum: 'two-stage', reward: 'f1', access: true }
export const DEFAULT_EVAL_SET: EvalSetSpec = { name: 'unseen', worlds: 'eval', split: 'train', maxHops: 0, perWorld: 0 }

export const DEFAULT_EXPERIMENT: ExperimentSpec = {
  name: 'experiment',
  worlds: { preset: 'tiny', config: {}, trainSeeds: [], evalSeeds: [], cache: '' },
  model: { preset: 'tiny', seed: 0, vocab: 4096, embedStd: 0.25, qkNormWeight: 2.5, nameTokens: false },
  start: { model: '', adapter: '', sft: { questions: 0, epochs: 2, batch: 8, lr: 1e-3, maxHops: 0, loraRank: 64, loraEmbed: true, oracleAnswer: 'read', firstTurns: 0 }, phases: [] },
  protocol: 'search-r1',
  gym: { topK: 3, observationCap: 2000, prompt: 'brief', accessByTitle: true },
  train: { ...withoutRunKeys({ ...DEFAULT_TRAIN_CONFIG, ...EXPERIMENT_TRAIN_DEFAULTS }), gym: {} },
  arms: [],
  seeds: [0],
  eval: { sets: [DEFAULT_EVAL_SET], gym: { budgets: {} } },
  bootstrap: 1000,
  backend: 'auto',
}

const NAME = /^[A-Za-z0-9._-]+$/

/** A field of model init's table (infra/engine MODEL_INIT_FIELDS: type, bounds, help) as the model block's key. */
const initField = (key: string, over: Partial<Field>): Field => ({ ...fieldOf(MODEL_INIT_FIELDS, key)!, flag: undefined, aliases: undefined, ...over })

/** The model block (model init of the experiment's model, when its start is not a model folder): model init's fields at
 *  the experiment's defaults (DEFAULT_EXPERIMENT.model), the world tokenizer's vocabulary, and nameTokens. */
export const EXPERIMENT_MODEL_FIELDS: FieldTable = [
  initField('preset', { default: 'tiny', choices: ['tiny', 'small'] }),
  initField('seed', { default: 0 }),
  { key: 'vocab', type: 'int', default: 4096, min: 1, help: "the world tokenizer's vocabulary: model init's tokenizer world:DIR@VOCAB, DIR the first training world" },
  initField('embedStd', { default: 0.25, optional: false }),
  initField('qkNormWeight', { default: 2.5, optional: false }),
  { key: 'nameTokens', type: 'bool', default: false, help: "model init's nameTokens and tagTokens at once: every entity name of the first training world and every search-r1 tag one token" },
]

/** The experiment file's resolved spec (paths made absolute against the file's folder); one-line ConfigErrors. */
export function readExperiment(file: string, sets: readonly string[] = []): ExperimentSpec {
  const raw = readJsonFile(file, 'experiment file')
  return resolveExperiment(sets.length > 0 ? withSets(raw, sets) : raw, dirname(resolve(file)))
}

/** The file's object with `--set KEY=VALUE` entries merged in, each typed by the key's value in the file over the
 *  defaults (`train.steps=2`, `gym.topK=2`, `seeds=[0,1]`); the result is resolved like any file. */
export function withSets(raw: unknown, sets: readonly string[]): unknown {
  const merge = (a: unknown, b: unknown): unknown => {
    const plain = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
    if (!plain(a) || !plain(b)) return b === undefined ? a : b
    const out: Record<string, unknown> = { ...a }
    for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v)
    return out
  }
  return merge(raw, setLayer(merge(DEFAULT_EXPERIMENT, raw) as object, sets))
}

export function resolveExperiment(raw: unknown, base: string): ExperimentSpec {
  // The train block is the train config's to resolve (resolveExperimentTrain), the model block model init's fields'
  // (EXPERIMENT_MODEL_FIELDS); the rest merges over the defaults here.
  const { train: rawTrain, model: rawModel, ...rest } = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { train: undefined, model: undefined }
  const s = mergeStrict(DEFAULT_EXPERIMENT, raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? withMovedEvalKeys(rest) : raw, 'experiment', ['experiment.worlds.config', 'experiment.gym', 'experiment.eval.gym', 'experiment.eval.gym.budgets'])
  s.model = resolveFields<ExperimentSpec['model']>(EXPERIMENT_MODEL_FIELDS, rawModel, 'experiment.model')
  const where = 'experiment'
  if (!NAME.test(s.name)) throw new ConfigError('experiment.name', `${where}.name must use letters, digits, '.', '_' or '-', got '${s.name}'`)
  const seeds = (k: string, xs: unknown, min = 1) => {
    if (!Array.isArray(xs) || xs.length < min || !xs.every((x) => Number.isInteger(x) && (x as number) >= 0) || new Set(xs).size !== xs.length)
      throw new ConfigError('experiment.seeds', `${k} must be a list of ${min > 0 ? 'at least one ' : ''}distinct non-negative integers, got ${JSON.stringify(xs)}`)
  }
  seeds(`${where}.worlds.trainSeeds`, s.worlds.trainSeeds)
  seeds(`${where}.worlds.evalSeeds`, s.worlds.evalSeeds, 0)
  seeds(`${where}.seeds`, s.seeds)
  const bigSeed = s.seeds.find((x) => x > TRAIN_INT_BOUNDS.seed[1])
  if (bigSeed !== undefined) throw new ConfigError('experiment.seeds', `${where}.seeds: ${bigSeed} is above the train seed's bound ${TRAIN_INT_BOUNDS.seed[1]}`)
  const shared = s.worlds.evalSeeds.filter((x) => s.worlds.trainSeeds.includes(x))
  if (shared.length > 0) throw new ConfigError('experiment.seed_overlap', `${where}.worlds.evalSeeds share seed ${shared.join(', ')} with trainSeeds: evaluation worlds must never be trained on`)
  recipeConfig({ preset: s.worlds.preset, config: s.worlds.config, seeds: [] }, 0)
  if (s.worlds.cache) s.worlds.cache = resolve(base, s.worlds.cache)
  if (s.start.adapter) s.start.adapter = resolve(base, s.start.adapter)
  if (s.start.model) {
    const given = raw !== null && typeof raw === 'object' ? ((raw as { start?: Record<string, unknown> }).start ?? {}) : {}
    const clash = ['adapter', 'sft', 'phases'].filter((k) => Object.prototype.hasOwnProperty.call(given, k))
    if (clash.length > 0) throw new ConfigError('experiment.start', `${where}.start: a model start takes no ${clash.join(' or ')} (GRPO starts from the model with a fresh LoRA)`)
    s.start.model = resolve(base, s.start.model)
  }
  if (!['hermes', 'search-r1'].includes(s.protocol)) throw new ConfigError('experiment.protocol', `${where}.protocol must be hermes or search-r1, got '${s.protocol}'`)
  const sft = s.start.sft
  s.start.phases = s.start.phases.map((ph, i) =>
    mergeStrict<SftPhase>({ questions: sft.questions, epochs: sft.epochs, batch: sft.batch, lr: sft.lr, maxHops: sft.maxHops, firstTurns: 0, turn: 0, answerOnly: false, answerWeight: 1 }, ph, `${where}.start.phases[${i}]`),
  )
  if (s.start.adapter && s.start.phases.length > 0) throw new ConfigError('experiment.start', `${where}.start: give an adapter or SFT phases, not both`)
  if (!['open', 'read'].includes(s.start.sft.oracleAnswer)) throw new ConfigError('experiment.start', `${where}.start.sft.oracleAnswer must be open or read`)
  refuseGymProtocol(s.gym, keyNamer(where))
  for (const k of ['reward', 'access'])
    if (Object.prototype.hasOwnProperty.call(s.gym, k)) throw new ConfigError('experiment.gym', `${where}.gym.${k}: set ${k} per arm`)
  s.eval.gym = budgetsOnly(s.eval.gym, `${where}.eval.gym`)
  s.train = resolveExperimentTrain(rawTrain, s)
  if (!Array.isArray(s.arms) || s.arms.length === 0) throw new ConfigError('experiment.arms', `${where}.arms must list at least one arm {name, curriculum, reward, access}`)
  s.arms = s.arms.map((a, i) => mergeStrict(DEFAULT_ARM, a, `${where}.arms[${i}]`))
  const known = presetNames()
  for (const a of s.arms) {
    if (!NAME.test(a.name)) throw new ConfigError('experiment.arms', `arm name '${a.name}' must use letters, digits, '.', '_' or '-'`)
    if (!known.includes(a.curriculum)) throw new ConfigError('experiment.arms', `arm '${a.name}': unknown curriculum preset '${a.curriculum}' (${known.join(', ')})`)
    parseRewardSpec(a.reward)
    if (typeof a.access !== 'boolean') throw new ConfigError('experiment.arms', `arm '${a.name}': access must be true or false`)
  }
  const dupArm = s.arms.map((a) => a.name).find((n, i, xs) => xs.indexOf(n) !== i)
  if (dupArm) throw new ConfigError('experiment.arms', `two arms are named '${dupArm}'`)
  if (!Array.isArray(s.eval.sets) || s.eval.sets.length === 0) throw new ConfigError('experiment.eval', `${where}.eval.sets must list at least one evaluation set`)
  s.eval.sets = s.eval.sets.map((e, i) => mergeStrict(DEFAULT_EVAL_SET, e, `${where}.eval.sets[${i}]`))
  for (const e of s.eval.sets) {
    if (!NAME.test(e.name)) throw new ConfigError('experiment.eval', `evaluation set name '${e.name}' must use letters, digits, '.', '_' or '-'`)
    if (e.worlds !== 'eval' && e.worlds !== 'train') throw new ConfigError('experiment.eval', `evaluation set '${e.name}': worlds must be eval or train`)
    if (!['train', 'bench', 'heldout'].includes(e.split)) throw new ConfigError('experiment.eval', `evaluation set '${e.name}': split must be train, bench or heldout`)
    if (e.split === 'heldout') checkHeldOutSet(s, e)
    if (e.worlds === 'eval' && s.worlds.evalSeeds.length === 0) throw new ConfigError('experiment.eval', `evaluation set '${e.name}' reads the evaluation worlds, but worlds.evalSeeds is empty`)
    if (e.worlds === 'train' && e.split === 'train') throw new ConfigError('experiment.eval', `evaluation set '${e.name}': the training worlds' train split is what the arms train on; use split bench (SearchGymBench) or the eval worlds`)
  }
  const dupSet = s.eval.sets.map((e) => e.name).find((n, i, xs) => xs.indexOf(n) !== i)
  if (dupSet) throw new ConfigError('experiment.eval', `two evaluation sets are named '${dupSet}'`)
  checkExperimentNumbers(s)
  return s
}

/** A held-out eval set is the slice the runs hold out: the training worlds', of train.heldOut questions, one GRPO seed
 *  (the slice is drawn with it), and an SFT start's seed equal to it (SFT excludes the slice of its own seed). */
function checkHeldOutSet(s: ExperimentSpec, e: EvalSetSpec): void {
  const no = (why: string) => {
    throw new ConfigError('experiment.eval', `evaluation set '${e.name}' (split heldout): ${why}`)
  }
  if (e.worlds !== 'train') no('the held-out slice is of the training worlds; set worlds train')
  if (e.perWorld !== 0) no('its size is train.heldOut; drop perWorld')
  if (s.train.heldOut === 0) no('the runs hold nothing out; set train.heldOut')
  if (s.seeds.length !== 1) no(`the slice is drawn with the GRPO seed, and seeds ${JSON.stringify(s.seeds)} would hold out different slices; give one seed`)
  if (!s.start.model && !s.start.adapter && s.model.seed !== s.seeds[0]) no(`the SFT start excludes the slice of model.seed ${s.model.seed}, the runs that of seed ${s.seeds[0]}; make them equal`)
}

/** The older spelling of the evaluation's limits and the gym.budgets field each now is: bench run's (eval.maxTurns →
 *  maxTurns, its table's moved key), and eval.maxTokens → maxResponseTokens — the evaluation's response limit, its
 *  episodes' and its sampler's; not bench run's maxTokens, the sampler's alone, so it is the eval block's own. */
const MOVED_EVAL_KEYS: BudgetKeyMap = { ...BENCH_MOVED_BUDGET_KEYS, maxTokens: 'maxResponseTokens' }

/** The eval block's older keys read into eval.gym.budgets (a file written before the move keeps working; one stderr
 *  note a key), refused where eval.gym.budgets gives another value (gym/moved-budget-keys, as the train block's). */
function withMovedEvalKeys(rest: Record<string, unknown>): Record<string, unknown> {
  if (rest.eval === undefined) return rest
  return { ...rest, eval: moveBudgetKeys(rest.eval, MOVED_EVAL_KEYS, 'experiment.eval.', { note: noteMovedKey }) }
}

/** A block's gym that may hold budgets alone (the train and eval blocks: their episode limits over the experiment's). */
function budgetsOnly(gym: unknown, where: string): { budgets: BudgetsJson } {
  if (typeof gym !== 'object' || gym === null || Array.isArray(gym)) throw new ConfigError('config.type', `${where} must be a JSON object {budgets}`)
  const other = Object.keys(gym).filter((k) => k !== 'budgets')
  if (other.length > 0) throw new ConfigError('experiment.gym', `${where} holds budgets alone (${other.join(', ')}: set in experiment.gym)`)
  const b = (gym as { budgets?: unknown }).budgets ?? {}
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new ConfigError('config.type', `${where}.budgets must be a JSON object {maxTurns, turnsPerHop, maxResponseTokens, maxContextTokens}`)
  return { budgets: b as BudgetsJson }
}

/** The evaluation's episode limits: its defaults (14 turns, 48 tokens a response), the experiment's gym.budgets, then
 *  eval.gym.budgets — each field the most specific given; the rule (maxTurns, turnsPerHop) as one piece. */
export function evalBudgets(s: ExperimentSpec): BudgetsJson {
  return overBudgets(overBudgets(EVAL_BUDGETS, s.gym.budgets), s.eval.gym.budgets)
}

/** The evaluation's own defaults (greedy, short answers): 14 turns, 48 tokens a response. */
const EVAL_BUDGETS: BudgetsJson = { maxTurns: 14, maxResponseTokens: 48 }

/** The evaluation's bench knobs over bench run's defaults: the local engine, greedy, one question at a time, no
 *  retries (no endpoint to retry). */
const EVAL_BENCH: Partial<BenchKnobs> = { policy: 'engine', concurrency: 1, maxRetries: 0, temperature: 0 }

/** What one bench of the evaluation plays: the model (+ adapter) on a set's question list, with or without Access. */
export interface EvalBench {
  model: string
  /** '' : the model alone. */
  adapter: string
  set: EvalSetSpec
  /** The set's question list (OUT/eval/SET.json). */
  ids: string
  access: boolean
  /** The model's context length: the episodes' maxContextTokens unless the budgets give one. */
  maxContext: number
}

/** One bench of the evaluation as a bench run's knobs, resolved through bench run's table (bench/run-config) over
 *  EVAL_BENCH: the experiment's protocol, backend, bootstrap and gym, the evaluation's limits (evalBudgets; the
 *  sampler's max tokens its maxResponseTokens); a turn rule over hops goes to the envs as it is. */
export function evalBenchKnobs(s: ExperimentSpec, b: EvalBench): BenchKnobs {
  const budgets = evalBudgets(s)
  const gym = { ...s.gym, ...(b.access ? {} : { access: false }), budgets: { ...budgets, maxContextTokens: budgets.maxContextTokens ?? b.maxContext } }
  const split = b.set.split === 'heldout' ? 'train' : b.set.split
  const knobs = { model: b.model, ...(b.adapter ? { adapter: b.adapter } : {}), backend: s.backend, protocol: s.protocol, split, qaIds: b.ids, bootstrap: s.bootstrap, maxTokens: responseTokensOf(budgets), gym }
  return benchKnobs(knobs, 'experiment.eval', EVAL_BENCH)
}

/** An experiment spec as two runs of one folder compare it (experiment.json, stored and now): the episode limits
 *  each block's episodes get, however they were spelt — a spec written before the move (train.maxTurns /
 *  maxTokensPerTurn / turnBudget / turnsPerHop, eval.maxTurns / maxTokens, always written out) or after (the blocks'
 *  gym.budgets over the experiment's) — with the gym's defaults filled, so the same limits are the same experiment. */
export function comparableSpec(x: ExperimentSpec): ExperimentSpec {
  const t = movedBudgetKeys(x.train, 'experiment.train.') as ExperimentTrain
  const ev = moveBudgetKeys(x.eval, MOVED_EVAL_KEYS, 'experiment.eval.') as ExperimentSpec['eval']
  const train = overBudgets(x.gym.budgets ?? {}, t.gym?.budgets)
  const evalB = overBudgets(overBudgets(EVAL_BUDGETS, x.gym.budgets), ev.gym?.budgets)
  return { ...x, train: { ...t, gym: { budgets: comparableBudgets(train) } }, eval: { ...ev, gym: { budgets: comparableBudgets(evalB) } } }
}

/** GRPO's episode limits: the experiment's gym.budgets, then train.gym.budgets. */
export function trainBudgets(s: { gym: GymOptionsJson; train: Pick<ExperimentTrain, 'gym'> }): BudgetsJson | undefined {
  const b = overBudgets(s.gym.budgets ?? {}, s.train.gym.budgets)
  return Object.keys(b).length > 0 ? b : undefined
}

/** `over`'s fields over `base`'s; a turn limit given in `over` brings its own rule (no turnsPerHop: a fixed limit). */
function overBudgets(base: BudgetsJson, over: BudgetsJson | undefined): BudgetsJson {
  if (!over) return base
  const out = { ...base, ...over }
  if ((over.maxTurns !== undefined || over.turnsPerHop !== undefined) && over.turnsPerHop === undefined) delete out.turnsPerHop
  return out
}

/** Bounds of every number an experiment file sets (beyond the train config's own, checked by trainConfigOf), checked
 *  before any work: a perWorld of -3 is not read as "all", an epochs of 1e9 does not start. Upper bounds are far above
 *  any sensible value; they stop a typo, not a plan. */
function checkExperimentNumbers(s: ExperimentSpec): void {
  const num = (k: string, v: unknown, lo: number, hi: number, int = true) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isInteger(v)) || v < lo || v > hi)
      throw new ConfigError('experiment.range', `experiment.${k} must be ${int ? 'an integer' : 'a number'} in [${lo}, ${hi}], got ${JSON.stringify(v)}`)
  }
  checkGivenBudgets(s.gym.budgets, 'experiment.gym.budgets', ConfigError)
  checkGivenBudgets(s.eval.gym.budgets, 'experiment.eval.gym.budgets', ConfigError)
  num('bootstrap', s.bootstrap, 1, 100_000)
  s.eval.sets.forEach((e, i) => {
    num(`eval.sets[${i}].perWorld`, e.perWorld, 0, 10_000_000) // 0: every question
    num(`eval.sets[${i}].maxHops`, e.maxHops, 0, 12) // 0: every hop count
  })
  // The start's SFT blocks through the SFT field table (their keys' one definition), named by their place here; the
  // adapter each phase continues from is the run's folder's, unknown yet (a stand-in: only its presence is checked).
  startSftConfigs(s, (i) => `start/phase-${i}/adapter`)
  // Each evaluation set's bench through bench run's table (its knobs' one definition); the model and the set's question
  // list are the run's folders', unknown yet (stand-ins).
  for (const set of s.eval.sets) evalBenchKnobs(s, { model: 'model', adapter: '', set, ids: `eval/${set.name}.json`, access: true, maxContext: 1 })
}

/** The start's SFT configs — start.sft, then each of start.phases from the adapter of the phase before it
 *  (`adapterOf(i)`: phase i's, 0 = start.sft's) — resolved through resolveSftConfig with the experiment's seed, held-out
 *  slice, protocol, gym and backend; errors name the block's key (experiment.start.phases[0].epochs). */
export function startSftConfigs(s: ExperimentSpec, adapterOf: (phase: number) => string): SftConfig[] {
  const sft = s.start.sft
  const common = { seed: s.model.seed, heldOut: s.train.heldOut, loraRank: sft.loraRank, loraEmbed: sft.loraEmbed, backend: s.backend, protocol: s.protocol, gym: s.gym, oracleAnswer: sft.oracleAnswer }
  const start = resolveSftConfig({ ...common, questions: sft.questions, epochs: sft.epochs, batch: sft.batch, lr: sft.lr, maxHops: sft.maxHops, firstTurns: sft.firstTurns }, 'experiment.start.sft')
  const phases = s.start.phases.map((ph, i) =>
    resolveSftConfig(
      {
        ...common,
        initAdapter: adapterOf(i),
        questions: ph.questions,
        epochs: ph.epochs,
        batch: ph.batch,
        lr: ph.lr,
        maxHops: ph.maxHops,
        firstTurns: ph.firstTurns,
        // An experiment's 0 turn and weight 1 are "none" (whole demonstrations, the plain token mean).
        ...(ph.turn !== 0 ? { turn: ph.turn } : {}),
        ...(ph.answerOnly ? { answerOnly: true } : {}),
        ...(ph.answerWeight !== 1 ? { answerWeight: ph.answerWeight } : {}),
      },
      `experiment.start.phases[${i}]`,
    ),
  )
  return [start, ...phases]
}

/** The train block resolved once (unknown keys, types, ranges: one line each, before any work) with the experiment's
 *  protocol and gym; its own gym holds budgets alone (GRPO's limits over the experiment's; the older top-level spelling
 *  maxTurns / maxTokensPerTurn / turnBudget is read into it by the train config's resolver). */
function resolveExperimentTrain(raw: unknown, s: ExperimentSpec): ExperimentTrain {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) throw new ConfigError('config.type', 'experiment.train must be a JSON object')
  for (const k of ['seed', 'protocol'])
    if (raw !== undefined && Object.prototype.hasOwnProperty.call(raw, k)) throw new ConfigError('experiment.train', `experiment.train.${k} is set by the experiment (${k === 'seed' ? 'seeds' : k})`)
  const own = budgetsOnly((movedBudgetKeys(raw, 'experiment.train.') as { gym?: unknown } | undefined)?.gym ?? {}, 'experiment.train.gym')
  const c = resolveTrainConfigAt('experiment.train', EXPERIMENT_TRAIN_DEFAULTS, raw, { protocol: s.protocol, gym: { ...s.gym, budgets: trainBudgets({ gym: s.gym, train: { gym: own } }) } })
  return { ...withoutRunKeys(c), gym: own }
}

function withoutRunKeys(c: TrainConfig): Omit<TrainConfig, 'seed' | 'protocol' | 'gym'> {
  const { seed: _seed, protocol: _protocol, gym: _gym, ...rest } = c
  return rest
}

/** The GRPO config of one run — the experiment's resolved train block, its protocol and gym, the arm's reward and
 *  Access, the seed — composed, not resolved again (in the train config's key order, so config.json reads as ever). */
export function runTrainConfig(s: ExperimentSpec, seed: number, arm: ArmSpec): TrainConfig {
  const budgets = trainBudgets(s)
  const { gym: _own, ...train } = s.train
  return { ...DEFAULT_TRAIN_CONFIG, ...train, seed, protocol: s.protocol, gym: { ...s.gym, ...(budgets ? { budgets } : {}), reward: arm.reward, ...(arm.access ? {} : { access: false }) } }
}

// gym/make-env: one typed options object (unknown keys rejected) → a ready GymEnv for one QA: the world's tools
// (no-Access ablation, seeded faults) → SearchEnv → budgets → episode statistics. The one place wrappers compose.
import { mergeStrict } from '../infra/config'
import { GymError } from '../infra/errors'
import { passPoint } from '../infra/run-points'
import { keyNamer, type Namer } from '../infra/fields'
import { Rng } from '../infra/rng'
import type { Qa } from '../world'
import { SearchEnv, type GymEnv } from './env'
import { getProtocol } from './protocol'
import type { PromptStyle, ProtocolName } from './protocol/types'
import { parseRewardSpec, STEP_TERMS, type RewardSpec } from './reward'
import { episodeBudgets, type BudgetsJson } from './episode-budgets'
import { DEFAULT_BUDGETS, withBudgets, type Budgets } from './wrappers/budgets'
import { withEpisodeStats } from './wrappers/episode-stats'
import { hasFaults, NO_FAULTS, withFaults, type FaultRates } from './wrappers/faults'
import { withFullDocumentSearch } from './wrappers/no-access'
import type { TokenCounter } from './wrappers/token-count'
import type { GymWorld } from './world-view'

export interface GymOptions {
  protocol: ProtocolName
  /** The parsed reward spec (config files name it: f1 | em+format | r1-searcher-stage1 | r1-searcher-stage2 | process |
   *  cost | cost-group | terms joined by '+'; resolveGymOptions parses that name once). */
  reward: RewardSpec
  topK: number
  observationCap: number
  maxCallsPerTurn: number
  maxArgChars: number
  /** System prompt: 'full' (the protocol's own, default) or 'brief' (one line: tags and answer format) — for small
   *  models trained from scratch, where a long constant prefix costs compute and teaches nothing. */
  prompt: PromptStyle
  /** Access also takes the exact title of a search result shown earlier in the episode, not only its URL (default
   *  false). For models with a small world tokenizer, which spells URLs character by character but has names as words. */
  accessByTitle: boolean
  /** Every line of a tool result (and the text after a snippet's leading ellipsis) starts with a space (default false):
   *  a byte-level BPE tokenizer attaches the space to the word, so a name that starts a line is then spelled with the
   *  same tokens as inside a sentence and in the answer turn (`<answer> X </answer>`), and copying it is exact. For
   *  small models trained from scratch (the reader start); bench/RESULTS.md, "Rendering that lets the copy be exact". */
  leadSpace: boolean
  /** false: the no-Access ablation (search returns whole documents; access disabled). */
  access: boolean
  /** Record per-step process signals (`signal/*` metrics: gold documents found and accessed, evidence seen,
   *  redundant calls, hop reached; default true). false skips that bookkeeping — for callers that need only the
   *  outcome (the world's oracle check); the process and cost reward specs need the signals. */
  stepSignals: boolean
  /** The episode limits; turnsPerHop (> 0) scales maxTurns with each question's hops when its env is made (0, the
   *  default: a fixed limit, left out where budgets are written: budgetsRecord). */
  budgets: Budgets & { turnsPerHop?: number }
  faults: FaultRates
  /** Episode index, mixed into the fault Rng so repeated rollouts of one question differ reproducibly. */
  episode: number
}

/** Gym options as config files, flags and HTTP bodies spell them (JSON): every key optional, the reward by name.
 *  resolveGymOptions turns this into GymOptions once, at the edge; what crosses a package boundary below is typed. */
export type GymOptionsJson = Partial<Omit<GymOptions, 'reward' | 'budgets' | 'faults'>> & {
  reward?: string
  budgets?: BudgetsJson
  faults?: Partial<FaultRates>
}

export const DEFAULT_GYM_OPTIONS: GymOptions = {
  protocol: 'hermes',
  reward: { name: 'f1', terms: ['f1'] },
  topK: 5,
  observationCap: 8000,
  maxCallsPerTurn: 1,
  maxArgChars: 2048,
  prompt: 'full',
  accessByTitle: false,
  leadSpace: false,
  access: true,
  stepSignals: true,
  budgets: { ...DEFAULT_BUDGETS, turnsPerHop: 0 },
  faults: { ...NO_FAULTS },
  episode: 0,
}

/** A run's gym block holds no protocol: the run's protocol is its own key (its policy speaks it too). The one refusal;
 *  `name` spells the two keys as the caller's config does (`experiment.gym`, `gym (--set)`). */
export function refuseGymProtocol(gym: unknown, name: Namer = keyNamer()): void {
  if (typeof gym === 'object' && gym !== null && Object.prototype.hasOwnProperty.call(gym, 'protocol'))
    throw new GymError('options.protocol', `${name('gym')} may not set protocol: use ${name('protocol')}`)
}

/** The one place a run's gym block meets its protocol: the block checked (refuseGymProtocol) and resolved with it. */
export function resolveRunGym(gym: GymOptionsJson | undefined | null, protocol: ProtocolName, name: Namer = keyNamer()): GymOptions {
  refuseGymProtocol(gym, name)
  return resolveGymOptions({ ...gym, protocol })
}

const intIn = (name: string, v: number, lo: number, hi: number) => {
  if (!Number.isInteger(v) || v < lo || v > hi) throw new GymError('options.range', `${name} must be an integer in [${lo}, ${hi}], got ${v}`)
}

/** An episode's budgets within the gym's ranges (an episode's own budgets, episodeOptions, hold no turn rule). */
function checkBudgets(b: Budgets & { turnsPerHop?: number }): void {
  for (const k of ['maxTurns', 'maxResponseTokens', 'maxContextTokens'] as const) intIn(`budgets.${k}`, b[k], BUDGET_RANGES[k][0], BUDGET_RANGES[k][1])
  if (b.turnsPerHop !== undefined) intIn('budgets.turnsPerHop', b.turnsPerHop, BUDGET_RANGES.turnsPerHop[0], BUDGET_RANGES.turnsPerHop[1])
}

/** Budgets as a record writes them: the turn rule only when there is one (turnsPerHop 0 is a fixed limit, as records
 *  written before the default held it say). */
export function budgetsRecord(b: Budgets & { turnsPerHop?: number }): Budgets & { turnsPerHop?: number } {
  const { turnsPerHop, ...fixed } = b
  return turnsPerHop ? { ...fixed, turnsPerHop } : fixed
}

/** Budgets as a config gave them (gym.budgets, every field optional), in the gym's ranges before any work; `where`
 *  names the block (`gym.budgets`, `experiment.eval.gym.budgets`). Unknown keys are the strict merge's to refuse. */
export function checkGivenBudgets(b: unknown, where = 'gym.budgets', Err: new (code: string, message: string) => Error = GymError): void {
  if (b === undefined) return
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new Err('options.budgets', `${where} must be an object {maxTurns, turnsPerHop, maxResponseTokens, maxContextTokens}, got ${JSON.stringify(b)}`)
  const g = b as Record<string, unknown>
  const unknown = Object.keys(g).find((k) => !Object.hasOwn(BUDGET_RANGES, k))
  if (unknown !== undefined) throw new Err('config.unknown_key', `unknown key '${where}.${unknown}' (known keys: ${Object.keys(BUDGET_RANGES).join(', ')})`)
  for (const [k, [lo, hi]] of Object.entries(BUDGET_RANGES)) {
    const v = g[k]
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi)) throw new Err('options.range', `${where}.${k} must be an integer in [${lo}, ${hi}], got ${JSON.stringify(v)}`)
  }
}

/** The budgets' ranges (checkBudgets for resolved options, checkGivenBudgets for a config's). */
const BUDGET_RANGES = { maxTurns: [1, 1000], turnsPerHop: [0, 100], maxResponseTokens: [1, 1_000_000], maxContextTokens: [1, 100_000_000] } as const

/** Validate options (unknown keys, types, ranges) and fill defaults. Throws ConfigError/GymError with a clear message.
 *  A reward already parsed (resolved options passed again, e.g. with per-question budgets) is not parsed again. */
export function resolveGymOptions(input: GymOptionsJson | Partial<GymOptions> | unknown): GymOptions {
  // Counted from outside (tests subscribe to the run points): a run resolves its options once, at the edge.
  passPoint('gym-options-resolve')
  let rest = input
  let reward: unknown
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) ({ reward, ...rest } = input as { reward?: unknown })
  const { reward: defaultReward, ...defaults } = DEFAULT_GYM_OPTIONS
  const spec = reward === undefined ? structuredClone(defaultReward) : parseRewardSpec(reward as string | RewardSpec)
  const o: GymOptions = { ...mergeStrict(defaults, rest, 'gym options'), reward: spec }
  getProtocol(o.protocol)
  if (o.prompt !== 'full' && o.prompt !== 'brief') throw new GymError('options.range', `prompt must be 'full' or 'brief', got ${JSON.stringify(o.prompt)}`)
  if (!o.stepSignals && spec.terms.some((t) => STEP_TERMS.includes(t)))
    throw new GymError('options.step_signals', `reward '${spec.name}' has step terms (${STEP_TERMS.join(', ')}), which need the step signals: stepSignals must not be false`)
  if (typeof o.accessByTitle !== 'boolean') throw new GymError('options.range', `accessByTitle must be true or false, got ${JSON.stringify(o.accessByTitle)}`)
  intIn('topK', o.topK, 1, 100)
  intIn('observationCap', o.observationCap, 100, 10_000_000)
  intIn('maxCallsPerTurn', o.maxCallsPerTurn, 1, 16)
  intIn('maxArgChars', o.maxArgChars, 1, 100_000)
  checkBudgets(o.budgets)
  intIn('episode', o.episode, 0, Number.MAX_SAFE_INTEGER)
  for (const k of ['searchTimeout', 'searchRateLimit', 'searchEmpty', 'accessFailure', 'latencyRate'] as const) {
    const v = o.faults[k]
    if (!(v >= 0 && v <= 1)) throw new GymError('options.range', `faults.${k} must be a probability in [0, 1], got ${v}`)
  }
  if (o.faults.searchTimeout + o.faults.searchRateLimit + o.faults.searchEmpty > 1)
    throw new GymError('options.range', 'faults.searchTimeout + searchRateLimit + searchEmpty must be at most 1')
  intIn('faults.latencyMs', o.faults.latencyMs, 0, 600_000)
  intIn('faults.timeoutMs', o.faults.timeoutMs, 0, 600_000)
  return o
}

function questionOf(world: GymWorld, qa: Qa | string): Qa {
  const q = typeof qa === 'string' ? world.qa(qa) : qa
  if (!q) throw new GymError('env.unknown_qa', `no QA with id '${String(qa)}' in world '${world.name}'; list ids with the world's QA export`)
  return q
}

/** A ready env for one question (by Qa or id). Options are validated; an unknown QA id is a GymError. */
export function makeEnv(
  world: GymWorld,
  qa: Qa | string,
  options: GymOptionsJson | Partial<GymOptions> = {},
  count?: TokenCounter,
): GymEnv & { stats: ReturnType<typeof withEpisodeStats>['stats'] } {
  return makeResolvedEnv(world, questionOf(world, qa), resolveGymOptions(options), count)
}

/** makeEnv with options resolveGymOptions already returned (a loop over many questions validates them once). */
export function makeResolvedEnv(
  world: GymWorld,
  q: Qa,
  o: GymOptions,
  count?: TokenCounter,
): GymEnv & { stats: ReturnType<typeof withEpisodeStats>['stats'] } {
  let tools: GymWorld = world
  if (!o.access) tools = withFullDocumentSearch(tools)
  if (hasFaults(o.faults)) tools = withFaults(tools, o.faults, Rng.derive(o.faults.seed, 'faults', q.id, o.episode))
  const base = new SearchEnv(tools, q, o)
  // A turn rule scales this question's limit here, where the question is known (every path: bench, HTTP, training).
  const budgets = o.budgets.turnsPerHop ? episodeBudgets(q, o.budgets) : o.budgets
  return withEpisodeStats(withBudgets(base, budgets, count), count)
}

/** N envs for one question (a GRPO group): the options resolved once, then episodes episode, episode+1, … so injected
 *  faults differ reproducibly. */
export function makeEnvGroup(
  world: GymWorld,
  qa: Qa | string,
  n: number,
  options: GymOptionsJson | Partial<GymOptions> = {},
  count?: TokenCounter,
): ReturnType<typeof makeEnv>[] {
  return makeResolvedEnvGroup(world, questionOf(world, qa), n, resolveGymOptions(options), count)
}

/** makeEnvGroup with options already resolved (a training step's groups: resolved once per run, not per group). */
export function makeResolvedEnvGroup(world: GymWorld, q: Qa, n: number, o: GymOptions, count?: TokenCounter): ReturnType<typeof makeEnv>[] {
  if (!Number.isInteger(n) || n < 1) throw new GymError('options.range', `group size must be a positive integer, got ${n}`)
  return Array.from({ length: n }, (_, i) => makeResolvedEnv(world, q, { ...o, episode: o.episode + i }, count))
}

/** Resolved options with one episode's budgets (and episode index): only the budgets are checked — the rest was
 *  resolved once at the edge — so a loop over episodes never resolves the whole options again. */
export function episodeOptions(o: GymOptions, budgets: Budgets, episode = o.episode): GymOptions {
  checkBudgets(budgets)
  return { ...o, budgets, episode }
}

// agent/train/step-rollouts: a training step's rollouts and their scoring — N envs per question in one lockstep batch
// (token in / token out) through the timed sampler, group scoring (infrastructure-fault masking, constant groups
// counted all-0 / all-1 and dropped, advantages) with refill rounds until the batch has its groups, and the greedy
// held-out evaluation. Every draw is derived from (seed, step, round). It knows no update, file or checkpoint.
import { episodeBudgets, episodeOptions, FEWEST_RETRIEVALS_BONUS, makeResolvedEnvGroup, resolveRunGym, responseTokensOf, scoreAnswer, STEP_TERMS, type GymOptions } from '../../gym'
import { AgentError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import type { Qa } from '../../world'
import { scoreGroups } from '../grpo/groups'
import { PolicyBatch, type TokenSampler } from '../policy/engine-policy'
import { EngineSampler } from '../policy/engine-sampler'
import { rolloutBatch, type Rollout } from '../rollout/group'
import type { TrainConfig } from './config'
import type { TrainDeps } from './loop'
import type { QuestionSource } from './source'
import { meanScores, type StepClock } from './step-record'
import type { StepProgress } from './step-progress'

/** A group kept for the update: its question, its N episodes and their advantages (per turn for step-term specs). */
export interface KeptQuestion {
  qa: Qa
  rollouts: Rollout[]
  adv: number[]
  turnAdv: number[][] | null
}

/** What a step's rollout rounds gathered: the kept groups, every episode, the counts, each question's mean reward. */
export interface StepGroups {
  kept: KeptQuestion[]
  all: Rollout[]
  counts: { questions: number; all0: number; all1: number; constant: number; masked: number }
  outcomes: { qa: Qa; meanReward: number }[]
}

/** Groups a step trains on (batchSize episodes in groups of groupSize). */
export const groupsPerStep = (c: TrainConfig): number => c.batchSize / c.groupSize

/** A sampler that adds up the wall time spent inside it. */
class TimedSampler implements TokenSampler {
  ms = 0
  tokens = 0
  constructor(readonly inner: TokenSampler) {}
  get name(): string {
    return this.inner.name
  }
  async sample(prompts: number[][], p: { n: number; maxTokens: number; seed: number }) {
    const t = performance.now()
    const r = await this.inner.sample(prompts, p)
    this.ms += performance.now() - t
    for (const xs of r) for (const x of xs) this.tokens += x.tokenIds.length
    return r
  }
}

/** The run's rollout machinery: samplers, the resolved gym options and the per-episode budgets. */
export class TrainRollouts {
  /** Sampling at the config's temperature, timed (its ms and tokens are reset each step). */
  readonly sampler: TimedSampler
  private readonly greedy: TokenSampler
  private readonly gym: GymOptions
  private readonly maxTokensPerTurn: number
  /** Group terms of the reward spec (the env pays terminal and step terms; the group scorer adds these). */
  readonly fewestRetrievalsBonus: number
  /** The reward spec has step terms (process, cost): the metrics carry the step credit. */
  readonly stepTerms: boolean
  /** The batches' own time (rendering, encoding, turn bookkeeping) since the step began. */
  batchOwnMs = 0
  /** Progress inside a step (rollouts done / total, rate, ETA), at most one line every PROGRESS_MS; set per step. */
  progress: StepProgress | null = null

  constructor(private readonly d: Pick<TrainDeps, 'learner' | 'codec' | 'world' | 'worldFor' | 'source' | 'config' | 'gym' | 'sampler'>) {
    const c = d.config
    const model = d.learner.model
    const stopIds = d.codec.tokenizer.special.stop
    this.sampler = new TimedSampler(d.sampler ?? new EngineSampler(model, { temperature: c.temperature, topP: c.topP, topK: c.topK, stopIds }))
    this.greedy = d.sampler ?? new EngineSampler(model, { temperature: 0, topP: 1, topK: 0, stopIds })
    this.gym = d.gym ?? resolveRunGym(c.gym, c.protocol)
    if (this.gym.protocol !== c.protocol) throw new AgentError('train.gym', `gym options speak '${this.gym.protocol}' but the config's protocol is '${c.protocol}'`)
    // The sampler's max new tokens a turn is gym.budgets.maxResponseTokens.
    this.maxTokensPerTurn = responseTokensOf(c.gym.budgets)
    const spec = this.gym.reward
    this.fewestRetrievalsBonus = spec.terms.includes('fewest-retrievals') ? FEWEST_RETRIEVALS_BONUS : 0
    this.stepTerms = spec.terms.some((t) => STEP_TERMS.includes(t))
  }

  /** Zero the step's counters (sampling time and tokens, the batches' own time). */
  beginStep(): void {
    this.sampler.ms = 0
    this.sampler.tokens = 0
    this.batchOwnMs = 0
  }

  /** The config's gym.budgets as given (its turn rule over the question's hops), the model's context unless given. */
  private envOptions(qa: Qa, episode: number): GymOptions {
    const budgetFallback = { maxContextTokens: this.d.learner.model.config.maxPositionEmbeddings }
    return episodeOptions(this.gym, episodeBudgets(qa, this.d.config.gym.budgets, budgetFallback), episode)
  }

  async rollout(qas: Qa[], n: number, s: TokenSampler, seed: number, episodeBase: number): Promise<Rollout[]> {
    const { world, worldFor, codec } = this.d
    // makeEnvGroup: N envs of one question with episode indexes base + j (their own fault streams).
    const items = qas.flatMap((qa, qi) => makeResolvedEnvGroup(worldFor?.(qa) ?? world, qa, n, this.envOptions(qa, episodeBase + qi * n)).map((env) => ({ qa, env })))
    const batch = new PolicyBatch(codec, s, items.length, { maxTokensPerTurn: this.maxTokensPerTurn, maxContext: this.d.learner.model.config.maxPositionEmbeddings, seed })
    const p = this.progress
    const rs = await rolloutBatch(items, batch, { scorer: scoreAnswer }, p ? () => p.tick() : undefined)
    this.batchOwnMs += batch.ownMs
    return rs
  }

  /** The greedy held-out evaluation when the step is due one (every evalEvery steps and the last); null when not due
   *  or nothing is held out. */
  async evaluateDue(step: number): Promise<{ f1: number; em: number } | null> {
    const c = this.d.config
    if (!(c.evalEvery > 0 && (step % c.evalEvery === 0 || step === c.steps))) return null
    const qs = this.d.source.heldOut()
    if (qs.length === 0) return null
    return meanScores(await this.rollout(qs, 1, this.greedy, Rng.derive(c.seed, 'eval', step).int(0, 2 ** 31 - 1), 0))
  }
}

/** Draw questions and roll out their groups until the step has its groups or its refill rounds are spent; constant
 *  groups are counted and dropped, the rest scored. */
export async function collectGroups(ro: TrainRollouts, source: QuestionSource, c: TrainConfig, step: number, clock: StepClock, progress: StepProgress | null): Promise<StepGroups> {
  const Q = groupsPerStep(c)
  const rng = Rng.derive(c.seed, 'step', step)
  ro.progress = progress
  const g: StepGroups = { kept: [], all: [], counts: { questions: 0, all0: 0, all1: 0, constant: 0, masked: 0 }, outcomes: [] }
  for (let round = 0; round <= c.refillRounds && g.kept.length < Q; round++) {
    const qas = clock.own(() => source.next(Q - g.kept.length, rng))
    g.counts.questions += qas.length
    const rs = await ro.rollout(qas, c.groupSize, ro.sampler, Rng.derive(c.seed, 'sample', step, round).int(0, 2 ** 31 - 1), step * 1_000_000 + round * 10_000)
    g.all.push(...rs)
    const s = clock.own(() => scoreGroups(rs, c.groupSize, { std: c.advantageStd, fewestRetrievalsBonus: ro.fewestRetrievalsBonus }))
    g.counts.all0 += s.all0
    g.counts.all1 += s.all1
    g.counts.constant += s.constant
    g.counts.masked += s.masked
    for (const x of s.means) g.outcomes.push({ qa: qas[x.index], meanReward: x.meanReward })
    for (const k of s.kept) if (g.kept.length < Q) g.kept.push({ qa: qas[k.index], rollouts: k.rollouts, adv: k.advantages, turnAdv: k.turnAdvantages })
  }
  ro.progress = null
  return g
}

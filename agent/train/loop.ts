// agent/train/loop: the GRPO training loop — per step: draw questions (QuestionSource), roll out N envs per question
// in one lockstep batch (token in / token out), mask episodes hit by infrastructure faults, drop and refill
// constant-reward groups (all-0 / all-1 counted apart), group advantages, datums with observation masks, the PPO
// update (mini-batches × epochs, micro-batched; optional DAPO overlong filtering); metrics.jsonl (deterministic numbers only) + timing.jsonl (wall-clock), periodic held-out
// evaluation, checkpoints (adapter, optimizer, curriculum state, metrics cursor) and bit-exact resume. Every random
// draw is derived from (seed, step, round): a resumed run draws what the killed one would have.
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { episodeBudgets, episodeOptions, FEWEST_RETRIEVALS_BONUS, makeResolvedEnvGroup, resolveRunGym, responseTokensOf, scoreAnswer, STEP_TERMS, type GymOptions, type GymWorld } from '../../gym'
import { AgentError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import { passPoint } from '../../infra/run-points'
import type { ChatCodec } from '../../infra/engine'
import type { Learner } from '../../infra/engine'
import type { Qa } from '../../world'
import { scoreGroups } from '../grpo/groups'
import type { ScoredSequence } from '../grpo/datums'
import { grpoEpochs } from '../grpo/learn'
import { PolicyBatch, type TokenSampler } from '../policy/engine-policy'
import { EngineSampler } from '../policy/engine-sampler'
import { rolloutBatch, type Rollout } from '../rollout/group'
import type { TrainConfig } from './config'
import type { QuestionSource } from './source'
import { StepProgress } from './step-progress'

export interface TrainDeps {
  learner: Learner
  codec: ChatCodec
  world: GymWorld
  /** The world whose env serves a question (a pool of worlds: each question searches its own); default `world`. */
  worldFor?: (qa: Qa) => GymWorld
  source: QuestionSource
  config: TrainConfig
  /** The config's gym options resolved once by the caller (its reward spec parsed); absent: resolved here. */
  gym?: GymOptions
  out: string
  /** Progress lines (step, stage, reward, tokens/s, ETA). */
  log?: (line: string) => void
  /** Lines a run must show even when quiet: "resuming from step K" / "no checkpoint yet: starting over" (default: log). */
  notice?: (line: string) => void
  /** The run folder held this run before (its config.json existed): with no checkpoint, the start over is announced. */
  existingRun?: boolean
  /** Called after each step's checkpoint (tests hook here). */
  onStep?: (step: number) => void
  /** Sampler for rollouts (default: the in-process engine at the config's temperature; tests pass a fixture). */
  sampler?: TokenSampler
}

/** One line of metrics.jsonl: only numbers that are a function of (config, seed, world, model) — no clock. */
export interface StepMetrics {
  step: number
  stage: string
  questions: number
  episodes: number
  groupsKept: number
  all0: number
  all1: number
  constant: number
  maskedEpisodes: number
  rewardMean: number
  rewardStd: number
  f1: number
  em: number
  formatValid: number
  invalidFormat: number
  truncated: number
  truncationRate: number
  searches: number
  accesses: number
  turns: number
  responseTokens: number
  loss: number
  trainedTokens: number
  clipFraction: number
  kl: number
  meanRatio: number
  gradNorm: number
  entropy: number
  /** Optimizer steps on this batch (mini-batches × epochs; 1 with the defaults). */
  optimizerSteps: number
  /** The last optimizer step's clip fraction and mean ratio (after the first step they show the clip acting). */
  clipFractionLast: number
  meanRatioLast: number
  /** overlongFilter: kept-group trajectories cut by a budget, left out of the update. */
  overlongFiltered: number
  evalF1?: number
  evalEm?: number
  curriculumSwitch?: string
  /** Reward specs with step terms (process, cost): mean step credit per episode (its share of rewardMean). */
  stepCredit?: number
}

/** One line of timing.jsonl (wall clock; differs between runs). */
export interface StepTiming {
  step: number
  seconds: number
  /** CPU seconds of the process over the step (user + system, every thread: the native pool's included). */
  cpuS: number
  samplingS: number
  envS: number
  learnS: number
  /** CPU seconds of the update (every thread). */
  learnCpuS: number
  /** Held-out evaluation (sampling + env), outside the trainer's own time. */
  evalS: number
  /** The trainer's own time, measured directly: question draws, prompt/continuation rendering and encoding, turn
   *  bookkeeping, grouping and advantages, datums, curriculum updates, metrics and the checkpoint. */
  trainerS: number
  trainerShare: number
  sampledTokens: number
  tokensPerS: number
  /** Resident memory of the process after the step, MB (a leak shows here first). */
  rssMB: number
}

/** DAPO's "overlong": the episode ended on the turn / token / context budget, or one of its turns hit the per-turn
 *  token cap (gym.budgets.maxResponseTokens) — its reward says nothing about its content. */
export function overlong(r: Pick<Rollout, 'record' | 'seq'>): boolean {
  const s = r.record.stopReason
  return s === 'max_turns' || s === 'max_tokens' || s === 'context' || r.seq.truncatedTurns > 0
}

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

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
const std = (xs: readonly number[]): number => {
  const m = mean(xs)
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)))
}

function checkpointDirs(out: string): { step: number; dir: string }[] {
  const root = join(out, 'checkpoints')
  if (!existsSync(root)) return []
  return readdirSync(root)
    .filter((n) => /^step-\d{6}$/.test(n) && existsSync(join(root, n, 'state.json')))
    .map((n) => ({ step: Number(n.slice(5)), dir: join(root, n) }))
    .sort((a, b) => a.step - b.step)
}

export interface TrainResult {
  steps: number
  resumedFrom: number
  adapterDir: string
  /** Optimizer steps over the whole run (metrics.jsonl, resumed steps included): 0 when every group was constant. */
  optimizerSteps: number
}

/** The run's optimizer steps, summed over metrics.jsonl. */
export function runOptimizerSteps(metricsFile: string): number {
  if (!existsSync(metricsFile)) return 0
  return readFileSync(metricsFile, 'utf8').split('\n').filter((l) => l.trim()).reduce((a, l) => a + Number((JSON.parse(l) as { optimizerSteps?: number }).optimizerSteps ?? 0), 0)
}

/** The sentence a run's last line and report carry when it made no update. */
export const NO_UPDATE_LINE = '0 optimizer steps: every group was constant (no reward difference), so nothing was trained — the adapter is the start'

export async function train(d: TrainDeps): Promise<TrainResult> {
  const { learner, codec, world, source, config: c, out } = d
  const log = d.log ?? (() => undefined)
  const notice = d.notice ?? log
  mkdirSync(out, { recursive: true })
  const metricsFile = join(out, 'metrics.jsonl')
  const timingFile = join(out, 'timing.jsonl')

  // Resume from the last complete checkpoint: adapter + optimizer, curriculum state, metrics cut back to that step.
  let start = 0
  const last = checkpointDirs(out).at(-1)
  if (last) {
    const st = JSON.parse(readFileSync(join(last.dir, 'state.json'), 'utf8')) as { step: number; source: unknown; metricsBytes: number }
    learner.loadState(last.dir)
    source.load(st.source)
    if (existsSync(metricsFile)) truncateSync(metricsFile, st.metricsBytes)
    // timing.jsonl is written after the checkpoint (it includes the checkpoint's time): keep the lines up to the step.
    if (existsSync(timingFile))
      writeFileSync(timingFile, readFileSync(timingFile, 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as StepTiming).step <= st.step).map((l) => l + '\n').join(''))
    start = st.step
    notice(`resuming from step ${start} (${last.dir})`)
  } else {
    if (d.existingRun || (existsSync(metricsFile) && statSync(metricsFile).size > 0)) notice(`no checkpoint yet: starting over (${out})`)
    writeFileSync(metricsFile, '')
    writeFileSync(timingFile, '')
  }

  const model = learner.model
  const stopIds = codec.tokenizer.special.stop
  const sampler = new TimedSampler(d.sampler ?? new EngineSampler(model, { temperature: c.temperature, topP: c.topP, topK: c.topK, stopIds }))
  const greedy = d.sampler ?? new EngineSampler(model, { temperature: 0, topP: 1, topK: 0, stopIds })
  const Q = c.batchSize / c.groupSize
  const gym = d.gym ?? resolveRunGym(c.gym, c.protocol)
  if (gym.protocol !== c.protocol) throw new AgentError('train.gym', `gym options speak '${gym.protocol}' but the config's protocol is '${c.protocol}'`)
  // The config's gym.budgets as given (its turn rule over the question's hops), the model's context unless given; the
  // sampler's max new tokens a turn is the same maxResponseTokens.
  const budgetFallback = { maxContextTokens: model.config.maxPositionEmbeddings }
  const envOptions = (qa: Qa, episode: number): GymOptions => episodeOptions(gym, episodeBudgets(qa, c.gym.budgets, budgetFallback), episode)
  const maxTokensPerTurn = responseTokensOf(c.gym.budgets)
  // Group terms of the reward spec (the env pays terminal and step terms; the group scorer adds these).
  const spec = gym.reward
  const fewestRetrievalsBonus = spec.terms.includes('fewest-retrievals') ? FEWEST_RETRIEVALS_BONUS : 0
  let batchOwnMs = 0
  // Progress inside a step (rollouts done / total, rate, ETA), at most one line every PROGRESS_MS; set per step.
  let progress: StepProgress | null = null
  const rollout = async (qas: Qa[], n: number, s: TokenSampler, seed: number, episodeBase: number): Promise<Rollout[]> => {
    // makeEnvGroup: N envs of one question with episode indexes base + j (their own fault streams).
    const items = qas.flatMap((qa, qi) => makeResolvedEnvGroup(d.worldFor?.(qa) ?? world, qa, n, envOptions(qa, episodeBase + qi * n)).map((env) => ({ qa, env })))
    const batch = new PolicyBatch(codec, s, items.length, { maxTokensPerTurn, maxContext: model.config.maxPositionEmbeddings, seed })
    const p = progress
    const rs = await rolloutBatch(items, batch, { scorer: scoreAnswer }, p ? () => p.tick() : undefined)
    batchOwnMs += batch.ownMs
    return rs
  }
  const evaluate = async (step: number) => {
    const qs = source.heldOut()
    if (qs.length === 0) return null
    const rs = await rollout(qs, 1, greedy, Rng.derive(c.seed, 'eval', step).int(0, 2 ** 31 - 1), 0)
    return { f1: mean(rs.map((r) => r.record.f1)), em: mean(rs.map((r) => r.record.em)) }
  }

  const t0 = performance.now()
  for (let step = start + 1; step <= c.steps; step++) {
    const ts = performance.now()
    const cpu0 = process.cpuUsage()
    sampler.ms = 0
    sampler.tokens = 0
    batchOwnMs = 0
    let ownMs = 0
    const own = <T>(f: () => T): T => {
      const t = performance.now()
      const r = f()
      ownMs += performance.now() - t
      return r
    }
    const rng = Rng.derive(c.seed, 'step', step)
    progress = d.log ? new StepProgress(step, c.steps, Q * c.groupSize, log) : null
    const kept: { qa: Qa; rollouts: Rollout[]; adv: number[]; turnAdv: number[][] | null }[] = []
    const all: Rollout[] = []
    const counts = { questions: 0, all0: 0, all1: 0, constant: 0, masked: 0 }
    const outcomes: { qa: Qa; meanReward: number }[] = []
    for (let round = 0; round <= c.refillRounds && kept.length < Q; round++) {
      const qas = own(() => source.next(Q - kept.length, rng))
      counts.questions += qas.length
      const rs = await rollout(qas, c.groupSize, sampler, Rng.derive(c.seed, 'sample', step, round).int(0, 2 ** 31 - 1), step * 1_000_000 + round * 10_000)
      all.push(...rs)
      const g = own(() => scoreGroups(rs, c.groupSize, { std: c.advantageStd, fewestRetrievalsBonus }))
      counts.all0 += g.all0
      counts.all1 += g.all1
      counts.constant += g.constant
      counts.masked += g.masked
      for (const x of g.means) outcomes.push({ qa: qas[x.index], meanReward: x.meanReward })
      for (const k of g.kept) if (kept.length < Q) kept.push({ qa: qas[k.index], rollouts: k.rollouts, adv: k.advantages, turnAdv: k.turnAdvantages })
    }
    progress = null
    own(() => source.observe(outcomes))
    const envMs = all.reduce((a, r) => a + r.record.turns.reduce((b, t) => b + t.envMs, 0), 0)

    // Turn-level credit (process/cost specs): each turn's advantage on that turn's sampled tokens. DAPO overlong
    // filtering: a trajectory cut by a budget keeps its place in its group's advantages but trains nothing.
    let overlongFiltered = 0
    const scored: ScoredSequence[] = kept.flatMap((g) =>
      g.rollouts.flatMap((r, i): ScoredSequence[] => {
        if (c.overlongFilter && overlong(r)) {
          overlongFiltered++
          return []
        }
        return [g.turnAdv ? { seq: r.seq, advantage: g.adv[i], turnAdvantages: g.turnAdv[i], turnTokens: r.record.turns.map((t) => t.tokens?.length ?? t.completionTokens) } : { seq: r.seq, advantage: g.adv[i] }]
      }),
    )
    const tl = performance.now()
    const lc0 = process.cpuUsage()
    const lm =
      scored.length > 0
        ? grpoEpochs(
            learner,
            scored,
            { loss: c.loss, epsLow: c.epsLow, epsHigh: c.epsHigh, klBeta: c.klBeta, microBatch: c.microBatch, temperature: c.temperature > 0 ? c.temperature : 1, klReference: c.klReference, aggregation: c.aggregation, ppoMiniBatch: c.ppoMiniBatch, ppoEpochs: c.ppoEpochs },
            { lr: c.lr, weightDecay: c.weightDecay, gradClip: c.gradClip },
            Rng.derive(c.seed, 'ppo', step),
          )
        : { loss: 0, tokens: 0, clipFraction: 0, kl: 0, meanRatio: 1, gradNorm: 0, entropy: 0, optimizerSteps: 0, clipFractionLast: 0, meanRatioLast: 1 }
    const learnMs = performance.now() - tl
    const learnCpu = process.cpuUsage(lc0)

    const valid = all.filter((r) => r.infraFault === null)
    const rec = valid.map((r) => r.record)
    const m: StepMetrics = {
      step,
      stage: source.stage(),
      questions: counts.questions,
      episodes: all.length,
      groupsKept: kept.length,
      all0: counts.all0,
      all1: counts.all1,
      constant: counts.constant,
      maskedEpisodes: counts.masked,
      rewardMean: mean(valid.map((r) => r.reward)),
      rewardStd: std(valid.map((r) => r.reward)),
      f1: mean(rec.map((r) => r.f1)),
      em: mean(rec.map((r) => r.em)),
      formatValid: mean(rec.map((r) => (r.formatValid ? 1 : 0))),
      invalidFormat: rec.filter((r) => !r.formatValid).length,
      truncated: valid.filter((r) => r.truncated).length,
      truncationRate: mean(valid.map((r) => (r.truncated ? 1 : 0))),
      searches: mean(rec.map((r) => r.counts.search)),
      accesses: mean(rec.map((r) => r.counts.access)),
      turns: mean(rec.map((r) => r.counts.turns)),
      responseTokens: mean(rec.map((r) => r.tokens.completion)),
      loss: lm.loss,
      trainedTokens: lm.tokens,
      clipFraction: lm.clipFraction,
      kl: lm.kl,
      meanRatio: lm.meanRatio,
      gradNorm: lm.gradNorm,
      entropy: lm.entropy,
      optimizerSteps: lm.optimizerSteps,
      clipFractionLast: lm.clipFractionLast,
      meanRatioLast: lm.meanRatioLast,
      overlongFiltered,
    }
    if (spec.terms.some((t) => STEP_TERMS.includes(t))) m.stepCredit = mean(valid.map((r) => r.stepRewards.reduce((a, b) => a + b, 0)))
    let evalScore: number | null = null
    const te = performance.now()
    if (c.evalEvery > 0 && (step % c.evalEvery === 0 || step === c.steps)) {
      const e = await evaluate(step)
      if (e) {
        m.evalF1 = e.f1
        m.evalEm = e.em
        evalScore = e.f1
      }
    }
    const evalMs = performance.now() - te
    const sw = own(() => source.afterStep(step, evalScore))
    if (sw) {
      m.curriculumSwitch = sw
      log(sw)
    }
    own(() => appendFileSync(metricsFile, JSON.stringify(m) + '\n'))
    // A run point: a kill here leaves this step's metrics line without its checkpoint (resume must cut it back).
    passPoint(`train-step-${step}`)
    const ckMs = performance.now()
    if (step % c.checkpointEvery === 0 || step === c.steps) saveCheckpoint(out, step, learner, source, metricsFile)
    ownMs += performance.now() - ckMs + batchOwnMs
    const seconds = (performance.now() - ts) / 1000
    const trainerS = ownMs / 1000
    const cpu = process.cpuUsage(cpu0)
    const timing: StepTiming = {
      step,
      seconds,
      cpuS: (cpu.user + cpu.system) / 1e6,
      samplingS: sampler.ms / 1000,
      envS: envMs / 1000,
      learnS: learnMs / 1000,
      learnCpuS: (learnCpu.user + learnCpu.system) / 1e6,
      evalS: evalMs / 1000,
      trainerS,
      trainerShare: trainerS / (seconds - evalMs / 1000),
      sampledTokens: sampler.tokens,
      tokensPerS: (sampler.tokens + lm.tokens) / seconds,
      rssMB: Math.round(process.memoryUsage().rss / 1e6),
    }
    appendFileSync(timingFile, JSON.stringify(timing) + '\n')
    const done = step - start
    const eta = ((performance.now() - t0) / done) * (c.steps - step) / 1000
    log(
      `step ${step}/${c.steps} [${m.stage}] reward ${m.rewardMean.toFixed(3)} f1 ${m.f1.toFixed(3)} groups ${m.groupsKept}/${Q} (all0 ${m.all0}, all1 ${m.all1}, masked ${m.maskedEpisodes})` +
        `${m.evalF1 !== undefined ? ` eval f1 ${m.evalF1.toFixed(3)}` : ''} ${timing.tokensPerS.toFixed(0)} tok/s rss ${timing.rssMB} MB ETA ${eta.toFixed(0)} s`,
    )
    d.onStep?.(step)
  }
  const adapterDir = join(out, 'adapter')
  learner.saveAdapter(adapterDir)
  return { steps: c.steps, resumedFrom: start, adapterDir, optimizerSteps: runOptimizerSteps(metricsFile) }
}

/** Write a checkpoint atomically (a temp folder renamed into place); keep only the newest two. */
function saveCheckpoint(out: string, step: number, learner: Learner, source: QuestionSource, metricsFile: string): void {
  const root = join(out, 'checkpoints')
  mkdirSync(root, { recursive: true })
  const name = `step-${String(step).padStart(6, '0')}`
  const tmp = join(root, `.${name}.tmp`)
  rmSync(tmp, { recursive: true, force: true })
  learner.saveState(tmp)
  const state = { step, source: source.state(), metricsBytes: readFileSync(metricsFile).length }
  writeFileSync(join(tmp, 'state.json'), JSON.stringify(state, null, 1))
  const dest = join(root, name)
  rmSync(dest, { recursive: true, force: true })
  renameSync(tmp, dest)
  for (const old of checkpointDirs(out).slice(0, -2)) rmSync(old.dir, { recursive: true, force: true })
}

export function assertTrainable(learner: Learner): void {
  if (!learner.model.adapter) throw new AgentError('train.no_adapter', 'the learner has no LoRA adapter')
}

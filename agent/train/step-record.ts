// agent/train/step-record: what a training step writes down — its metrics.jsonl line (numbers that are a function of
// config, seed, world and model; no clock), its timing.jsonl line (wall and CPU time, from the step's clock) and its
// progress line; the run's optimizer-step total read back. It computes nothing of the step: it records it.
import { existsSync, readFileSync } from 'node:fs'
import type { EpochsMetrics } from '../grpo/learn'
import type { Rollout } from '../rollout/group'
import type { StepGroups } from './step-rollouts'

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

/** A step's clock: its wall and CPU start, and the trainer's own time (what `own` wraps, plus what is added to ownMs). */
export class StepClock {
  readonly startMs = performance.now()
  readonly cpu0 = process.cpuUsage()
  ownMs = 0
  own<T>(f: () => T): T {
    const t = performance.now()
    const r = f()
    this.ownMs += performance.now() - t
    return r
  }
}

/** The update's result and cost (wall ms, CPU usage of every thread). */
export interface UpdateResult {
  lm: EpochsMetrics
  ms: number
  cpu: NodeJS.CpuUsage
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
const std = (xs: readonly number[]): number => {
  const m = mean(xs)
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)))
}

/** The mean F1 and EM of a set of episodes (the held-out evaluation's score). */
export function meanScores(rs: readonly Rollout[]): { f1: number; em: number } {
  return { f1: mean(rs.map((r) => r.record.f1)), em: mean(rs.map((r) => r.record.em)) }
}

/** The step's metrics line before evaluation and curriculum (their keys are added after, in that order). Episodes hit
 *  by an infrastructure fault count as episodes but not in the means. */
export function stepMetrics(step: number, stage: string, g: StepGroups, lm: EpochsMetrics, overlongFiltered: number, stepTerms: boolean): StepMetrics {
  const valid = g.all.filter((r) => r.infraFault === null)
  const rec = valid.map((r) => r.record)
  const m: StepMetrics = {
    step,
    stage,
    questions: g.counts.questions,
    episodes: g.all.length,
    groupsKept: g.kept.length,
    all0: g.counts.all0,
    all1: g.counts.all1,
    constant: g.counts.constant,
    maskedEpisodes: g.counts.masked,
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
  if (stepTerms) m.stepCredit = mean(valid.map((r) => r.stepRewards.reduce((a, b) => a + b, 0)))
  return m
}

/** The step's timing line, read off its clock when everything else is done (the checkpoint included). */
export function stepTiming(step: number, clock: StepClock, sampling: { ms: number; tokens: number }, envMs: number, update: UpdateResult, evalMs: number): StepTiming {
  const seconds = (performance.now() - clock.startMs) / 1000
  const trainerS = clock.ownMs / 1000
  const cpu = process.cpuUsage(clock.cpu0)
  return {
    step,
    seconds,
    cpuS: (cpu.user + cpu.system) / 1e6,
    samplingS: sampling.ms / 1000,
    envS: envMs / 1000,
    learnS: update.ms / 1000,
    learnCpuS: (update.cpu.user + update.cpu.system) / 1e6,
    evalS: evalMs / 1000,
    trainerS,
    trainerShare: trainerS / (seconds - evalMs / 1000),
    sampledTokens: sampling.tokens,
    tokensPerS: (sampling.tokens + update.lm.tokens) / seconds,
    rssMB: Math.round(process.memoryUsage().rss / 1e6),
  }
}

/** The progress line of a finished step (`groups` kept of the `groupsPerStep` asked for). */
export function stepLine(m: StepMetrics, timing: StepTiming, steps: number, groupsPerStep: number, etaS: number): string {
  return (
    `step ${m.step}/${steps} [${m.stage}] reward ${m.rewardMean.toFixed(3)} f1 ${m.f1.toFixed(3)} groups ${m.groupsKept}/${groupsPerStep} (all0 ${m.all0}, all1 ${m.all1}, masked ${m.maskedEpisodes})` +
    `${m.evalF1 !== undefined ? ` eval f1 ${m.evalF1.toFixed(3)}` : ''} ${timing.tokensPerS.toFixed(0)} tok/s rss ${timing.rssMB} MB ETA ${etaS.toFixed(0)} s`
  )
}

/** The run's optimizer steps, summed over metrics.jsonl. */
export function runOptimizerSteps(metricsFile: string): number {
  if (!existsSync(metricsFile)) return 0
  return readFileSync(metricsFile, 'utf8').split('\n').filter((l) => l.trim()).reduce((a, l) => a + Number((JSON.parse(l) as { optimizerSteps?: number }).optimizerSteps ?? 0), 0)
}

/** The sentence a run's last line and report carry when it made no update. */
export const NO_UPDATE_LINE = '0 optimizer steps: every group was constant (no reward difference), so nothing was trained — the adapter is the start'

/** The sentence of a run at lr 0 (a control: its optimizer steps move nothing). */
export const ZERO_LR_LINE = 'lr 0: every optimizer step left the weights as they were, so nothing was trained — the adapter is the start (a control run)'

/** Why a run trained nothing, or null when it did: no optimizer step (constant groups), or a learning rate of 0. */
export function noUpdateLine(optimizerSteps: number, lr: number): string | null {
  return optimizerSteps === 0 ? NO_UPDATE_LINE : lr === 0 ? ZERO_LR_LINE : null
}

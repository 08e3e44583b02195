// agent/train/loop: the GRPO training loop, long and linear — resume or start (agent/train/checkpoint), then per step:
// roll out and score groups with refill (agent/train/step-rollouts), the PPO update on the kept trajectories
// (agent/train/update), periodic held-out evaluation and the curriculum's step, the metrics line, a checkpoint, the
// timing line (agent/train/step-record). Every random draw is derived from (seed, step, round): a resumed run draws what
// the killed one would have. The pieces own the how; this file owns the order.
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { GymOptions, GymWorld } from '../../gym'
import { AgentError } from '../../infra/errors'
import { passPoint } from '../../infra/run-points'
import type { ChatCodec } from '../../infra/engine'
import type { Learner } from '../../infra/engine'
import type { Qa } from '../../world'
import type { TokenSampler } from '../policy/engine-policy'
import { resumeRun, runFiles, saveCheckpoint, type RunFiles } from './checkpoint'
import type { TrainConfig } from './config'
import type { QuestionSource } from './source'
import { StepProgress } from './step-progress'
import { runOptimizerSteps, StepClock, stepLine, stepMetrics, stepTiming, type StepMetrics, type StepTiming } from './step-record'
import { collectGroups, groupsPerStep, TrainRollouts } from './step-rollouts'
import { scoredSequences, updatePolicy } from './update'

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

export interface TrainResult {
  steps: number
  resumedFrom: number
  adapterDir: string
  /** Optimizer steps over the whole run (metrics.jsonl, resumed steps included): 0 when every group was constant. */
  optimizerSteps: number
}

export async function train(d: TrainDeps): Promise<TrainResult> {
  const { learner, config: c, out } = d
  const log = d.log ?? (() => undefined)
  mkdirSync(out, { recursive: true })
  const files = runFiles(out)
  const start = resumeRun(d, files, d.notice ?? log)
  const ro = new TrainRollouts(d)
  const t0 = performance.now()
  for (let step = start + 1; step <= c.steps; step++) {
    const { m, timing } = await trainStep(d, ro, files, step, log)
    const eta = ((performance.now() - t0) / (step - start)) * (c.steps - step) / 1000
    log(stepLine(m, timing, c.steps, groupsPerStep(c), eta))
    d.onStep?.(step)
  }
  const adapterDir = join(out, 'adapter')
  learner.saveAdapter(adapterDir)
  return { steps: c.steps, resumedFrom: start, adapterDir, optimizerSteps: runOptimizerSteps(files.metrics) }
}

/** One step: rollouts and groups, the update, evaluation and the curriculum, the metrics line, the checkpoint, the
 *  timing line. The trainer's own time (timing's trainerS) is what the clock's `own` wraps, the checkpoint and the
 *  batches' own time. */
async function trainStep(d: TrainDeps, ro: TrainRollouts, files: RunFiles, step: number, log: (line: string) => void): Promise<{ m: StepMetrics; timing: StepTiming }> {
  const { learner, source, config: c } = d
  const clock = new StepClock()
  ro.beginStep()
  const g = await collectGroups(ro, source, c, step, clock, d.log ? new StepProgress(step, c.steps, groupsPerStep(c) * c.groupSize, log) : null)
  clock.own(() => source.observe(g.outcomes))
  const envMs = g.all.reduce((a, r) => a + r.record.turns.reduce((b, t) => b + t.envMs, 0), 0)
  const { scored, overlongFiltered } = scoredSequences(g.kept, c.overlongFilter)
  const update = updatePolicy(learner, scored, c, step)
  const m = stepMetrics(step, source.stage(), g, update.lm, overlongFiltered, ro.stepTerms)
  const te = performance.now()
  const e = await ro.evaluateDue(step)
  if (e) {
    m.evalF1 = e.f1
    m.evalEm = e.em
  }
  const evalMs = performance.now() - te
  const sw = clock.own(() => source.afterStep(step, e ? e.f1 : null))
  if (sw) {
    m.curriculumSwitch = sw
    log(sw)
  }
  clock.own(() => appendFileSync(files.metrics, JSON.stringify(m) + '\n'))
  // A run point: a kill here leaves this step's metrics line without its checkpoint (resume must cut it back).
  passPoint(`train-step-${step}`)
  const ckMs = performance.now()
  if (step % c.checkpointEvery === 0 || step === c.steps) saveCheckpoint(d.out, step, learner, source, files.metrics)
  clock.ownMs += performance.now() - ckMs + ro.batchOwnMs
  const timing = stepTiming(step, clock, ro.sampler, envMs, update, evalMs)
  appendFileSync(files.timing, JSON.stringify(timing) + '\n')
  return { m, timing }
}

export function assertTrainable(learner: Learner): void {
  if (!learner.model.adapter) throw new AgentError('train.no_adapter', 'the learner has no LoRA adapter')
}

// agent/train/sft: supervised warm start — finished trajectories (the oracle's, rendered in the hermes protocol
// through the chat codec) → exact token sequences with loss only on assistant tokens (and each turn's end-of-turn id)
// → cross-entropy updates, token-mean over each batch (a weighted token mean when sequences carry weights, e.g. the
// final answer turn weighted W times the other assistant tokens: answerTurnWeights). A randomly initialised model has no tool-use prior; this gives
// it one before GRPO. Resumable: a checkpoint (adapter, optimizer, progress) after every epoch. Knows nothing of worlds
// or curricula.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage } from '../../gym'
import { ConfigError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import type { ChatCodec } from '../../infra/engine'
import type { TemplateMessage } from '../../infra/engine'
import { saveModel, type Learner } from '../../infra/engine'
import { buildDatums, microBatches } from '../grpo/datums'
import type { TokenSequence } from '../policy/engine-policy'
import type { TrajectoryRecord } from '../rollout/types'

/** The token sequence of a finished trajectory; mask 1 on assistant text tokens and their end-of-turn id. */
export function sequenceOfTrajectory(codec: ChatCodec, t: Pick<TrajectoryRecord, 'initial' | 'turns'>): TokenSequence {
  const seq: TokenSequence = { ids: [], sampled: [], logprobs: [], truncatedTurns: 0 }
  const add = (ids: number[], on: 0 | 1) => {
    for (const id of ids) {
      seq.ids.push(id)
      seq.sampled.push(on)
      seq.logprobs.push(0)
    }
  }
  const conv: ChatMessage[] = [...t.initial]
  add(codec.renderPrompt(conv as TemplateMessage[]).ids, 0)
  t.turns.forEach((turn, i) => {
    add([...codec.tokenizer.encode(turn.text), codec.endOfTurnId()], 1)
    const assistant: ChatMessage = { role: 'assistant', content: turn.text }
    const covered = conv.length + 1
    conv.push(assistant)
    if (i < t.turns.length - 1 && turn.observation.length > 0) {
      add(codec.continuation(conv.slice(0, covered) as TemplateMessage[], turn.observation as TemplateMessage[], { endedWithStop: true }), 0)
      conv.push(...turn.observation)
    }
  })
  return seq
}

/** Where a sequence's final assistant turn starts: the first index of its trailing run of sampled tokens (the turn's
 *  text and end-of-turn id; no observation follows the last turn). sampled.length when the sequence ends unsampled. */
export function lastTurnStart(sampled: readonly number[]): number {
  let from = sampled.length
  while (from > 0 && sampled[from - 1] === 1) from--
  return from
}

/** A demonstration for sftTrain; `weights` (aligned with ids, read where sampled is 1) make its loss weighted. */
export type SftSequence = TokenSequence & { weights?: readonly number[] }

/** Per-token loss weights of a demonstration: W on its final assistant turn (the answer), 1 on its other assistant
 *  tokens, 0 on prompt and observation tokens. */
export function answerTurnWeights(seq: Pick<TokenSequence, 'sampled'>, answerWeight: number): number[] {
  if (!(answerWeight > 0 && Number.isFinite(answerWeight))) throw new ConfigError('sft.answer_weight', `the answer weight must be a finite number > 0, got ${answerWeight}`)
  const from = lastTurnStart(seq.sampled)
  return seq.sampled.map((on, i) => (on === 1 ? (i >= from ? answerWeight : 1) : 0))
}

export interface SftOptions {
  epochs: number
  /** Sequences per optimizer step. */
  batchSize: number
  microBatch: number
  lr: number
  seed: number
  out: string
  /** The W the sequences' weights were built with (answerTurnWeights); recorded in the settings fingerprint when ≠ 1,
   *  so a run folder refuses resuming with another W. */
  answerWeight?: number
  /** Stop once the process has used this many CPU seconds in training steps (user + system; the data building before
   *  is not counted); the run then ends with a checkpoint at that step and its outputs, like a finished one. A rerun
   *  with a bigger budget (or none) resumes from there. */
  cpuBudgetS?: number
  /** Epoch 0 in order of increasing sequence length (ties in seeded order): short sequences first. Later epochs shuffle. */
  shortFirst?: boolean
  /** Called after every `every` steps and after the last one (e.g. an evaluation); awaited. */
  onSteps?: { every: number; run: (step: number) => Promise<void> }
  log?: (line: string) => void
}

export interface SftSummary {
  steps: number
  finalLoss: number
  /** True when the CPU budget ended the run before its last epoch. */
  budgetStopped: boolean
  /** CPU seconds (user + system) of this invocation's steps (the onSteps hook's left out). */
  cpuS: number
}

/** The batch order of one epoch. */
function epochOrder(seqs: readonly SftSequence[], o: Pick<SftOptions, 'seed' | 'shortFirst'>, epoch: number): number[] {
  const order = Rng.derive(o.seed, 'sft-epoch', epoch).shuffle(seqs.map((_, i) => i))
  if (epoch === 0 && o.shortFirst) {
    const rank = new Map(order.map((i, r) => [i, r]))
    order.sort((a, b) => seqs[a].ids.length - seqs[b].ids.length || rank.get(a)! - rank.get(b)!)
  }
  return order
}

const cpuSeconds = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/** Cross-entropy epochs over the sequences (seeded order); writes OUT/metrics.jsonl and OUT/adapter, and after every
 *  epoch OUT/checkpoint (adapter + optimizer + sft-progress.json). A rerun with the same settings resumes after the
 *  last finished epoch (a bigger `epochs` extends the run) and ends bit-identical to an uninterrupted run. */
export async function sftTrain(learner: Learner, seqs: readonly SftSequence[], o: SftOptions): Promise<SftSummary> {
  mkdirSync(o.out, { recursive: true })
  const metrics = join(o.out, 'metrics.jsonl')
  const ckpt = join(o.out, 'checkpoint')
  const progressFile = join(ckpt, 'sft-progress.json')
  const settings: Record<string, number> = { batchSize: o.batchSize, microBatch: o.microBatch, lr: o.lr, seed: o.seed, sequences: seqs.length, tokens: seqs.reduce((a, q) => a + q.ids.length, 0), targets: seqs.reduce((a, q) => a + q.sampled.reduce((b, x) => b + x, 0), 0) }
  // Only weighted runs add keys: the fingerprint of an unweighted run is what it was before weights existed.
  if (o.answerWeight !== undefined && o.answerWeight !== 1) settings.answerWeight = o.answerWeight
  if (o.shortFirst) settings.shortFirst = 1
  if (seqs.some((q) => q.weights)) settings.targetWeight = seqs.reduce((a, q) => a + q.sampled.reduce((b, x, t) => b + (x === 1 ? (q.weights ? q.weights[t] : 1) : 0), 0), 0)
  let step = 0
  let finalLoss = NaN
  let startEpoch = 0
  // Batches of startEpoch already done (a run the CPU budget stopped inside an epoch).
  let skip = 0
  if (existsSync(progressFile)) {
    const p = JSON.parse(readFileSync(progressFile, 'utf8')) as { epoch: number; step: number; loss: number; settings: typeof settings; batch?: number }
    if (JSON.stringify(p.settings) !== JSON.stringify(settings))
      throw new ConfigError('sft.resume', `${o.out} holds an SFT run with other settings or data (${JSON.stringify(p.settings)}); use a new --out or delete it`)
    learner.loadState(ckpt)
    step = p.step
    finalLoss = p.loss
    if (p.batch !== undefined) {
      startEpoch = p.epoch
      skip = p.batch
    } else startEpoch = p.epoch + 1
    // Keep the metrics up to the checkpoint only: the steps after it are run again.
    const kept = existsSync(metrics) ? readFileSync(metrics, 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { step: number }).step <= step) : []
    writeFileSync(metrics, kept.map((l) => l + '\n').join(''))
    o.log?.(`sft: resuming ${p.batch !== undefined ? `inside epoch ${p.epoch} after batch ${p.batch}` : `after epoch ${p.epoch}`} (step ${step}) from ${ckpt}`)
  } else writeFileSync(metrics, '')
  const perEpoch = Math.ceil(seqs.length / o.batchSize)
  const total = perEpoch * o.epochs
  const t0 = performance.now()
  const c0 = cpuSeconds()
  const first = step
  let budgetStopped = false
  // The hook's CPU (an evaluation) is not training: it is left out of the budget and of cpuS.
  let hookCpu = 0
  const hook = async (at: number) => {
    const h0 = cpuSeconds()
    await o.onSteps!.run(at)
    hookCpu += cpuSeconds() - h0
  }
  // The checkpoint is written beside and renamed into place: a crash never leaves a half-written one.
  const checkpoint = (progress: Record<string, unknown>) => {
    const tmp = `${ckpt}.tmp`
    rmSync(tmp, { recursive: true, force: true })
    learner.saveState(tmp)
    writeFileSync(join(tmp, 'sft-progress.json'), JSON.stringify({ ...progress, loss: finalLoss, settings }) + '\n')
    rmSync(ckpt, { recursive: true, force: true })
    renameSync(tmp, ckpt)
  }
  for (let epoch = startEpoch; epoch < o.epochs && !budgetStopped; epoch++) {
    const batches = [...microBatches(epochOrder(seqs, o, epoch), o.batchSize)]
    for (let b = epoch === startEpoch ? skip : 0; b < batches.length; b++) {
      // Masks are weight / (the batch's summed weight): each micro-batch counts its share of the step's total weight.
      const datums = buildDatums(batches[b].map((i) => ({ seq: seqs[i], advantage: 0, weights: seqs[i].weights })), 'token-mean')
      let loss = 0, tokens = 0
      for (const mb of microBatches(datums, o.microBatch)) {
        const r = learner.forwardBackward(mb, { name: 'cross_entropy' })
        loss += r.loss
        tokens += r.metrics.tokens
      }
      const s = learner.optimStep({ lr: o.lr, gradClip: 1 })
      step++
      finalLoss = loss
      const cpu = cpuSeconds() - c0 - hookCpu
      appendFileSync(metrics, JSON.stringify({ step, epoch, loss, tokens, gradNorm: s.gradNorm }) + '\n')
      const rate = (step - first) / ((performance.now() - t0) / 1000)
      o.log?.(`sft step ${step}/${total} epoch ${epoch} loss ${loss.toFixed(4)} (${tokens} tokens) ${rate.toFixed(2)} steps/s, ${cpu.toFixed(0)} CPU s, ETA ${Math.round((total - step) / rate)} s`)
      if (o.onSteps && step % o.onSteps.every === 0) await hook(step)
      if (o.cpuBudgetS !== undefined && cpu >= o.cpuBudgetS && step < total) {
        budgetStopped = true
        if (b + 1 < batches.length) checkpoint({ epoch, batch: b + 1, step })
        else checkpoint({ epoch, step })
        o.log?.(`sft: CPU budget of ${o.cpuBudgetS} s reached at step ${step}/${total} (${cpu.toFixed(0)} CPU s); checkpoint written, a rerun with a bigger --cpu-budget resumes`)
        break
      }
    }
    if (!budgetStopped) checkpoint({ epoch, step })
  }
  if (o.onSteps && step % o.onSteps.every !== 0) await hook(step)
  if (learner.trainable === 'full') saveModel(learner.model, join(o.out, 'model'))
  else learner.saveAdapter(join(o.out, 'adapter'))
  return { steps: step, finalLoss, budgetStopped, cpuS: cpuSeconds() - c0 - hookCpu }
}

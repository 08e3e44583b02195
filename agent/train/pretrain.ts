// agent/train/pretrain: next-token pretraining from scratch on documents (a world pool's pages) — every weight trained
// (Learner trainable 'full'), AdamW with linear warmup + cosine decay to lr/10, gradient clipping, token-mean cross-
// entropy over windows of seqLen tokens cut from the documents joined by an end-of-text id (a seeded shuffle per epoch),
// held-out loss on other documents (an unseen world's pages). Resumable: a checkpoint (model + optimizer + progress)
// every checkpointEvery steps, written beside and renamed into place; a rerun with the same settings continues after
// it and ends bit-identical to an uninterrupted run. Knows nothing of worlds or tokenizers: it is given token ids.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import type { Datum, Learner } from '../../infra/engine'
import { validatePretrainOptions, type PretrainKnobs } from './pretrain-config'
export { validatePretrainOptions } from './pretrain-config'

export interface PretrainOptions extends PretrainKnobs {
  /** The id put between two documents. */
  separator: number
  out: string
  log?: (line: string) => void
}

export interface PretrainSummary {
  steps: number
  tokens: number
  finalLoss: number
  heldOutLoss?: number
  wallSeconds: number
  cpuSeconds: number
}

/** lr at 1-based step s: linear warmup to lr, then cosine down to lr / 10 at the last step. */
export function pretrainLr(o: Pick<PretrainOptions, 'lr' | 'warmup' | 'steps'>, s: number): number {
  if (s <= o.warmup) return (o.lr * s) / Math.max(1, o.warmup)
  const p = Math.min(1, (s - o.warmup) / Math.max(1, o.steps - o.warmup))
  return o.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p)))
}

/** The documents joined by the separator (in the given order), cut into windows of seqLen + 1 ids (the last partial one dropped). */
export function windowsOf(docs: readonly (readonly number[])[], order: readonly number[], seqLen: number, separator: number): number[][] {
  const stream: number[] = []
  for (const i of order) stream.push(...docs[i], separator)
  const out: number[][] = []
  for (let o = 0; o + seqLen + 1 <= stream.length; o += seqLen) out.push(stream.slice(o, o + seqLen + 1))
  return out
}

/** Mean −log p per token of the windows (no gradients). */
export function heldOutLoss(learner: Learner, windows: readonly number[][]): number {
  let sum = 0, n = 0
  const datums: Datum[] = windows.map((w) => ({ inputTokens: w.slice(0, -1), targetTokens: w.slice(1) }))
  for (const lp of learner.targetLogprobs(datums))
    for (const x of lp) {
      sum -= x
      n++
    }
  return sum / Math.max(1, n)
}

/**
 * Pretrain learner (trainable 'full') on docs; heldOut (other documents, e.g. an unseen world's) gives the held-out
 * loss. Writes OUT/metrics.jsonl (per step: loss, lr, gradNorm, tokens; per evaluation: heldOutLoss) and
 * OUT/checkpoint. The caller saves the final model.
 */
export function pretrain(learner: Learner, docs: readonly (readonly number[])[], heldOut: readonly (readonly number[])[], o: PretrainOptions): PretrainSummary {
  validatePretrainOptions(o)
  if (learner.trainable !== 'full') throw new ConfigError('pretrain.trainable', 'pretraining trains every weight: give a Learner with trainable "full"')
  const perEpoch = windowsOf(docs, docs.map((_, i) => i), o.seqLen, o.separator).length
  if (perEpoch < o.batch) throw new ConfigError('pretrain.data', `the documents give ${perEpoch} windows of ${o.seqLen} tokens, fewer than one batch of ${o.batch}; use more worlds or a shorter seqLen`)
  const evalWin = heldOut.length ? windowsOf(heldOut, heldOut.map((_, i) => i), o.seqLen, o.separator).slice(0, o.evalWindows) : []
  o.log?.(`pretrain: ${docs.length} documents, ${docs.reduce((a, d) => a + d.length, 0)} tokens, ${perEpoch} windows of ${o.seqLen} per epoch (${((o.steps * o.batch) / perEpoch).toFixed(2)} epochs); held out: ${evalWin.length} windows`)
  mkdirSync(o.out, { recursive: true })
  const metrics = join(o.out, 'metrics.jsonl')
  const ckpt = join(o.out, 'checkpoint')
  const progressFile = join(ckpt, 'pretrain-progress.json')
  const settings = { batch: o.batch, seqLen: o.seqLen, lr: o.lr, warmup: o.warmup, steps: o.steps, weightDecay: o.weightDecay, gradClip: o.gradClip, seed: o.seed, documents: docs.length, tokens: docs.reduce((a, d) => a + d.length, 0) }
  let step = 0
  if (existsSync(progressFile)) {
    const p = JSON.parse(readFileSync(progressFile, 'utf8')) as { step: number; settings: typeof settings }
    if (JSON.stringify(p.settings) !== JSON.stringify(settings))
      throw new ConfigError('pretrain.resume', `${o.out} holds a pretraining run with other settings or data (${JSON.stringify(p.settings)}); use a new out folder or delete it`)
    learner.loadState(ckpt)
    step = p.step
    const kept = existsSync(metrics) ? readFileSync(metrics, 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { step: number }).step <= step) : []
    writeFileSync(metrics, kept.map((l) => l + '\n').join(''))
    o.log?.(`pretrain: resuming after step ${step} from ${ckpt}`)
  } else writeFileSync(metrics, '')
  // Windows of epoch e in a seeded document order; window j of the run is window j % perEpoch of epoch ⌊j / perEpoch⌋.
  let epochCache: { e: number; w: number[][] } | undefined
  const windowAt = (j: number): number[] => {
    const e = Math.floor(j / perEpoch)
    if (epochCache?.e !== e) epochCache = { e, w: windowsOf(docs, Rng.derive(o.seed, 'pretrain-epoch', e).shuffle(docs.map((_, i) => i)), o.seqLen, o.separator) }
    return epochCache.w[j % perEpoch]
  }
  const t0 = performance.now(), c0 = process.cpuUsage(), first = step
  let finalLoss = NaN, heldOutLast: number | undefined, lastLog = -Infinity
  const tokensPerStep = o.batch * o.seqLen
  const checkpoint = () => {
    const tmp = `${ckpt}.tmp`
    rmSync(tmp, { recursive: true, force: true })
    learner.saveState(tmp)
    writeFileSync(join(tmp, 'pretrain-progress.json'), JSON.stringify({ step, settings }) + '\n')
    rmSync(ckpt, { recursive: true, force: true })
    renameSync(tmp, ckpt)
  }
  const evaluate = () => {
    if (evalWin.length === 0) return
    heldOutLast = heldOutLoss(learner, evalWin)
    appendFileSync(metrics, JSON.stringify({ step, heldOutLoss: heldOutLast, heldOutTokens: evalWin.length * o.seqLen }) + '\n')
  }
  while (step < o.steps) {
    const w = 1 / tokensPerStep
    const datums: Datum[] = []
    for (let b = 0; b < o.batch; b++) {
      const win = windowAt(step * o.batch + b)
      datums.push({ inputTokens: win.slice(0, -1), targetTokens: win.slice(1), mask: new Array(o.seqLen).fill(w) })
    }
    const r = learner.forwardBackward(datums, { name: 'cross_entropy' })
    const lr = pretrainLr(o, step + 1)
    const s = learner.optimStep({ lr, weightDecay: o.weightDecay, gradClip: o.gradClip })
    step++
    finalLoss = r.loss
    appendFileSync(metrics, JSON.stringify({ step, loss: r.loss, lr, gradNorm: s.gradNorm, tokens: r.metrics.tokens }) + '\n')
    if (o.evalEvery > 0 && step % o.evalEvery === 0 && step < o.steps) evaluate()
    if (step % o.checkpointEvery === 0 || step === o.steps) checkpoint()
    const secs = (performance.now() - t0) / 1000
    // A line a second at most (and the last step's): count, loss, rate and ETA.
    if (secs - lastLog < 1 && step < o.steps) continue
    lastLog = secs
    const rate = ((step - first) * tokensPerStep) / secs
    o.log?.(`pretrain step ${step}/${o.steps} loss ${r.loss.toFixed(4)} lr ${lr.toExponential(2)} ${rate.toFixed(0)} tokens/s, ETA ${Math.round(((o.steps - step) * tokensPerStep) / rate)} s${heldOutLast !== undefined ? `, held-out ${heldOutLast.toFixed(4)}` : ''}`)
  }
  evaluate()
  const c = process.cpuUsage(c0)
  return { steps: step, tokens: step * tokensPerStep, finalLoss, heldOutLoss: heldOutLast, wallSeconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6 }
}

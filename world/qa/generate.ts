// world/qa/generate: the QA pool of a world — how many questions of each type and hop count to draw (mix and
// hop histogram from config.qa), the draws themselves (all from Rng.derive(seed, 'qa')), de-duplication by
// content and by question text. Knows nothing of storage or of the bench split.
import { Rng } from '../../infra/rng'
import { ConfigError } from '../../infra/errors'
import type { WorldConfig } from '../config'
import type { Qa, QaType } from '../types'
import { sampleCompareChain, sampleParam } from './combo'
import { contentKey, finishDraft, type Draft } from './draft'
import { buildGraphIndex, type GraphIndex } from './graph-index'
import { sampleParallel } from './parallel'
import { makeSamplerContext, type SamplerContext } from './sampler-context'
import { sampleSimple } from './simple'
import type { ParallelOp } from './spec'
import type { QaWorldView } from './view'

export type QaConfig = WorldConfig['qa']

/** Smallest hop count each type can have. */
export const MIN_HOPS: Record<QaType, number> = { simple: 1, parallel: 2, combo: 2 }
export const QA_TYPES: QaType[] = ['simple', 'parallel', 'combo']

export interface GenerationStats {
  requested: Record<QaType, number>
  produced: Record<QaType, number>
  byHops: Record<QaType, Record<number, number>>
  attempts: number
  rejected: { noSample: number; unfinishable: number; duplicate: number }
}

export interface GenerationResult {
  qas: Qa[]
  stats: GenerationStats
}

/** Split `n` over keys proportionally to weights (largest remainder; deterministic). */
export function apportion(n: number, weights: Record<number, number>): Record<number, number> {
  const keys = Object.keys(weights).map(Number).sort((a, b) => a - b)
  const total = keys.reduce((s, k) => s + Math.max(0, weights[k]), 0)
  const out: Record<number, number> = {}
  if (total <= 0) {
    for (const k of keys) out[k] = 0
    return out
  }
  let given = 0
  const rem: [number, number][] = []
  for (const k of keys) {
    const exact = (n * Math.max(0, weights[k])) / total
    out[k] = Math.floor(exact)
    given += out[k]
    rem.push([k, exact - out[k]])
  }
  rem.sort((a, b) => b[1] - a[1] || a[0] - b[0])
  for (let i = 0; given < n; i++, given++) out[rem[i % rem.length][0]]++
  return out
}

export function validateQaConfig(c: QaConfig): void {
  if (!(c.minHops >= 1 && c.maxHops >= c.minHops && c.maxHops <= 12)) throw new ConfigError('config.qa.hops', `config.qa hop range must satisfy 1 <= minHops <= maxHops <= 12, got ${c.minHops}..${c.maxHops}`)
  if (c.hopWeights.length < c.maxHops) throw new ConfigError('config.qa.hopWeights', `config.qa.hopWeights needs one weight per hop count 1..${c.maxHops}, got ${c.hopWeights.length}`)
  if (!(c.target >= 0)) throw new ConfigError('config.qa.target', `config.qa.target must be >= 0`)
}

function drawOne(ctx: SamplerContext, rng: Rng, type: QaType, h: number, c: QaConfig): Draft | null {
  if (type === 'simple') return sampleSimple(ctx, rng, h)
  if (type === 'parallel') {
    const ops: ParallelOp[] = ['compare', 'sum', 'difference', 'same']
    const op = ops[rng.weightedIndex(ops.map((o) => c.parallelOps[o]))]
    return sampleParallel(ctx, rng, h, op)
  }
  const useParam = rng.next() < c.comboKinds.param / (c.comboKinds.param + c.comboKinds.compareChain)
  return useParam ? (sampleParam(ctx, rng, h) ?? sampleCompareChain(ctx, rng, h)) : (sampleCompareChain(ctx, rng, h) ?? sampleParam(ctx, rng, h))
}

export function generateQa(
  view: QaWorldView,
  c: QaConfig,
  seed: number,
  tick: (n: number) => void = () => {},
  /** Each question as it is kept (the pool's order): a caller may start on it before the pool is complete. */
  kept: (qa: Qa) => void = () => {},
): GenerationResult {
  const draws = qaDraws(view, c, seed, tick, kept)
  for (;;) {
    const r = draws.next()
    if (r.done) return r.value
  }
}

/** generateQa as a generator that pauses after each kept question — a caller that drives it can give the event loop a
 *  turn now and then (the qa stage does, so the check's threads get their next questions while it draws). Same draws. */
export function* qaDraws(
  view: QaWorldView,
  c: QaConfig,
  seed: number,
  tick: (n: number) => void = () => {},
  kept: (qa: Qa) => void = () => {},
): Generator<void, GenerationResult> {
  validateQaConfig(c)
  const g: GraphIndex = buildGraphIndex(view, c.maxHops)
  const ctx = makeSamplerContext(g, { maxHops: c.maxHops, attrTerminalRate: c.attrTerminalRate })
  const root = Rng.derive(seed, 'qa')
  const total = Math.ceil(c.target * (1 + c.headroom))
  const perType = apportion(total, { 0: c.mix.simple, 1: c.mix.parallel, 2: c.mix.combo })
  const stats: GenerationStats = {
    requested: { simple: perType[0], parallel: perType[1], combo: perType[2] },
    produced: { simple: 0, parallel: 0, combo: 0 },
    byHops: { simple: {}, parallel: {}, combo: {} },
    attempts: 0,
    rejected: { noSample: 0, unfinishable: 0, duplicate: 0 },
  }
  const qas: Qa[] = []
  const keys = new Set<string>()
  const questions = new Set<string>()

  for (const type of QA_TYPES) {
    const rng = root.fork(type)
    const lo = Math.max(c.minHops, MIN_HOPS[type])
    const weights: Record<number, number> = {}
    for (let h = lo; h <= c.maxHops; h++) weights[h] = c.hopWeights[h - 1]
    const quota = apportion(stats.requested[type], weights)
    const made: Record<number, number> = {}
    const tried: Record<number, number> = {}
    const tryHop = (h: number): boolean => {
      stats.attempts++
      tried[h] = (tried[h] ?? 0) + 1
      const d = drawOne(ctx, rng, type, h, c)
      if (!d) {
        stats.rejected.noSample++
        return false
      }
      const key = contentKey(d, g)
      if (keys.has(key) || questions.has(d.question)) {
        stats.rejected.duplicate++
        return false
      }
      const qa = finishDraft(g, d, key)
      if (!qa) {
        stats.rejected.unfinishable++
        return false
      }
      keys.add(key)
      questions.add(d.question)
      qas.push(qa)
      kept(qa)
      made[h] = (made[h] ?? 0) + 1
      tick(1)
      return true
    }
    // Pass 1: each hop count up to its quota, giving up on counts the world cannot supply.
    for (let h = lo; h <= c.maxHops; h++) {
      const cap = Math.max(300, quota[h] * 30)
      while ((made[h] ?? 0) < quota[h] && (tried[h] ?? 0) < cap) {
        if (tryHop(h)) yield
        const t = tried[h] ?? 0
        if (t >= 300 && (made[h] ?? 0) / t < 0.005) break
      }
    }
    // Pass 2: the shortfall goes to hop counts that produced questions, in proportion to their weights.
    let deficit = stats.requested[type] - Object.values(made).reduce((s, x) => s + x, 0)
    const feasible = Object.keys(made).map(Number).filter((h) => (made[h] ?? 0) / (tried[h] ?? 1) > 0.02)
    let budget = deficit * 40
    while (deficit > 0 && feasible.length > 0 && budget-- > 0) {
      const h = feasible[rng.weightedIndex(feasible.map((x) => weights[x]))]
      if (tryHop(h)) {
        deficit--
        yield
      }
    }
    stats.produced[type] = Object.values(made).reduce((s, x) => s + x, 0)
    stats.byHops[type] = made
  }
  return { qas, stats }
}

// world/split/split: holding out SearchGymBench — per type and hop count quotas (default 462 Simple + 134 Parallel +
// 46 Combo over hops 1–12), chosen to cost the training pool little, then every training item that shares a
// question text, a path (full or sub-path edge sequence) or a start entity with the bench is dropped — and, with
// config.split.factDisjoint, every training item that shares a single edge (a fact) with it. The
// overlap statistics are recomputed from the final labels, not assumed. Knows QA only through SplitItem.
import { Rng } from '../../infra/rng'
import { WorldError } from '../../infra/errors'
import type { WorldConfig } from '../config'
import type { QaType } from '../types'
import { apportion, MIN_HOPS, QA_TYPES } from '../qa/generate'
import { factsOf } from './facts'

export interface SplitItem {
  id: string
  type: QaType
  hops: number
  question: string
  /** The full path (edge ids in order). */
  path: string[]
  /** Each independent chain of the question (for Simple just the path). */
  subPaths: string[][]
  /** Entities the question names as starting points. */
  starts: string[]
  /** A start is blurred (config.qa.blur): only these may enter a bench with config.split.blurredOnly. */
  blurred?: boolean
}

export type SplitLabel = 'train' | 'bench' | 'excluded'
export type Disjointness = { question: boolean; path: boolean; startEntity: boolean }
export const STRICT: Disjointness = { question: true, path: true, startEntity: true }

export interface SplitStats {
  pool: number
  train: number
  bench: number
  excluded: number
  benchByType: Record<QaType, number>
  benchByHops: Record<number, number>
  benchByTypeHops: Record<QaType, Record<number, number>>
  trainByType: Record<QaType, number>
  trainByHops: Record<number, number>
  /** Why training items were dropped (an item may have several reasons). */
  excludedBy: { question: number; path: number; startEntity: number }
  /** Remaining overlap between bench and training, recomputed after labelling (0 where strict). */
  overlap: { question: number; path: number; subPath: number; startEntity: number }
  disjoint: Disjointness
  /** Bench quota that could not be met (type → missing count). */
  shortfall: Record<QaType, number>
  /**
   * Only with config.split.factDisjoint: the training questions that shared an edge with the bench and were excluded
   * for it (`excluded`, already counted in `excluded` above), of the `trainBefore` the other rules left, and the
   * bench's distinct edges. Absent when the option is off (the stats, and so the content hash, are as before).
   */
  factDisjoint?: { excluded: number; trainBefore: number; benchFacts: number }
}

export interface SplitResult {
  labels: Map<string, SplitLabel>
  stats: SplitStats
}

const pathKey = (p: string[]) => p.join('>')

export function splitBench(items: SplitItem[], cfg: WorldConfig['split'], seed: number): SplitResult {
  const disjoint = cfg.disjoint ?? STRICT
  const rng = Rng.derive(seed, 'split')
  // How many pool items each start entity / path opens: choosing a bench item costs the training pool these.
  const startUse = new Map<string, number>()
  for (const it of items) for (const s of new Set(it.starts)) startUse.set(s, (startUse.get(s) ?? 0) + 1)
  const cost = (it: SplitItem) => [...new Set(it.starts)].reduce((c, s) => c + (startUse.get(s) ?? 0), 0)

  const bench = new Set<string>()
  const usedStarts = new Set<string>()
  const shortfall = { simple: 0, parallel: 0, combo: 0 } as Record<QaType, number>
  for (const type of QA_TYPES) {
    const want = cfg.bench[type]
    if (want < 0 || !Number.isInteger(want)) throw new WorldError('split.size', `config.split.bench.${type} must be a non-negative integer, got ${want}`)
    const lo = Math.max(cfg.minHops, MIN_HOPS[type])
    const weights: Record<number, number> = {}
    for (let h = lo; h <= cfg.maxHops; h++) weights[h] = 1
    const quota = apportion(want, weights)
    // Candidates per hop count, cheapest first (ties broken by a seeded shuffle).
    const cells = new Map<number, SplitItem[]>()
    const trng = rng.fork(type)
    for (const it of trng.shuffle(items.filter((x) => x.type === type && x.hops >= lo && x.hops <= cfg.maxHops && (!cfg.blurredOnly || x.blurred === true))))
      (cells.get(it.hops) ?? cells.set(it.hops, []).get(it.hops)!).push(it)
    for (const list of cells.values()) {
      const c = new Map(list.map((x) => [x.id, cost(x)]))
      list.sort((a, b) => c.get(a.id)! - c.get(b.id)!)
    }
    const take = (h: number, n: number, reuse: boolean): number => {
      let got = 0
      for (const it of cells.get(h) ?? []) {
        if (got >= n) break
        if (bench.has(it.id)) continue
        if (!reuse && it.starts.some((s) => usedStarts.has(s))) continue
        bench.add(it.id)
        it.starts.forEach((s) => usedStarts.add(s))
        got++
      }
      return got
    }
    let missing = 0
    for (let h = lo; h <= cfg.maxHops; h++) missing += quota[h] - take(h, quota[h], false)
    // A hop count short of candidates hands its quota to the others (fresh start entities first).
    for (const reuse of [false, true])
      for (let h = cfg.maxHops; h >= lo && missing > 0; h--) missing -= take(h, missing, reuse)
    shortfall[type] = missing
  }

  const benchItems = items.filter((x) => bench.has(x.id))
  const bq = new Set(benchItems.map((x) => x.question))
  const bp = new Set<string>()
  for (const x of benchItems) {
    bp.add(pathKey(x.path))
    for (const p of x.subPaths) if (p.length > 0) bp.add(pathKey(p))
  }
  const bs = new Set(benchItems.flatMap((x) => x.starts))
  const labels = new Map<string, SplitLabel>()
  const excludedBy = { question: 0, path: 0, startEntity: 0 }
  for (const it of items) {
    if (bench.has(it.id)) {
      labels.set(it.id, 'bench')
      continue
    }
    const q = disjoint.question && bq.has(it.question)
    const p = disjoint.path && (bp.has(pathKey(it.path)) || it.subPaths.some((s) => s.length > 0 && bp.has(pathKey(s))))
    const s = disjoint.startEntity && it.starts.some((x) => bs.has(x))
    if (q) excludedBy.question++
    if (p) excludedBy.path++
    if (s) excludedBy.startEntity++
    labels.set(it.id, q || p || s ? 'excluded' : 'train')
  }
  if (!cfg.factDisjoint) return { labels, stats: splitStats(items, labels, disjoint, excludedBy, shortfall) }
  // Fact-disjoint: a training question that walks any edge of a bench question goes too (the bench is unchanged).
  const benchFacts = factsOf(benchItems)
  let trainBefore = 0
  let factExcluded = 0
  for (const it of items) {
    if (labels.get(it.id) !== 'train') continue
    trainBefore++
    if (it.path.some((e) => benchFacts.has(e))) {
      labels.set(it.id, 'excluded')
      factExcluded++
    }
  }
  const stats = splitStats(items, labels, disjoint, excludedBy, shortfall)
  return { labels, stats: { ...stats, factDisjoint: { excluded: factExcluded, trainBefore, benchFacts: benchFacts.size } } }
}

/** Counts and the bench/training overlap by each criterion, computed from the labels alone. */
export function splitStats(items: SplitItem[], labels: Map<string, SplitLabel>, disjoint: Disjointness, excludedBy: SplitStats['excludedBy'], shortfall: SplitStats['shortfall']): SplitStats {
  const benchItems = items.filter((x) => labels.get(x.id) === 'bench')
  const trainItems = items.filter((x) => labels.get(x.id) === 'train')
  const bq = new Set(benchItems.map((x) => x.question))
  const bFull = new Set(benchItems.map((x) => pathKey(x.path)))
  const bSub = new Set(benchItems.flatMap((x) => x.subPaths.filter((p) => p.length > 0).map(pathKey)))
  const bs = new Set(benchItems.flatMap((x) => x.starts))
  const overlap = { question: 0, path: 0, subPath: 0, startEntity: 0 }
  for (const t of trainItems) {
    if (bq.has(t.question)) overlap.question++
    if (bFull.has(pathKey(t.path))) overlap.path++
    const mine = [t.path, ...t.subPaths].filter((p) => p.length > 0).map(pathKey)
    if (mine.some((k) => bSub.has(k) || bFull.has(k))) overlap.subPath++
    if (t.starts.some((s) => bs.has(s))) overlap.startEntity++
  }
  const byType = (xs: SplitItem[]) => {
    const o = { simple: 0, parallel: 0, combo: 0 } as Record<QaType, number>
    for (const x of xs) o[x.type]++
    return o
  }
  const byHops = (xs: SplitItem[]) => {
    const o: Record<number, number> = {}
    for (const x of xs) o[x.hops] = (o[x.hops] ?? 0) + 1
    return o
  }
  const benchByTypeHops = { simple: {}, parallel: {}, combo: {} } as Record<QaType, Record<number, number>>
  for (const t of QA_TYPES) benchByTypeHops[t] = byHops(benchItems.filter((x) => x.type === t))
  return {
    pool: items.length,
    train: trainItems.length,
    bench: benchItems.length,
    excluded: items.length - trainItems.length - benchItems.length,
    benchByType: byType(benchItems),
    benchByHops: byHops(benchItems),
    benchByTypeHops,
    trainByType: byType(trainItems),
    trainByHops: byHops(trainItems),
    excludedBy,
    overlap,
    disjoint,
    shortfall,
  }
}

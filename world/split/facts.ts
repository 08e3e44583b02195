// world/split/facts: facts (edges) shared between question sets — the seeded held-out pick of a training pool, its
// fact-disjoint partition (no question left to train on shares an edge with a held-out one), and the overlap counts
// `world stats` reports. A fact is an edge (subject, relation, object): a world has one edge id per fact and a path
// walks an edge by that id in either direction, so "the home team of Saile Arena" and "where does X play its home
// games" share an edge id. Knows questions only through {id, type, hops, path}; pure functions, no database.
import { Rng } from '../../infra/rng'
import type { QaType } from '../types'

export interface FactItem {
  id: string
  type: QaType
  hops: number
  /** Every edge id of the question (all chains, in reasoning order). */
  path: readonly string[]
}

/** The edge ids of a set of questions. */
export function factsOf(items: Iterable<{ path: readonly string[] }>): Set<string> {
  const out = new Set<string>()
  for (const it of items) for (const e of it.path) out.add(e)
  return out
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The held-out pick of a training pool: min(n, ⌊pool/2⌋) questions from a shuffle (Rng.derive(seed, 'held-out')) of
 * the pool sorted by id — so the pick depends only on the pool's ids, the seed and n, not on the order given.
 */
export function pickHeldOut<T extends { id: string }>(train: readonly T[], n: number, seed: number): Set<string> {
  const sorted = [...train].sort(byId)
  const picked = Rng.derive(seed, 'held-out').shuffle(sorted).slice(0, Math.min(n, Math.floor(train.length / 2)))
  return new Set(picked.map((q) => q.id))
}

export interface FactPartition<T> {
  /** The held-out questions (input order). */
  held: T[]
  /** Questions left to train on: none shares an edge with a held-out question (input order). */
  train: T[]
  /** Questions neither held out nor trained on: each shares at least one edge with a held-out question. */
  excluded: T[]
  /** Distinct edges of the held-out questions. */
  heldFacts: number
}

/** Splits `items` into the held-out ones (`heldIds`), those sharing an edge with them (excluded) and the rest. */
export function factDisjointPartition<T extends { id: string; path: readonly string[] }>(items: readonly T[], heldIds: ReadonlySet<string>): FactPartition<T> {
  const held = items.filter((q) => heldIds.has(q.id))
  const facts = factsOf(held)
  const train: T[] = []
  const excluded: T[] = []
  for (const q of items) {
    if (heldIds.has(q.id)) continue
    ;(q.path.some((e) => facts.has(e)) ? excluded : train).push(q)
  }
  return { held, train, excluded, heldFacts: facts.size }
}

/** The held-out slice of a training pool as `train` and `train sft` use it: pickHeldOut, then the fact-disjoint partition. */
export function heldOutSlice<T extends { id: string; path: readonly string[] }>(train: readonly T[], n: number, seed: number): FactPartition<T> {
  return factDisjointPartition([...train].sort(byId), pickHeldOut(train, n, seed))
}

/** How much of a probe set (the bench, a held-out slice) a training pool already states. */
export interface FactOverlap {
  /** Questions probed. */
  questions: number
  /** Questions with at least one edge on some training question's path. */
  anyEdge: number
  /** Questions each of whose edges lies on some training question's path (not necessarily the same one). */
  everyEdge: number
  /** Questions whose whole path lies inside one training question's path. */
  insideOne: number
  /** Questions with an edge that a one-hop Simple training question asks directly (its whole path). */
  askedDirectly: number
}

export function factOverlap(probe: readonly FactItem[], train: readonly FactItem[]): FactOverlap {
  const onPath = new Map<string, number[]>() // edge → indexes of the training questions whose path holds it
  train.forEach((t, i) => {
    for (const e of new Set(t.path)) (onPath.get(e) ?? onPath.set(e, []).get(e)!).push(i)
  })
  const direct = new Set(train.filter((t) => t.type === 'simple' && t.path.length === 1).map((t) => t.path[0]))
  const o: FactOverlap = { questions: probe.length, anyEdge: 0, everyEdge: 0, insideOne: 0, askedDirectly: 0 }
  for (const q of probe) {
    const edges = [...new Set(q.path)]
    if (edges.length === 0) continue
    if (edges.some((e) => onPath.has(e))) o.anyEdge++
    if (edges.every((e) => onPath.has(e))) {
      o.everyEdge++
      // Candidates: the training questions holding the probe's rarest edge; one of them must hold every other edge.
      const rarest = edges.reduce((a, e) => (onPath.get(e)!.length < onPath.get(a)!.length ? e : a))
      if (onPath.get(rarest)!.some((i) => { const p = new Set(train[i].path); return edges.every((e) => p.has(e)) })) o.insideOne++
    }
    if (edges.some((e) => direct.has(e))) o.askedDirectly++
  }
  return o
}

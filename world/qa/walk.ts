// world/qa/walk: acyclic walks of an exact length over unique verified steps (forward from a start, or backward to
// an end), randomised depth-first with an expansion budget. Knows nothing of words.
import type { Rng } from '../../infra/rng'
import { describeStart } from './describe'
import type { GraphIndex, Move } from './graph-index'
import type { ChainSpec } from './spec'

/** A sampled chain: entity indices nodes[0..h] and the moves between them (forward order). */
export interface Chain {
  nodes: number[]
  moves: Move[]
}

const DEFAULT_BUDGET = 400

/** A walk of exactly h unique steps from `start` that visits no entity twice and none in `avoid`. */
export function walkForward(g: GraphIndex, rng: Rng, start: number, h: number, avoid: ReadonlySet<number>, budget = DEFAULT_BUDGET): Chain | null {
  if (g.fwdDepth[start] < h || avoid.has(start)) return null
  const nodes = [start]
  const moves: Move[] = []
  const on = new Set<number>([start])
  let left = budget
  const dfs = (u: number, rest: number): boolean => {
    if (rest === 0) return true
    if (--left < 0) return false
    const opts = rng.shuffle(g.moves[u].filter((m) => !on.has(m.other) && !avoid.has(m.other) && g.fwdDepth[m.other] >= rest - 1))
    for (const m of opts) {
      on.add(m.other)
      nodes.push(m.other)
      moves.push(m)
      if (dfs(m.other, rest - 1)) return true
      on.delete(m.other)
      nodes.pop()
      moves.pop()
      if (left < 0) return false
    }
    return false
  }
  return dfs(start, h) ? { nodes, moves } : null
}

/** A walk of exactly h unique steps ending at `end` whose start can be described unambiguously. */
export function walkBackward(g: GraphIndex, rng: Rng, end: number, h: number, avoid: ReadonlySet<number>, budget = DEFAULT_BUDGET): Chain | null {
  if (g.backDepth[end] < h || avoid.has(end)) return null
  const rev = [end]
  const revMoves: Move[] = []
  const on = new Set<number>([end])
  let left = budget
  const dfs = (v: number, rest: number): boolean => {
    if (rest === 0) return describeStart(g, v) !== null
    if (--left < 0) return false
    const opts = rng.shuffle(g.back[v].filter((m) => !on.has(m.other) && !avoid.has(m.other) && g.backDepth[m.other] >= rest - 1))
    for (const m of opts) {
      on.add(m.other)
      rev.push(m.other)
      revMoves.push(m)
      if (dfs(m.other, rest - 1)) return true
      on.delete(m.other)
      rev.pop()
      revMoves.pop()
      if (left < 0) return false
    }
    return false
  }
  if (!dfs(end, h)) return null
  // Back moves store the step's own source in `other`; re-express them as forward moves.
  const nodes = rev.slice().reverse()
  const moves = revMoves
    .slice()
    .reverse()
    .map((m, i) => ({ edge: m.edge, rel: m.rel, dir: m.dir, other: nodes[i + 1] }))
  return { nodes, moves }
}

export function chainSpec(g: GraphIndex, c: Chain): ChainSpec {
  const desc = describeStart(g, c.nodes[0])
  if (!desc) throw new Error('chainSpec: start entity cannot be described unambiguously')
  return {
    start: g.entities[c.nodes[0]].id,
    desc,
    steps: c.moves.map((m) => ({ rel: m.rel, dir: m.dir })),
    edges: c.moves.map((m) => g.edges[m.edge].id),
  }
}

export function end(c: Chain): number {
  return c.nodes[c.nodes.length - 1]
}

// world/qa/parallel: Parallel QA — two independent chains (no shared edge, no shared entity but a common end for
// "same") whose end values are combined: comparison → an entity name, sum/difference → a number, same → yes/no.
import type { Rng } from '../../infra/rng'
import type { AttributeSpec } from '../types'
import { startText } from './describe'
import type { Draft } from './draft'
import { entityAliases, formatValue, numberAliases } from './format'
import { endsOfType, numericAttrs, type SamplerContext } from './sampler-context'
import type { ParallelOp } from './spec'
import { askCompare, askDifference, askSame, askSum, attrSpec, comparative, nestedNp, nounOf } from './verbalise'
import { chainSpec, end, walkBackward, walkForward, type Chain } from './walk'

const NONE: ReadonlySet<number> = new Set()
const TRIES = 12

export interface ChainPair {
  a: Chain
  b: Chain
  attr?: AttributeSpec
}

/**
 * Two independent chains of lengths hA and hB ending at distinct entities of one type that both have a numeric
 * attribute with different values (no ties). `kinds` limits the attribute kinds.
 */
export function sampleValuePair(ctx: SamplerContext, rng: Rng, hA: number, hB: number, kinds: AttributeSpec['kind'][]): ChainPair | null {
  const g = ctx.g
  const startsA = ctx.startsByDepth[hA]
  if (!startsA?.length) return null
  const a = walkForward(g, rng, rng.pick(startsA), hA, NONE)
  if (!a) return null
  const ea = end(a)
  const attrs = numericAttrs(ctx, ea, kinds)
  if (attrs.length === 0) return null
  const attr = rng.pick(attrs)
  const va = g.entities[ea].attrs[attr.name]
  const candidates = endsOfType(ctx, g.entities[ea].type, hB)
  if (candidates.length === 0) return null
  const avoid = new Set(a.nodes)
  for (let t = 0; t < TRIES; t++) {
    const eb = rng.pick(candidates)
    const vb = g.entities[eb].attrs[attr.name]
    if (typeof vb !== 'number' || vb === va || avoid.has(eb)) continue
    if (g.entities[eb].name.toLowerCase() === g.entities[ea].name.toLowerCase()) continue
    const b = walkBackward(g, rng, eb, hB, avoid)
    if (b) return { a, b, attr }
  }
  return null
}

/** Two independent chains ending at the same entity (same = true) or at two entities of one type. */
function sampleSamePair(ctx: SamplerContext, rng: Rng, hA: number, hB: number, same: boolean): ChainPair | null {
  const g = ctx.g
  if (same) {
    const ends = ctx.endsByDepth[Math.max(hA, hB)]
    if (!ends?.length) return null
    const e = rng.pick(ends)
    const a = walkBackward(g, rng, e, hA, NONE)
    if (!a) return null
    const b = walkBackward(g, rng, e, hB, new Set(a.nodes.slice(0, -1)))
    return b ? { a, b } : null
  }
  const startsA = ctx.startsByDepth[hA]
  if (!startsA?.length) return null
  const a = walkForward(g, rng, rng.pick(startsA), hA, NONE)
  if (!a) return null
  const candidates = endsOfType(ctx, g.entities[end(a)].type, hB)
  const avoid = new Set(a.nodes)
  for (let t = 0; t < TRIES && candidates.length > 0; t++) {
    const eb = rng.pick(candidates)
    if (avoid.has(eb)) continue
    const b = walkBackward(g, rng, eb, hB, avoid)
    if (b) return { a, b }
  }
  return null
}

export function sampleParallel(ctx: SamplerContext, rng: Rng, h: number, op: ParallelOp): Draft | null {
  if (h < 2) return null
  const hA = rng.int(1, h - 1)
  const hB = h - hA
  const g = ctx.g
  let pair: ChainPair | null
  if (op === 'same') pair = sampleSamePair(ctx, rng, hA, hB, rng.bool(0.5))
  else pair = sampleValuePair(ctx, rng, hA, hB, op === 'sum' ? ['int'] : op === 'difference' ? ['int', 'year'] : ['int', 'float', 'year'])
  if (!pair) return null
  let { a, b } = pair
  const ea = end(a)
  const eb = end(b)
  const type = g.entities[ea].type
  let answer: string
  let aliases: string[]
  let order: 'max' | 'min' | undefined
  const reads: [number, string][] = []
  const hidden: string[] = []
  const attr = pair.attr
  if (op !== 'same') {
    const va = g.entities[ea].attrs[attr!.name] as number
    const vb = g.entities[eb].attrs[attr!.name] as number
    reads.push([ea, attr!.name], [eb, attr!.name])
    hidden.push(formatValue(attr, va), formatValue(attr, vb))
    if (op === 'compare') {
      order = rng.bool() ? 'max' : 'min'
      const win = (order === 'max') === va > vb ? ea : eb
      answer = g.entities[win].name
      aliases = entityAliases(g.entities[win], g.types.get(type))
    } else if (op === 'sum') {
      answer = formatValue(attr, va + vb)
      aliases = numberAliases(va + vb)
    } else {
      if (va < vb) [a, b] = [b, a]
      const diff = Math.abs(va - vb)
      answer = formatValue(attr, diff)
      aliases = numberAliases(diff)
    }
  } else {
    const yes = ea === eb
    answer = yes ? 'yes' : 'no'
    aliases = [answer]
  }
  // Randomise which chain is mentioned first, except for difference where `a` must be the larger value.
  if (op !== 'difference' && rng.bool()) [a, b] = [b, a]
  const specA = chainSpec(g, a)
  const specB = chainSpec(g, b)
  const npA = nestedNp(g, rng, startText(g, a.nodes[0], specA.desc), specA.steps)
  const npB = nestedNp(g, rng, startText(g, b.nodes[0], specB.desc), specB.steps)
  const label = attr ? (attrSpec(g, type, attr.name)?.label ?? attr.name) : ''
  const q =
    op === 'compare'
      ? askCompare(rng, npA, npB, label, comparative(attr, order!, rng))
      : op === 'sum'
        ? askSum(rng, npA, npB, label)
        : op === 'difference'
          ? askDifference(rng, npA, npB, label, attr!.kind === 'year')
          : askSame(rng, npA, npB, nounOf(g, type))
  return {
    type: 'parallel',
    question: q.text,
    answer,
    aliases,
    edges: [...a.moves, ...b.moves].map((m) => m.edge),
    from: [...a.nodes.slice(0, -1), ...b.nodes.slice(0, -1)],
    starts: [a.nodes[0], b.nodes[0]],
    nodes: [...a.nodes, ...b.nodes],
    reads,
    hidden,
    meta: { op, attr: attr?.name, order, a: specA, b: specB, template: q.template },
  }
}

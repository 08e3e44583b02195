// world/qa/sampler-context: what every sampler shares — the graph index, describable starts by reachable depth,
// entities by type, and the sampling knobs. Built once per generation run.
import type { AttributeSpec } from '../types'
import { describeStart } from './describe'
import { isNumericKind } from './format'
import type { GraphIndex } from './graph-index'

export interface SamplingOptions {
  maxHops: number
  /** Probability that a chain question asks for an attribute of its end instead of its name. */
  attrTerminalRate: number
}

export interface SamplerContext {
  g: GraphIndex
  opts: SamplingOptions
  /** startsByDepth[h]: describable entities from which a unique walk of length h may exist. */
  startsByDepth: number[][]
  /** endsByDepth[h]: entities a unique walk of length h may end at. */
  endsByDepth: number[][]
  byType: Map<string, number[]>
  /** Entities of a type a unique walk of length h may end at (cached by `endsOfType`). */
  endsCache: Map<string, number[]>
}

export function endsOfType(ctx: SamplerContext, type: string, h: number): number[] {
  const key = `${type}\u0000${h}`
  let l = ctx.endsCache.get(key)
  if (!l) ctx.endsCache.set(key, (l = (ctx.byType.get(type) ?? []).filter((i) => ctx.g.backDepth[i] >= h)))
  return l
}

export function makeSamplerContext(g: GraphIndex, opts: SamplingOptions): SamplerContext {
  const startsByDepth: number[][] = []
  const endsByDepth: number[][] = []
  const describable = g.entities.map((_, i) => describeStart(g, i) !== null)
  for (let h = 0; h <= opts.maxHops; h++) {
    startsByDepth.push([])
    endsByDepth.push([])
  }
  const byType = new Map<string, number[]>()
  g.entities.forEach((e, i) => {
    for (let h = 1; h <= Math.min(opts.maxHops, g.fwdDepth[i]); h++) if (describable[i]) startsByDepth[h].push(i)
    for (let h = 1; h <= Math.min(opts.maxHops, g.backDepth[i]); h++) endsByDepth[h].push(i)
    const l = byType.get(e.type)
    if (l) l.push(i)
    else byType.set(e.type, [i])
  })
  return { g, opts, startsByDepth, endsByDepth, byType, endsCache: new Map() }
}

/** Numeric attributes (int/float/year) an entity has a value for. */
export function numericAttrs(ctx: SamplerContext, i: number, kinds: AttributeSpec['kind'][] = ['int', 'float', 'year']): AttributeSpec[] {
  const e = ctx.g.entities[i]
  return (ctx.g.types.get(e.type)?.attributes ?? []).filter((a) => isNumericKind(a.kind) && kinds.includes(a.kind) && typeof e.attrs[a.name] === 'number')
}

export function anyAttrs(ctx: SamplerContext, i: number): AttributeSpec[] {
  const e = ctx.g.entities[i]
  return (ctx.g.types.get(e.type)?.attributes ?? []).filter((a) => e.attrs[a.name] !== undefined)
}

// world/qa/simple: Simple QA — one linear chain of 1–12 unique verified steps from a named start entity, asking
// for the name or an attribute of the entity it ends at.
import type { Rng } from '../../infra/rng'
import { startText } from './describe'
import type { Draft } from './draft'
import { entityAliases, formatValue, valueAliases } from './format'
import { anyAttrs, type SamplerContext } from './sampler-context'
import type { Terminal } from './spec'
import { askChain } from './verbalise'
import { chainSpec, end, walkForward, type Chain } from './walk'

const NONE: ReadonlySet<number> = new Set()

/** Terminal of a chain question: the end's name, or (sometimes) one of its attributes. */
export function pickTerminal(ctx: SamplerContext, rng: Rng, endIdx: number): Terminal {
  if (rng.bool(ctx.opts.attrTerminalRate)) {
    const attrs = anyAttrs(ctx, endIdx)
    if (attrs.length > 0) return { kind: 'attr', attr: rng.pick(attrs).name }
  }
  return { kind: 'entity' }
}

/** Answer and aliases of a terminal read at entity i. */
export function terminalAnswer(ctx: SamplerContext, i: number, t: Terminal): { answer: string; aliases: string[]; reads: [number, string][] } {
  const e = ctx.g.entities[i]
  const type = ctx.g.types.get(e.type)
  if (t.kind === 'entity') return { answer: e.name, aliases: entityAliases(e, type), reads: [] }
  const spec = type?.attributes.find((a) => a.name === t.attr)
  return { answer: formatValue(spec, e.attrs[t.attr]), aliases: valueAliases(spec, e.attrs[t.attr]), reads: [[i, t.attr]] }
}

export function sampleSimple(ctx: SamplerContext, rng: Rng, h: number): Draft | null {
  const pool = ctx.startsByDepth[h]
  if (!pool || pool.length === 0) return null
  const chain = walkForward(ctx.g, rng, rng.pick(pool), h, NONE)
  if (!chain) return null
  return simpleFromChain(ctx, rng, chain)
}

export function simpleFromChain(ctx: SamplerContext, rng: Rng, chain: Chain): Draft {
  const g = ctx.g
  const spec = chainSpec(g, chain)
  const last = end(chain)
  const terminal = pickTerminal(ctx, rng, last)
  const { answer, aliases, reads } = terminalAnswer(ctx, last, terminal)
  const types = chain.nodes.map((n) => g.entities[n].type)
  const q = askChain(g, rng, startText(g, chain.nodes[0], spec.desc), spec.steps, types, terminal)
  return {
    type: 'simple',
    question: q.text,
    answer,
    aliases,
    edges: chain.moves.map((m) => m.edge),
    from: chain.nodes.slice(0, -1),
    starts: [chain.nodes[0]],
    nodes: chain.nodes,
    reads,
    hidden: [],
    meta: { chain: spec, terminal, template: q.template },
  }
}

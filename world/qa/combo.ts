// world/qa/combo: Combo QA — the answer of a first question is the subject or the parameter of a second:
// 'compare-chain' (the winner of a comparison is where a chain starts) and 'param' (a value read at the end of
// a chain selects the one entity of a type with that value, where a second chain starts).
import type { Rng } from '../../infra/rng'
import { startText } from './describe'
import type { Draft } from './draft'
import { formatValue } from './format'
import { valueKey } from './graph-index'
import { sampleValuePair } from './parallel'
import { numericAttrs, type SamplerContext } from './sampler-context'
import { pickTerminal, terminalAnswer } from './simple'
import { askChain, attrSpec, capitalise, comparative, nestedNp, nounOf } from './verbalise'
import { chainSpec, end, walkForward } from './walk'

const NONE: ReadonlySet<number> = new Set()

export function sampleCompareChain(ctx: SamplerContext, rng: Rng, h: number): Draft | null {
  if (h < 3) return null
  const g = ctx.g
  const hC = rng.int(1, h - 2)
  const h1 = h - hC
  const hA = rng.int(1, h1 - 1)
  const pair = sampleValuePair(ctx, rng, hA, h1 - hA, ['int', 'float', 'year'])
  if (!pair) return null
  let { a, b } = pair
  const attr = pair.attr!
  const ea = end(a)
  const eb = end(b)
  const va = g.entities[ea].attrs[attr.name] as number
  const vb = g.entities[eb].attrs[attr.name] as number
  const order = rng.bool() ? 'max' : 'min'
  const win = (order === 'max') === va > vb ? ea : eb
  const avoid = new Set([...a.nodes, ...b.nodes])
  avoid.delete(win)
  const c = walkForward(g, rng, win, hC, avoid)
  if (!c) return null
  const terminal = pickTerminal(ctx, rng, end(c))
  const { answer, aliases, reads } = terminalAnswer(ctx, end(c), terminal)
  if (rng.bool()) [a, b] = [b, a]
  const specA = chainSpec(g, a)
  const specB = chainSpec(g, b)
  const type = g.entities[win].type
  const noun = nounOf(g, type)
  const npA = nestedNp(g, rng, startText(g, a.nodes[0], specA.desc), specA.steps)
  const npB = nestedNp(g, rng, startText(g, b.nodes[0], specB.desc), specB.steps)
  const label = attrSpec(g, type, attr.name)?.label ?? attr.name
  const adj = comparative(attr, order, rng)
  const steps = c.moves.map((m) => ({ rel: m.rel, dir: m.dir }))
  const tail = askChain(g, rng, `that ${noun}`, steps, c.nodes.map((n) => g.entities[n].type), terminal)
  const k = rng.int(0, 1)
  const head =
    k === 0
      ? `Of ${npA} and ${npB}, take the ${noun} with the ${adj} ${label}.`
      : `Consider whichever of ${npA} and ${npB} has the ${adj} ${label}.`
  // The tail may itself start with "Consider …"; keep one framing sentence in front of it.
  const tailText = tail.text.startsWith('Consider ') ? `Then consider ${tail.text.slice('Consider '.length)}` : tail.text
  return {
    type: 'combo',
    question: `${head} ${tailText}`,
    answer,
    aliases,
    edges: [...a.moves, ...b.moves, ...c.moves].map((m) => m.edge),
    from: [...a.nodes.slice(0, -1), ...b.nodes.slice(0, -1), ...c.nodes.slice(0, -1)],
    starts: [a.nodes[0], b.nodes[0]],
    nodes: [...a.nodes, ...b.nodes, ...c.nodes],
    reads: [[ea, attr.name], [eb, attr.name], ...reads],
    hidden: [formatValue(attr, va), formatValue(attr, vb)],
    meta: {
      kind: 'compare-chain',
      part1: { attr: attr.name, order, a: specA, b: specB },
      part2: { steps, edges: c.moves.map((m) => g.edges[m.edge].id), terminal },
      template: `${k === 0 ? 'take' : 'whichever'}+${tail.template}`,
    },
  }
}

export function sampleParam(ctx: SamplerContext, rng: Rng, h: number): Draft | null {
  if (h < 1) return null
  const g = ctx.g
  const h1 = rng.int(1, h)
  const h2 = h - h1
  const starts = ctx.startsByDepth[h1]
  if (!starts?.length) return null
  const c1 = walkForward(g, rng, rng.pick(starts), h1, NONE)
  if (!c1) return null
  const e = end(c1)
  const E = g.entities[e]
  const onPath = new Set(c1.nodes)
  // Only years select across types ("the city founded in the year X was born"); other numbers would compare
  // unrelated quantities.
  for (const attr of rng.shuffle(numericAttrs(ctx, e, ['year']))) {
    const v = E.attrs[attr.name] as number
    const options: { type: string; attr: string; pick: number }[] = []
    for (const t of [...g.types.values()]) {
      for (const a2 of t.attributes) {
        if (a2.kind !== attr.kind || (t.name === E.type && a2.name === attr.name)) continue
        const hits = g.valueIndex.get(valueKey(t.name, a2.name, v))
        // The lookup must be one search finds (verify stage), like every edge the question walks.
        const found = (i: number) => g.view.lookups === undefined || g.view.lookups.has(`${g.entities[i].id}\u0000${a2.name}`)
        if (hits && hits.length === 1 && !onPath.has(hits[0]) && g.fwdDepth[hits[0]] >= h2 && found(hits[0])) options.push({ type: t.name, attr: a2.name, pick: hits[0] })
      }
    }
    if (options.length === 0) continue
    const o = rng.pick(options)
    const c2 = walkForward(g, rng, o.pick, h2, new Set(c1.nodes))
    if (!c2) continue
    const terminal = h2 === 0 ? ({ kind: 'entity' } as const) : pickTerminal(ctx, rng, end(c2))
    const { answer, aliases, reads } = terminalAnswer(ctx, end(c2), terminal)
    const spec1 = chainSpec(g, c1)
    const np1 = nestedNp(g, rng, startText(g, c1.nodes[0], spec1.desc), spec1.steps)
    const noun2 = nounOf(g, o.type)
    const label1 = attrSpec(g, E.type, attr.name)?.label ?? attr.name
    const label2 = attrSpec(g, o.type, o.attr)?.label ?? o.attr
    const steps = c2.moves.map((m) => ({ rel: m.rel, dir: m.dir }))
    let question: string
    let template: string
    if (h2 === 0) {
      const k = rng.int(0, 1)
      question =
        k === 0
          ? `Which ${noun2} has a ${label2} equal to the ${label1} of ${np1}?`
          : capitalise(`find the ${label1} of ${np1}. Which ${noun2} has exactly that ${label2}?`)
      template = k === 0 ? 'param/which-equal' : 'param/find'
    } else {
      const tail = askChain(g, rng, `that ${noun2}`, steps, c2.nodes.map((n) => g.entities[n].type), terminal)
      const tailText = tail.text.startsWith('Consider ') ? `Then consider ${tail.text.slice('Consider '.length)}` : tail.text
      question = `Consider the ${noun2} whose ${label2} equals the ${label1} of ${np1}. ${tailText}`
      template = `param/consider+${tail.template}`
    }
    return {
      type: 'combo',
      question,
      answer,
      aliases,
      edges: [...c1.moves, ...c2.moves].map((m) => m.edge),
      from: [...c1.nodes.slice(0, -1), ...c2.nodes.slice(0, -1)],
      starts: [c1.nodes[0]],
      nodes: [...c1.nodes, ...c2.nodes],
      reads: [[e, attr.name], [o.pick, o.attr], ...reads],
      hidden: [formatValue(attr, v)],
      meta: {
        kind: 'param',
        part1: { chain: spec1, attr: attr.name },
        pick: { type: o.type, attr: o.attr },
        part2: { steps, edges: c2.moves.map((m) => g.edges[m.edge].id), terminal },
        template,
      },
    }
  }
  return null
}

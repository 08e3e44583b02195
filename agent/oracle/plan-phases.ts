// agent/oracle/plan-phases: what the oracle does in each phase of its route — the calls it spends (through plan-moves and
// plan-blur), the checks it makes on what it read and the entities it leaves in the state's slots. A phase returns the
// phases to run before the rest of the route (a chain's start and hops), or the answer. Knows no route (plan-route).
import { attributeSpec, entityType, formatAttr, relation } from '../../world'
import type { Entity } from '../../world'
import { asReadBlur } from './oracle-blur'
import { resolveBlur } from './plan-blur'
import { openPage, readEvidence, readFor } from './plan-moves'
import { asChain, hops, type Phase, type Terminal } from './plan-route'
import type { PlanState } from './plan-state'
import { fail, type Calls } from './plan-types'

type PhaseOf<N extends Phase['name']> = Extract<Phase, { name: N }>

/** Run one phase: the phases to run next (before the rest of the route), or the answer. */
export function* runPhase(s: PlanState, p: Phase): Calls<Phase[] | string> {
  switch (p.name) {
    case 'chain':
      return chainStart(s, p)
    case 'open-start':
      if (!s.qa.question.includes(p.start.name)) fail(`the start entity ${p.start.name} is not named in the question`)
      yield* openPage(s, p.start, [p.start.name, `${entityType(p.start.type)?.noun ?? ''} ${p.start.name}`])
      return []
    case 'resolve-blur':
      yield* resolveBlur(s, p.start, p.blur)
      return []
    case 'hop':
      yield* hop(s, p)
      return []
    case 'read-value':
      yield* readFor(s, s.at(p.slot), p.attr)
      return []
    case 'pick-winner':
      pickWinner(s, p)
      return []
    case 'look-up':
      yield* lookUp(s, p)
      return []
    case 'answer':
      return answerOf(s, s.at('end'), p.terminal)
    case 'combine':
      return combine(s, p)
  }
}

/** The chain's start goes into its slot; then the start is found (by name or description) and the hops follow. */
function chainStart(s: PlanState, p: PhaseOf<'chain'>): Phase[] {
  const c = asChain(p.meta, p.where)
  const start = s.entity(c.start)
  s.slots.set(p.slot, start)
  const blur = asReadBlur(c.desc)
  const find: Phase = blur ? { name: 'resolve-blur', start, blur } : { name: 'open-start', start }
  return [find, ...hops(p.slot, c.steps, c.edges, p.answerEnd)]
}

function* hop(s: PlanState, p: PhaseOf<'hop'>): Calls<void> {
  const cur = s.at(p.slot)
  const e = s.k.edge(p.edge) ?? fail(`edge ${p.edge} of the gold path is not in the world`)
  const [here, there] = p.step.dir === 'fwd' ? [e.source, e.target] : [e.target, e.source]
  if (here !== cur.id) fail(`gold path broken at edge ${e.id}: expected to leave ${cur.name}`)
  const next = s.entity(there)
  const rel = relation(e.relation)
  if (s.lazy) yield* readEvidence(s, e.id)
  if (s.answerRead && p.answerEnd && s.evidenceRead(e.id, next)) {
    s.readOnly.add(next.id)
    s.slots.set(p.slot, next)
    return
  }
  const queries: string[] = []
  // The next name, once read in an accessed page, is what a reader would search for.
  if (s.readAnywhere(next.name)) queries.push(next.name)
  queries.push(...s.k.verifiedQueries(e.id))
  for (const kw of rel?.keywords ?? []) queries.push(`${cur.name} ${kw}`)
  yield* openPage(s, next, queries)
  if (s.lazy) yield* readEvidence(s, e.id)
  s.checkEvidence(e.id, next)
  s.slots.set(p.slot, next)
}

function pickWinner(s: PlanState, p: PhaseOf<'pick-winner'>): void {
  const [ea, eb] = [s.at('a'), s.at('b')]
  const va = s.readValue(ea, p.attr).value
  const vb = s.readValue(eb, p.attr).value
  s.slots.set('end', (p.order === 'max') === va > vb ? ea : eb)
}

/** Where to go next: the one entity of pick.type whose pick.attr has the value just read; found by searching it. */
function* lookUp(s: PlanState, p: PhaseOf<'look-up'>): Calls<void> {
  const { pick, part2 } = p
  const v = s.readValue(s.at('a'), p.attr)
  const found = s.k.entitiesWith(pick.type, pick.attr, v.value)
  if (found.length !== 1) fail(`${found.length} entities of type ${pick.type} have ${pick.attr} ${v.shown}; the question needs exactly one`)
  const e = found[0]
  if (part2.edges.length > 0) {
    const e0 = s.k.edge(part2.edges[0]) ?? fail(`edge ${part2.edges[0]} not in the world`)
    if ((part2.steps[0].dir === 'fwd' ? e0.source : e0.target) !== e.id) fail(`part 2 does not start at the ${pick.type} whose ${pick.attr} is ${v.shown}`)
  }
  const label = attributeSpec(e.type, pick.attr)?.label ?? pick.attr
  const noun = entityType(e.type)?.noun ?? e.type
  yield* openPage(s, e, [...(s.k.lookupQueries?.(e.id, pick.attr) ?? []), `${noun} ${label} ${v.shown}`, `${label} ${v.shown}`, `${noun} ${v.shown}`, v.shown])
  yield* readFor(s, e, pick.attr)
  s.readValue(e, pick.attr)
  s.slots.set('end', e)
}

const answerOf = (s: PlanState, e: Entity, t: Terminal): string =>
  t.kind === 'entity' ? (s.readOnly.has(e.id) ? e.name : s.titleOf(e)) : s.readValue(e, t.attr).shown

function combine(s: PlanState, p: PhaseOf<'combine'>): string {
  const [ea, eb] = [s.at('a'), s.at('b')]
  if (p.op === 'same') return ea.url === eb.url ? 'yes' : 'no'
  const attr = typeof p.attr === 'string' ? p.attr : fail('parallel QA without attr')
  const va = s.readValue(ea, attr).value
  const vb = s.readValue(eb, attr).value
  if (typeof va !== 'number' || typeof vb !== 'number') return fail(`parallel ${String(p.op)} over non-numeric ${attr}`)
  if (p.op === 'compare') {
    const order = p.order === 'min' ? 'min' : 'max'
    return s.titleOf((order === 'max') === va > vb ? ea : eb)
  }
  const spec = attributeSpec(ea.type, attr) ?? fail(`no attribute ${attr}`)
  if (p.op === 'sum') return formatAttr({ ...spec, unit: undefined }, va + vb)
  if (p.op === 'difference') return formatAttr({ ...spec, unit: undefined }, Math.abs(va - vb))
  return fail(`unknown parallel op ${String(p.op)}`)
}

// agent/oracle/plan-route: a question's route — the named phases the oracle plan goes through, in order, read from the
// QA meta (chains, steps, terminal, a parallel's op, a combo's parts). Meta is read as late as the old walk read it: a
// chain when the route reaches it, so a broken later chain fails after the calls before it. Runs nothing (plan-phases).
import type { Entity, EntityId, Qa } from '../../world'
import type { ReadBlur } from './oracle-blur'
import type { Slot } from './plan-state'
import { fail } from './plan-types'

type Dir = 'fwd' | 'inv'
export interface ChainStep {
  rel: string
  dir: Dir
}
export interface Chain {
  start: EntityId
  /** How the question gives the start (world/qa/spec StartDesc): only a blurred one changes the walk. */
  desc?: unknown
  steps: ChainStep[]
  edges: string[]
}
interface Continuation {
  steps: ChainStep[]
  edges: string[]
  terminal: Terminal
}
export type Terminal = { kind: 'entity' } | { kind: 'attr'; attr: string }
/** Combo 'param': the type and attribute whose value (read at the end of part 1) picks the entity part 2 starts at. */
export interface Pick {
  type: string
  attr: string
}

/** The plan's states. Each names what the oracle is doing; slots carry the entities from one phase to the next. */
export type Phase =
  /** Read a chain of the meta and put its start and its hops next (no call). */
  | { name: 'chain'; meta: unknown; where: string; slot: Slot; answerEnd: boolean }
  /** Search the start by the name the question gives and open its page. */
  | { name: 'open-start'; start: Entity }
  /** Find the start's page from the question's blurred description of it. */
  | { name: 'resolve-blur'; start: Entity; blur: ReadBlur }
  /** Follow one edge of the gold path from the slot's entity: find, open and check the next page (or, the answer's
   *  last hop under answer 'read', take the name from evidence already read). */
  | { name: 'hop'; slot: Slot; edge: string; step: ChainStep; answerEnd: boolean }
  /** Lazy paging: read the slot's page on until the attribute's printed value is in the text. */
  | { name: 'read-value'; slot: Slot; attr: string }
  /** Combo compare-chain: the chain end (a or b) whose value wins becomes the subject of part 2. */
  | { name: 'pick-winner'; attr: string; order: 'max' | 'min' }
  /** Combo param: the one entity whose attribute has the value read at a, found by searching for that value. */
  | { name: 'look-up'; attr: string; pick: Pick; part2: Continuation }
  /** The answer read at the end: the entity's title (or the name read) or its value. */
  | { name: 'answer'; terminal: Terminal }
  /** Parallel: the two chain ends combined by the question's operator. */
  | { name: 'combine'; op: unknown; attr: unknown; order: unknown }

export function asChain(v: unknown, where: string): Chain {
  const c = v as Chain
  if (!c || typeof c.start !== 'string' || !Array.isArray(c.steps) || !Array.isArray(c.edges) || c.steps.length !== c.edges.length)
    fail(`QA meta ${where} is not a chain {start, steps, edges}`)
  return c
}
function asTerminal(v: unknown, where: string): Terminal {
  const t = v as Terminal
  if (!t || (t.kind !== 'entity' && !(t.kind === 'attr' && typeof t.attr === 'string'))) fail(`QA meta ${where} has no terminal`)
  return t
}

/** One hop per edge, from the entity in `slot`; `answerEnd`: the last hop reaches the answer. */
export function hops(slot: Slot, steps: ChainStep[], edges: string[], answerEnd: boolean): Phase[] {
  return edges.map((edge, i) => ({ name: 'hop', slot, edge, step: steps[i], answerEnd: answerEnd && i === edges.length - 1 }))
}

const chain = (meta: unknown, where: string, slot: Slot, answerEnd = false): Phase => ({ name: 'chain', meta, where, slot, answerEnd })
const readValue = (slot: Slot, attr: string): Phase => ({ name: 'read-value', slot, attr })
/** The end of a route: read on for an attribute's value, then answer. */
const answer = (t: Terminal): Phase[] => [...(t.kind === 'attr' ? [readValue('end', t.attr)] : []), { name: 'answer', terminal: t }]

/** The route of a question: its phases in order (a 'chain' phase adds its start and hops when it is reached). */
export function routeOf(qa: Qa): Phase[] {
  const meta = qa.meta as Record<string, unknown>
  if (qa.type === 'simple') {
    const t = asTerminal(meta.terminal, 'terminal')
    return [chain(meta.chain, 'chain', 'end', t.kind === 'entity'), ...answer(t)]
  }
  if (qa.type === 'parallel') {
    const values = (slot: Slot): Phase[] => (typeof meta.attr === 'string' ? [readValue(slot, meta.attr)] : [])
    return [chain(meta.a, 'a', 'a'), ...values('a'), chain(meta.b, 'b', 'b'), ...values('b'), { name: 'combine', op: meta.op, attr: meta.attr, order: meta.order }]
  }
  if (qa.type === 'combo') return comboRoute(meta)
  return fail(`unknown QA type ${String(qa.type)}`)
}

/** Combo: part 1 finds the subject (a comparison's winner, or the entity a value picks), part 2 walks on from it. */
function comboRoute(meta: Record<string, unknown>): Phase[] {
  const p2 = meta.part2 as Continuation
  if (!p2 || !Array.isArray(p2.steps) || !Array.isArray(p2.edges)) fail('combo QA without part2')
  const t2 = asTerminal(p2.terminal, 'part2.terminal')
  let part1: Phase[]
  if (meta.kind === 'compare-chain') {
    // A missing part1 fails as its first chain (asChain), before any of these fields is used.
    const p1 = meta.part1 as { attr: string; order: 'max' | 'min'; a: unknown; b: unknown }
    part1 = [chain(p1?.a, 'part1.a', 'a'), readValue('a', p1?.attr), chain(p1?.b, 'part1.b', 'b'), readValue('b', p1?.attr), { name: 'pick-winner', attr: p1?.attr, order: p1?.order }]
  } else if (meta.kind === 'param') {
    const p1 = meta.part1 as { chain: unknown; attr: string }
    part1 = [chain(p1?.chain, 'part1.chain', 'a'), readValue('a', p1?.attr), { name: 'look-up', attr: p1?.attr, pick: meta.pick as Pick, part2: p2 }]
  } else return fail(`unknown combo kind ${String(meta.kind)}`)
  return [...part1, ...hops('end', p2.steps, p2.edges, t2.kind === 'entity'), ...answer(t2)]
}

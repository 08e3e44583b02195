// agent/oracle/oracle-plan: the oracle's walk as a coroutine — yields tool calls, receives the env's observation
// text, returns the final answer. It follows the gold path (QA meta: chains, steps, continuation) and finds every
// page by searching (verified queries, names it has read, name + relation keyword), opens it with access and
// checks the hop's evidence sentence and the next entity's name in the accessed text. Answers come from what it
// read: page titles and attribute values found in accessed text (never Qa.answer). Knows no protocol or HTTP.
import { attributeSpec, entityType, formatAttr, relation } from '../../world'
import type { EntityId, Entity, Qa } from '../../world'
import { asReadBlur } from './oracle-blur'
import { resolveBlur } from './plan-blur'
import { openPage, readEvidence, readFor } from './plan-moves'
import { PlanState } from './plan-state'
import { fail, ORACLE_MAX_QUERIES_PER_PAGE, type Calls, type OracleCall, type OracleKnowledge, type OraclePlanOptions } from './plan-types'

export { OracleFailure, ORACLE_MAX_QUERIES_PER_PAGE, resultUrls } from './plan-types'
export type { OracleCall, OracleKnowledge, OraclePlanOptions } from './plan-types'

type Dir = 'fwd' | 'inv'
interface Chain {
  start: EntityId
  /** How the question gives the start (world/qa/spec StartDesc): only a blurred one changes the walk. */
  desc?: unknown
  steps: { rel: string; dir: Dir }[]
  edges: string[]
}
interface Continuation {
  steps: { rel: string; dir: Dir }[]
  edges: string[]
  terminal: Terminal
}
type Terminal = { kind: 'entity' } | { kind: 'attr'; attr: string }

function asChain(v: unknown, where: string): Chain {
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

/** The plan for one QA. Drive it with gen.next(observationText); it returns the answer or throws OracleFailure. */
export function* oraclePlan(qa: Qa, k: OracleKnowledge, opts: OraclePlanOptions = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE }): Generator<OracleCall, string, string> {
  const s = new PlanState(qa, k, opts)

  /** Walk steps from an opened entity; returns the entity reached. `answerEnd`: the entity reached is the answer. */
  function* walk(from: Entity, steps: Chain['steps'], edges: string[], answerEnd = false): Calls<Entity> {
    let cur = from
    for (let i = 0; i < edges.length; i++) {
      const e = k.edge(edges[i]) ?? fail(`edge ${edges[i]} of the gold path is not in the world`)
      const dir = steps[i].dir
      const [here, there] = dir === 'fwd' ? [e.source, e.target] : [e.target, e.source]
      if (here !== cur.id) fail(`gold path broken at edge ${e.id}: expected to leave ${cur.name}`)
      const next = s.entity(there)
      const rel = relation(e.relation)
      const queries: string[] = []
      if (s.lazy) yield* readEvidence(s, e.id)
      if (s.answerRead && answerEnd && i === edges.length - 1 && s.evidenceRead(e.id, next)) {
        s.readOnly.add(next.id)
        cur = next
        continue
      }
      // The next name, once read in an accessed page, is what a reader would search for.
      if (s.readAnywhere(next.name)) queries.push(next.name)
      queries.push(...k.verifiedQueries(e.id))
      for (const kw of rel?.keywords ?? []) queries.push(`${cur.name} ${kw}`)
      yield* openPage(s, next, queries)
      if (s.lazy) yield* readEvidence(s, e.id)
      s.checkEvidence(e.id, next)
      cur = next
    }
    return cur
  }

  function* chain(c: Chain, answerEnd = false): Calls<Entity> {
    const start = s.entity(c.start)
    const blur = asReadBlur(c.desc)
    if (blur) {
      yield* resolveBlur(s, start, blur)
      return yield* walk(start, c.steps, c.edges, answerEnd)
    }
    if (!qa.question.includes(start.name)) fail(`the start entity ${start.name} is not named in the question`)
    yield* openPage(s, start, [start.name, `${entityType(start.type)?.noun ?? ''} ${start.name}`])
    return yield* walk(start, c.steps, c.edges, answerEnd)
  }

  const terminal = (e: Entity, t: Terminal): string => (t.kind === 'entity' ? (s.readOnly.has(e.id) ? e.name : s.titleOf(e)) : s.readValue(e, t.attr).shown)

  const meta = qa.meta as Record<string, unknown>
  if (qa.type === 'simple') {
    const t = asTerminal(meta.terminal, 'terminal')
    const end = yield* chain(asChain(meta.chain, 'chain'), t.kind === 'entity')
    if (t.kind === 'attr') yield* readFor(s, end, t.attr)
    return terminal(end, t)
  }
  if (qa.type === 'parallel') {
    const op = meta.op
    const ea = yield* chain(asChain(meta.a, 'a'))
    if (typeof meta.attr === 'string') yield* readFor(s, ea, meta.attr)
    const eb = yield* chain(asChain(meta.b, 'b'))
    if (typeof meta.attr === 'string') yield* readFor(s, eb, meta.attr)
    if (op === 'same') return ea.url === eb.url ? 'yes' : 'no'
    const attr = typeof meta.attr === 'string' ? meta.attr : fail('parallel QA without attr')
    const va = s.readValue(ea, attr).value
    const vb = s.readValue(eb, attr).value
    if (typeof va !== 'number' || typeof vb !== 'number') return fail(`parallel ${String(op)} over non-numeric ${attr}`)
    if (op === 'compare') {
      const order = meta.order === 'min' ? 'min' : 'max'
      return s.titleOf((order === 'max') === va > vb ? ea : eb)
    }
    const spec = attributeSpec(ea.type, attr) ?? fail(`no attribute ${attr}`)
    if (op === 'sum') return formatAttr({ ...spec, unit: undefined }, va + vb)
    if (op === 'difference') return formatAttr({ ...spec, unit: undefined }, Math.abs(va - vb))
    return fail(`unknown parallel op ${String(op)}`)
  }
  if (qa.type === 'combo') {
    const p2 = meta.part2 as Continuation
    if (!p2 || !Array.isArray(p2.steps) || !Array.isArray(p2.edges)) fail('combo QA without part2')
    const t2 = asTerminal(p2.terminal, 'part2.terminal')
    let subject: Entity
    if (meta.kind === 'compare-chain') {
      const p1 = meta.part1 as { attr: string; order: 'max' | 'min'; a: unknown; b: unknown }
      const ea = yield* chain(asChain(p1?.a, 'part1.a'))
      yield* readFor(s, ea, p1.attr)
      const eb = yield* chain(asChain(p1?.b, 'part1.b'))
      yield* readFor(s, eb, p1.attr)
      const va = s.readValue(ea, p1.attr).value
      const vb = s.readValue(eb, p1.attr).value
      subject = (p1.order === 'max') === va > vb ? ea : eb
    } else if (meta.kind === 'param') {
      const p1 = meta.part1 as { chain: unknown; attr: string }
      const pick = meta.pick as { type: string; attr: string }
      const x = yield* chain(asChain(p1?.chain, 'part1.chain'))
      yield* readFor(s, x, p1.attr)
      const v = s.readValue(x, p1.attr)
      // Where to go next: the one entity of pick.type whose pick.attr has the value just read.
      const found = k.entitiesWith(pick.type, pick.attr, v.value)
      if (found.length !== 1) fail(`${found.length} entities of type ${pick.type} have ${pick.attr} ${v.shown}; the question needs exactly one`)
      const p = found[0]
      if (p2.edges.length > 0) {
        const e0 = k.edge(p2.edges[0]) ?? fail(`edge ${p2.edges[0]} not in the world`)
        if ((p2.steps[0].dir === 'fwd' ? e0.source : e0.target) !== p.id) fail(`part 2 does not start at the ${pick.type} whose ${pick.attr} is ${v.shown}`)
      }
      const spec = attributeSpec(p.type, pick.attr)
      const noun = entityType(p.type)?.noun ?? p.type
      yield* openPage(s, p, [...(k.lookupQueries?.(p.id, pick.attr) ?? []), `${noun} ${spec?.label ?? pick.attr} ${v.shown}`, `${spec?.label ?? pick.attr} ${v.shown}`, `${noun} ${v.shown}`, v.shown])
      yield* readFor(s, p, pick.attr)
      s.readValue(p, pick.attr)
      subject = p
    } else return fail(`unknown combo kind ${String(meta.kind)}`)
    const end = yield* walk(subject, p2.steps, p2.edges, t2.kind === 'entity')
    if (t2.kind === 'attr') yield* readFor(s, end, t2.attr)
    return terminal(end, t2)
  }
  return fail(`unknown QA type ${String(qa.type)}`)
}

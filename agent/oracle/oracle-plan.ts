// agent/oracle/oracle-plan: the oracle's walk as a coroutine — yields tool calls, receives the env's observation
// text, returns the final answer. It follows the gold path (QA meta: chains, steps, continuation) and finds every
// page by searching (verified queries, names it has read, name + relation keyword), opens it with access and
// checks the hop's evidence sentence and the next entity's name in the accessed text. Answers come from what it
// read: page titles and attribute values found in accessed text (never Qa.answer). Knows no protocol or HTTP.
import { formatAttr } from '../../world'
import { attributeSpec, entityType, relation } from '../../world'
import type { AttrValue, Edge, Entity, EntityId, Qa } from '../../world'
import { asReadBlur, blurMismatch, namedOnPage, type ReadBlur } from './oracle-blur'

/** What the oracle may look up in the world: the graph (to follow the gold path) and verification queries. */
export interface OracleKnowledge {
  entity(id: string): Entity | undefined
  edge(id: string): Edge | undefined
  /** Queries verification ran for an edge whose results held the edge's target page, best rank first. */
  verifiedQueries(edgeId: string): string[]
  /** Entities of a type whose attribute has this value (Combo 'param' questions: where the oracle must go next). */
  entitiesWith(type: string, attr: string, value: AttrValue): Entity[]
  /** Queries lookup verification ran for finding an entity by this attribute's value whose results held its page. */
  lookupQueries?(entityId: string, attr: string): string[]
  /** Every entity of a type (a two-step blurred start: which names on a neighbour's page are candidates). */
  entitiesOfType?(type: string): Entity[]
}

export type OracleCall = { name: 'search'; arguments: { query: string } } | { name: 'access'; arguments: { url: string; page?: number } }

export class OracleFailure extends Error {}

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

const fail = (msg: string): never => {
  throw new OracleFailure(msg)
}

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

/** Parse one observation of the hermes protocol: URLs of a search result list. */
export function resultUrls(obs: string): string[] {
  const out: string[] = []
  for (const m of obs.matchAll(/^URL: (.+)$/gm)) out.push(m[1])
  return out
}

/** Search attempts per page before the oracle gives up: the default of every plan (check, SFT, tests). */
export const ORACLE_MAX_QUERIES_PER_PAGE = 6

export interface OraclePlanOptions {
  /** Search attempts per page before giving up (default 6). */
  maxQueriesPerPage: number
  /** How a paged document is read: 'all' (every page when it is opened: the world check's default) or 'needed'
   *  (page 1, then further pages in order only until what the hop needs — its evidence sentence, the value read —
   *  is in the text: a reader stops reading when it has found the fact; shorter SFT demonstrations). */
  pages?: 'all' | 'needed'
  /** An entity answer at the end of a chain (Simple, Combo part 2): 'open' (default: the answer's own page is found
   *  and opened, as the world check proves) or 'read' (when the last hop's evidence sentence naming the answer is
   *  already in an opened page, answer with that name and open nothing more — a reader stops when it has read the
   *  answer: a one-hop demonstration is search, access, answer, 3 turns instead of 5). */
  answer?: 'open' | 'read'
}

/** The plan for one QA. Drive it with gen.next(observationText); it returns the answer or throws OracleFailure. */
export function* oraclePlan(qa: Qa, k: OracleKnowledge, opts: OraclePlanOptions = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE }): Generator<OracleCall, string, string> {
  /** url → accessed text (title on the first line); pages read of a paged document, of how many. */
  const opened = new Map<string, string>()
  const paging = new Map<string, { read: number; of: number }>()
  const lazy = opts.pages === 'needed'
  const answerRead = opts.answer === 'read'
  if (opts.answer !== undefined && opts.answer !== 'open' && opts.answer !== 'read') fail(`oracle answer mode must be open or read, got ${String(opts.answer)}`)
  /** Answers named by an evidence sentence already read (answer 'read'): their pages are never opened. */
  const readOnly = new Set<string>()
  const ent = (id: string): Entity => k.entity(id) ?? fail(`entity ${id} of the gold path is not in the world`)
  const readAnywhere = (s: string) => {
    for (const t of opened.values()) if (t.includes(s)) return true
    return false
  }

  function* open(e: Entity, queries: string[]): Generator<OracleCall, string, string> {
    const have = opened.get(e.url)
    if (have !== undefined) return have
    const tried: string[] = []
    for (const q of queries) {
      const query = q.trim()
      if (!query || tried.includes(query)) continue
      if (tried.length >= opts.maxQueriesPerPage) break
      tried.push(query)
      const obs: string = yield { name: 'search', arguments: { query } }
      if (!resultUrls(obs).includes(e.url)) continue
      let page: string = yield { name: 'access', arguments: { url: e.url } }
      if (!page.startsWith(`${e.name}\nURL: ${e.url}\n`)) fail(`access ${e.url} did not return the page of ${e.name}: ${page.slice(0, 120)}`)
      // A long document comes in pages (the env's paged access): read them all, in order (or, lazily, on demand).
      opened.set(e.url, page)
      paging.set(e.url, { read: 1, of: Number(/^Page 1 of (\d+)\b/m.exec(page)?.[1] ?? 1) })
      if (!lazy) yield* readUntil(e.url, () => false)
      return opened.get(e.url) as string
    }
    return fail(`no search found the page of ${e.name} (${e.url}); queries tried: ${tried.map((t) => JSON.stringify(t)).join(', ') || 'none'}`)
  }

  /** Read the next pages of an opened document, in order, until `done(text)` holds or none is left. */
  function* readUntil(url: string, done: (text: string) => boolean): Generator<OracleCall, string, string> {
    let text = opened.get(url)
    const pg = paging.get(url)
    if (text === undefined || pg === undefined) return text ?? ''
    while (!done(text) && pg.read < pg.of) {
      const p = ++pg.read
      const more: string = yield { name: 'access', arguments: { url, page: p } }
      if (!more.includes(`\nPage ${p} of ${pg.of}`)) fail(`access ${url} page ${p} did not return that page: ${more.slice(0, 120)}`)
      text += `\n${more}`
      opened.set(url, text)
    }
    return text
  }

  /** Lazy paging: read the opened pages that hold an edge's evidence sentences until they are in the text. */
  function* readEvidence(edgeId: string): Generator<OracleCall, void, string> {
    const hops = qa.path.flatMap((p, i) => (p === edgeId ? [i] : []))
    for (const ev of qa.evidence) if (hops.includes(ev.hop) && opened.has(ev.url)) yield* readUntil(ev.url, (t) => t.includes(ev.sentence))
  }

  /** Check the evidence of an edge of the path: its sentence in the accessed text of its page, naming `next`. */
  const checkEvidence = (edgeId: string, next: Entity) => {
    const hops = qa.path.flatMap((p, i) => (p === edgeId ? [i] : []))
    const evs = qa.evidence.filter((ev) => hops.includes(ev.hop))
    if (evs.length === 0) fail(`QA has no evidence for edge ${edgeId}`)
    for (const ev of evs) {
      const text = opened.get(ev.url) ?? fail(`evidence page ${ev.url} of edge ${edgeId} was never opened`)
      if (!text.includes(ev.sentence)) fail(`evidence sentence of edge ${edgeId} is not in the accessed text of ${ev.url}: ${JSON.stringify(ev.sentence)}`)
    }
    // The next entity must be named by the fact, or the fact must stand in the next entity's own page.
    if (!evs.some((ev) => ev.sentence.includes(next.name) || ev.url === next.url))
      fail(`no evidence sentence of edge ${edgeId} names ${next.name}`)
  }

  /** answer 'read': the edge's evidence sentences are all in opened text and one names `next`. */
  const evidenceRead = (edgeId: string, next: Entity): boolean => {
    const hops = qa.path.flatMap((p, i) => (p === edgeId ? [i] : []))
    const evs = qa.evidence.filter((ev) => hops.includes(ev.hop))
    return evs.length > 0 && evs.every((ev) => opened.get(ev.url)?.includes(ev.sentence) === true) && evs.some((ev) => ev.sentence.includes(next.name))
  }

  /** Walk steps from an opened entity; returns the entity reached. `answerEnd`: the entity reached is the answer. */
  function* walk(from: Entity, steps: Chain['steps'], edges: string[], answerEnd = false): Generator<OracleCall, Entity, string> {
    let cur = from
    for (let i = 0; i < edges.length; i++) {
      const e = k.edge(edges[i]) ?? fail(`edge ${edges[i]} of the gold path is not in the world`)
      const dir = steps[i].dir
      const [here, there] = dir === 'fwd' ? [e.source, e.target] : [e.target, e.source]
      if (here !== cur.id) fail(`gold path broken at edge ${e.id}: expected to leave ${cur.name}`)
      const next = ent(there)
      const rel = relation(e.relation)
      const queries: string[] = []
      if (lazy) yield* readEvidence(e.id)
      if (answerRead && answerEnd && i === edges.length - 1 && evidenceRead(e.id, next)) {
        readOnly.add(next.id)
        cur = next
        continue
      }
      // The next name, once read in an accessed page, is what a reader would search for.
      if (readAnywhere(next.name)) queries.push(next.name)
      queries.push(...k.verifiedQueries(e.id))
      for (const kw of rel?.keywords ?? []) queries.push(`${cur.name} ${kw}`)
      yield* open(next, queries)
      if (lazy) yield* readEvidence(e.id)
      checkEvidence(e.id, next)
      cur = next
    }
    return cur
  }

  /** A blurred start: search on the description's cue queries, open the result pages in rank order and take the first
   *  whose text fits every cue; it must be the gold start (else the description reads as fitting another page). */
  function* resolveBlur(start: Entity, d: ReadBlur): Generator<OracleCall, void, string> {
    const shown = [d.text, d.text.charAt(0).toUpperCase() + d.text.slice(1)]
    if (!shown.some((t) => qa.question.includes(t))) fail(`the blurred description of ${start.name} is not in the question`)
    const rejected = new Set<string>()
    const tried: string[] = []
    for (const q of d.queries) {
      const query = q.trim()
      if (!query || tried.includes(query)) continue
      if (tried.length >= opts.maxQueriesPerPage) break
      tried.push(query)
      const obs: string = yield { name: 'search', arguments: { query } }
      const urls = resultUrls(obs)
      const via = d.via !== undefined ? k.entity(d.via) : undefined
      if (via && urls.includes(via.url)) {
        // Two-step: the neighbour's page lists the few entities of the type it is linked to; open each and read it.
        if (!opened.has(via.url)) {
          const page: string = yield { name: 'access', arguments: { url: via.url } }
          opened.set(via.url, page)
          paging.set(via.url, { read: 1, of: Number(/^Page 1 of (\d+)\b/m.exec(page)?.[1] ?? 1) })
        }
        const listing = yield* readUntil(via.url, () => false)
        const typeCue = d.cues.find((c) => c.kind === 'type')
        const pool = typeCue && typeCue.kind === 'type' ? (k.entitiesOfType?.(typeCue.type) ?? []) : []
        for (const cand of namedOnPage(listing, pool)) {
          if (cand.url === via.url || rejected.has(cand.url)) continue
          if (!opened.has(cand.url)) {
            const found: string = yield { name: 'search', arguments: { query: cand.name } }
            if (!resultUrls(found).includes(cand.url)) continue
            const page: string = yield { name: 'access', arguments: { url: cand.url } }
            opened.set(cand.url, page)
            paging.set(cand.url, { read: 1, of: Number(/^Page 1 of (\d+)\b/m.exec(page)?.[1] ?? 1) })
          }
          const text = yield* readUntil(cand.url, (t) => blurMismatch(t, d.cues, k.entity) === null)
          if (blurMismatch(text, d.cues, k.entity) !== null) {
            rejected.add(cand.url)
            continue
          }
          if (cand.url !== start.url) fail(`the blurred description reads as fitting ${cand.name} (${cand.url}), not ${start.name}`)
          if (!lazy) yield* readUntil(cand.url, () => false)
          return
        }
        rejected.add(via.url)
      }
      for (const url of urls) {
        if (rejected.has(url)) continue
        if (!opened.has(url)) {
          const page: string = yield { name: 'access', arguments: { url } }
          if (!page.includes(`\nURL: ${url}\n`)) fail(`access ${url} did not return its page: ${page.slice(0, 120)}`)
          opened.set(url, page)
          paging.set(url, { read: 1, of: Number(/^Page 1 of (\d+)\b/m.exec(page)?.[1] ?? 1) })
        }
        // Read on (paged documents) until the page fits or there is nothing more to read.
        const text = yield* readUntil(url, (t) => blurMismatch(t, d.cues, k.entity) === null)
        if (blurMismatch(text, d.cues, k.entity) !== null) {
          rejected.add(url)
          continue
        }
        if (url !== start.url) fail(`the blurred description reads as fitting ${text.split('\n')[0]} (${url}), not ${start.name}`)
        if (!text.startsWith(`${start.name}\nURL: ${start.url}\n`)) fail(`access ${url} did not return the page of ${start.name}`)
        if (!lazy) yield* readUntil(url, () => false)
        return
      }
    }
    fail(`no search found the page of ${start.name} (${start.url}) from its blurred description; queries tried: ${tried.map((t) => JSON.stringify(t)).join(', ') || 'none'}`)
  }

  function* chain(c: Chain, answerEnd = false): Generator<OracleCall, Entity, string> {
    const start = ent(c.start)
    const blur = asReadBlur(c.desc)
    if (blur) {
      yield* resolveBlur(start, blur)
      return yield* walk(start, c.steps, c.edges, answerEnd)
    }
    if (!qa.question.includes(start.name)) fail(`the start entity ${start.name} is not named in the question`)
    yield* open(start, [start.name, `${entityType(start.type)?.noun ?? ''} ${start.name}`])
    return yield* walk(start, c.steps, c.edges, answerEnd)
  }

  /** A value of an opened entity's page, as the page prints it (the number the oracle then uses). */
  const readValue = (e: Entity, attr: string): { shown: string; value: number | string } => {
    const spec = attributeSpec(e.type, attr) ?? fail(`type ${e.type} has no attribute ${attr}`)
    const v = e.attrs[attr]
    if (v === undefined) fail(`${e.name} has no ${attr}`)
    const text = opened.get(e.url) ?? fail(`page of ${e.name} was never opened`)
    const printed = formatAttr(spec, v)
    if (!text.includes(printed)) fail(`the ${spec.label} of ${e.name} (${printed}) is not in its accessed page`)
    return { shown: formatAttr({ ...spec, unit: undefined }, v), value: v }
  }
  /** Lazy paging: read an opened entity's pages until the printed value of `attr` is in the text. */
  function* readFor(e: Entity, attr: string): Generator<OracleCall, void, string> {
    const spec = attributeSpec(e.type, attr)
    const v = e.attrs[attr]
    if (lazy && spec && v !== undefined) yield* readUntil(e.url, (t) => t.includes(formatAttr(spec, v)))
  }
  const titleOf = (e: Entity): string => (opened.get(e.url) ?? fail(`page of ${e.name} was never opened`)).split('\n')[0]

  const terminal = (e: Entity, t: Terminal): string => (t.kind === 'entity' ? (readOnly.has(e.id) ? e.name : titleOf(e)) : readValue(e, t.attr).shown)

  const meta = qa.meta as Record<string, unknown>
  if (qa.type === 'simple') {
    const t = asTerminal(meta.terminal, 'terminal')
    const end = yield* chain(asChain(meta.chain, 'chain'), t.kind === 'entity')
    if (t.kind === 'attr') yield* readFor(end, t.attr)
    return terminal(end, t)
  }
  if (qa.type === 'parallel') {
    const op = meta.op
    const ea = yield* chain(asChain(meta.a, 'a'))
    if (typeof meta.attr === 'string') yield* readFor(ea, meta.attr)
    const eb = yield* chain(asChain(meta.b, 'b'))
    if (typeof meta.attr === 'string') yield* readFor(eb, meta.attr)
    if (op === 'same') return ea.url === eb.url ? 'yes' : 'no'
    const attr = typeof meta.attr === 'string' ? meta.attr : fail('parallel QA without attr')
    const va = readValue(ea, attr).value
    const vb = readValue(eb, attr).value
    if (typeof va !== 'number' || typeof vb !== 'number') return fail(`parallel ${String(op)} over non-numeric ${attr}`)
    if (op === 'compare') {
      const order = meta.order === 'min' ? 'min' : 'max'
      return titleOf((order === 'max') === va > vb ? ea : eb)
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
      yield* readFor(ea, p1.attr)
      const eb = yield* chain(asChain(p1?.b, 'part1.b'))
      yield* readFor(eb, p1.attr)
      const va = readValue(ea, p1.attr).value
      const vb = readValue(eb, p1.attr).value
      subject = (p1.order === 'max') === va > vb ? ea : eb
    } else if (meta.kind === 'param') {
      const p1 = meta.part1 as { chain: unknown; attr: string }
      const pick = meta.pick as { type: string; attr: string }
      const x = yield* chain(asChain(p1?.chain, 'part1.chain'))
      yield* readFor(x, p1.attr)
      const v = readValue(x, p1.attr)
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
      yield* open(p, [...(k.lookupQueries?.(p.id, pick.attr) ?? []), `${noun} ${spec?.label ?? pick.attr} ${v.shown}`, `${spec?.label ?? pick.attr} ${v.shown}`, `${noun} ${v.shown}`, v.shown])
      yield* readFor(p, pick.attr)
      readValue(p, pick.attr)
      subject = p
    } else return fail(`unknown combo kind ${String(meta.kind)}`)
    const end = yield* walk(subject, p2.steps, p2.edges, t2.kind === 'entity')
    if (t2.kind === 'attr') yield* readFor(end, t2.attr)
    return terminal(end, t2)
  }
  return fail(`unknown QA type ${String(qa.type)}`)
}

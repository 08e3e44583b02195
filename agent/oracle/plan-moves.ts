// agent/oracle/plan-moves: the oracle's moves that cost tool calls — find an entity's page by searching and open it,
// read a paged document on until something is in its text. Each records what it read in the plan's state; none decides
// where the walk goes (plan-phases does).
import { attributeSpec, formatAttr } from '../../world'
import type { Entity } from '../../world'
import type { PlanState } from './plan-state'
import { fail, resultUrls, type Calls, type OracleCall } from './plan-types'

export const searchCall = (query: string): OracleCall => ({ name: 'search', arguments: { query } })
/** Page 1 of a document (no page argument: the env's access shows page 1 and the page count). */
export const accessCall = (url: string): OracleCall => ({ name: 'access', arguments: { url } })

/** The queries to try, in order: trimmed, each once, at most `max`; every query tried is appended to `tried`. */
export function* attempts(queries: readonly string[], max: number, tried: string[]): Generator<string, void, undefined> {
  for (const q of queries) {
    const query = q.trim()
    if (!query || tried.includes(query)) continue
    if (tried.length >= max) break
    tried.push(query)
    yield query
  }
}

export const triedText = (tried: readonly string[]): string => tried.map((t) => JSON.stringify(t)).join(', ') || 'none'

/** Search until a result lists the entity's page, open it (read every page unless lazy); its accessed text so far. */
export function* openPage(s: PlanState, e: Entity, queries: string[]): Calls<string> {
  const have = s.opened.get(e.url)
  if (have !== undefined) return have
  const tried: string[] = []
  for (const query of attempts(queries, s.opts.maxQueriesPerPage, tried)) {
    const obs: string = yield searchCall(query)
    if (!resultUrls(obs).includes(e.url)) continue
    const page: string = yield accessCall(e.url)
    if (!page.startsWith(`${e.name}\nURL: ${e.url}\n`)) fail(`access ${e.url} did not return the page of ${e.name}: ${page.slice(0, 120)}`)
    // A long document comes in pages (the env's paged access): read them all, in order (or, lazily, on demand).
    s.record(e.url, page)
    if (!s.lazy) yield* readUntil(s, e.url, () => false)
    return s.opened.get(e.url) as string
  }
  return fail(`no search found the page of ${e.name} (${e.url}); queries tried: ${triedText(tried)}`)
}

/** Read the next pages of an opened document, in order, until `done(text)` holds or none is left. */
export function* readUntil(s: PlanState, url: string, done: (text: string) => boolean): Calls<string> {
  let text = s.opened.get(url)
  const pg = s.paging.get(url)
  if (text === undefined || pg === undefined) return text ?? ''
  while (!done(text) && pg.read < pg.of) {
    const p = ++pg.read
    const more: string = yield { name: 'access', arguments: { url, page: p } }
    if (!more.includes(`\nPage ${p} of ${pg.of}`)) fail(`access ${url} page ${p} did not return that page: ${more.slice(0, 120)}`)
    text += `\n${more}`
    s.opened.set(url, text)
  }
  return text
}

/** Lazy paging: read the opened pages that hold an edge's evidence sentences until they are in the text. */
export function* readEvidence(s: PlanState, edgeId: string): Calls<void> {
  for (const ev of s.evidenceOf(edgeId)) if (s.opened.has(ev.url)) yield* readUntil(s, ev.url, (t) => t.includes(ev.sentence))
}

/** Lazy paging: read an opened entity's pages until the printed value of `attr` is in the text. */
export function* readFor(s: PlanState, e: Entity, attr: string): Calls<void> {
  const spec = attributeSpec(e.type, attr)
  const v = e.attrs[attr]
  if (s.lazy && spec && v !== undefined) yield* readUntil(s, e.url, (t) => t.includes(formatAttr(spec, v)))
}

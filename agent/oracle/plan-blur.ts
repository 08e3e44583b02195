// agent/oracle/plan-blur: the oracle's move for a blurred start — search on the description's cue queries, open the
// result pages in rank order (or, two-step, the candidates a neighbour's page names) and take the first whose text fits
// every cue; it must be the gold start. Whether a page fits is oracle-blur's reading; this file spends the calls.
import type { Entity } from '../../world'
import { blurMismatch, namedOnPage, type ReadBlur } from './oracle-blur'
import { accessCall, attempts, readUntil, searchCall, triedText } from './plan-moves'
import type { PlanState } from './plan-state'
import { fail, resultUrls, type Calls } from './plan-types'

/** One blurred start being resolved: the pages read and found not to fit (never read again). */
interface BlurSearch {
  start: Entity
  d: ReadBlur
  rejected: Set<string>
}

/** Resolve a blurred start to the gold start's page (else the description reads as fitting another page: a failure). */
export function* resolveBlur(s: PlanState, start: Entity, d: ReadBlur): Calls<void> {
  const shown = [d.text, d.text.charAt(0).toUpperCase() + d.text.slice(1)]
  if (!shown.some((t) => s.qa.question.includes(t))) fail(`the blurred description of ${start.name} is not in the question`)
  const b: BlurSearch = { start, d, rejected: new Set() }
  const tried: string[] = []
  for (const query of attempts(d.queries, s.opts.maxQueriesPerPage, tried)) {
    const obs: string = yield searchCall(query)
    const urls = resultUrls(obs)
    const via = d.via !== undefined ? s.k.entity(d.via) : undefined
    if (via && urls.includes(via.url) && (yield* throughNeighbour(s, b, via))) return
    if (yield* amongResults(s, b, urls)) return
  }
  fail(`no search found the page of ${start.name} (${start.url}) from its blurred description; queries tried: ${triedText(tried)}`)
}

/** Read on (paged documents) until the page fits or there is nothing more to read; its text if it fits, else rejected. */
function* fitting(s: PlanState, b: BlurSearch, url: string): Calls<string | null> {
  const text = yield* readUntil(s, url, (t) => blurMismatch(t, b.d.cues, s.k.entity) === null)
  if (blurMismatch(text, b.d.cues, s.k.entity) === null) return text
  b.rejected.add(url)
  return null
}

/** Two-step: the neighbour's page lists the few entities of the type it is linked to; open each and read it. */
function* throughNeighbour(s: PlanState, b: BlurSearch, via: Entity): Calls<boolean> {
  if (!s.opened.has(via.url)) {
    const page: string = yield accessCall(via.url)
    s.record(via.url, page)
  }
  const listing = yield* readUntil(s, via.url, () => false)
  const typeCue = b.d.cues.find((c) => c.kind === 'type')
  const pool = typeCue && typeCue.kind === 'type' ? (s.k.entitiesOfType?.(typeCue.type) ?? []) : []
  for (const cand of namedOnPage(listing, pool)) {
    if (cand.url === via.url || b.rejected.has(cand.url)) continue
    if (!s.opened.has(cand.url)) {
      const found: string = yield searchCall(cand.name)
      if (!resultUrls(found).includes(cand.url)) continue
      const page: string = yield accessCall(cand.url)
      s.record(cand.url, page)
    }
    if ((yield* fitting(s, b, cand.url)) === null) continue
    if (cand.url !== b.start.url) fail(`the blurred description reads as fitting ${cand.name} (${cand.url}), not ${b.start.name}`)
    if (!s.lazy) yield* readUntil(s, cand.url, () => false)
    return true
  }
  b.rejected.add(via.url)
  return false
}

/** Direct: the search's result pages in rank order, each opened and read until it fits or is rejected. */
function* amongResults(s: PlanState, b: BlurSearch, urls: string[]): Calls<boolean> {
  for (const url of urls) {
    if (b.rejected.has(url)) continue
    if (!s.opened.has(url)) {
      const page: string = yield accessCall(url)
      if (!page.includes(`\nURL: ${url}\n`)) fail(`access ${url} did not return its page: ${page.slice(0, 120)}`)
      s.record(url, page)
    }
    const text = yield* fitting(s, b, url)
    if (text === null) continue
    if (url !== b.start.url) fail(`the blurred description reads as fitting ${text.split('\n')[0]} (${url}), not ${b.start.name}`)
    if (!text.startsWith(`${b.start.name}\nURL: ${b.start.url}\n`)) fail(`access ${url} did not return the page of ${b.start.name}`)
    if (!s.lazy) yield* readUntil(s, url, () => false)
    return true
  }
  return false
}

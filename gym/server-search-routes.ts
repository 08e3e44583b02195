// gym/server-search-routes: the gym server's stateless tools — /v1/search and /v1/access (one query, one page), and
// the batch shapes outside engines call: /retrieve (Search-R1, verl, AReaL/ASearcher) and ASearcher's /access {urls}.
// A batch never fails for one item: a bad or over-long item is answered empty or cut, and the response says so. No env
// is touched. Loaded when a server is made (it imports the zod schemas).
import type { Context, Hono } from 'hono'
import { HttpError } from '../infra/http/errors'
import { extraFieldNotes, IGNORED_FIELDS_HEADER } from './extra-fields'
import type { GymOptions } from './make-env'
import type { passageRetriever } from './passages'
import { checkRetrieveWork, retrieveResultParts, streamJson } from './retrieve-batch'
import { checkBody, DEFAULT_RETRIEVE_TOPK, type GymSchemas } from './server-schemas'
import { jsonBody } from './server-validate'
import type { GymWorld } from './world-view'

export interface SearchRouteDeps {
  world: GymWorld
  options: { maxBatchQueries: number; maxQueryChars: number; maxUrlChars: number; maxRetrieveHits: number; maxResponseBytes: number }
  envDefaults: GymOptions
  schemas: GymSchemas
  /** Set when a /retrieve hit is a passage (server option retrieveUnit 'passage'); absent: whole pages. */
  passages: ReturnType<typeof passageRetriever> | undefined
}

interface RetrieveNote {
  /** Position of the query in the request's `queries`. */
  index: number
  note: string
}

export function mountSearchRoutes(app: Hono, r: SearchRouteDeps): void {
  const { world, schemas } = r
  // Body fields the batch routes ignore, logged once per route and name by this server (gym/extra-fields).
  const loggedFields = new Set<string>()
  app.post('/v1/search', async (c) => {
    const { query, k: kIn } = checkBody(schemas.search, await jsonBody(c))
    const k = kIn ?? r.envDefaults.topK
    return c.json({ results: query.trim() ? await world.search(query, k) : [] })
  })

  app.post('/v1/access', async (c) => {
    const { url } = checkBody(schemas.access, await jsonBody(c))
    const page = await world.access(url.trim())
    if (!page) throw new HttpError(404, 'access.not_found', `no such page: ${JSON.stringify(url.slice(0, 200))}`)
    return c.json({ page })
  })

  app.post('/retrieve', (c) => retrieveBatch(c, r, loggedFields))
  app.post('/access', (c) => accessBatch(c, r, loggedFields))
}

// Search-R1's retrieval server: {"queries": [...], "topk": k, "return_scores": bool} → {"result": [[...]]}. Its rollout
// sends every active sample's query in one call: [] when no sample searched, up to batch x n (2,560) otherwise.
// One bad item never fails the batch: a non-string is answered [], an over-long query is cut, queries past
// maxBatchQueries are answered [] — each noted in `notes` and counted in the x-searchgym-retrieve-notes header.
async function retrieveBatch(c: Context, r: SearchRouteDeps, loggedFields: Set<string>) {
  const raw = await jsonBody(c)
  const b = checkBody(r.schemas.retrieve, raw)
  const ignored = extraFieldNotes(loggedFields, '/retrieve', raw)
  if (ignored) c.header(IGNORED_FIELDS_HEADER, ignored)
  const o = r.options
  const topk = b.topk ?? DEFAULT_RETRIEVE_TOPK
  const withScores = b.return_scores ?? false
  const { queries, notes } = retrieveQueries(b.queries, o)
  // Bounded up front (both units): one batch never stalls /health or another env's steps.
  const work = { maxHits: o.maxRetrieveHits, maxResponseBytes: o.maxResponseBytes }
  checkRetrieveWork(Math.min(b.queries.length, o.maxBatchQueries), topk, work)
  // Pages or passages: searched a slice at a time off the event loop (on the search threads when there are), streamed
  // (gym/retrieve-batch). Shapes (Search-R1/verl with scores, AReaL/ASearcher flat items): gym/retrieve-batch, gym/passages.
  // A streamed Response bypasses c.header(): the ignored-fields header goes in explicitly.
  const parts = await retrieveResultParts(r.world, queries, topk, withScores, work, r.passages)
  const headers: Record<string, string> = ignored ? { [IGNORED_FIELDS_HEADER]: ignored } : {}
  if (notes.length === 0) return streamJson(parts, {}, headers)
  return streamJson(parts, { notes }, { ...headers, 'x-searchgym-retrieve-notes': String(notes.length) })
}

// AReaL/ASearcher's access call: {"urls": [...]} → {"result": [page | null]}, one entry per url in order. An unknown
// page (or a non-string / over-long url) is null with 200: ASearcher retries a 404 or a missing key ten times and
// then stops the run. `contents` is title + "\n" + text, the same as a /retrieve hit.
async function accessBatch(c: Context, r: SearchRouteDeps, loggedFields: Set<string>) {
  const raw = await jsonBody(c)
  const { urls } = checkBody(r.schemas.accessMany, raw)
  const ignored = extraFieldNotes(loggedFields, '/access', raw)
  if (ignored) c.header(IGNORED_FIELDS_HEADER, ignored)
  const o = r.options
  if (urls.length > o.maxBatchQueries)
    throw new HttpError(400, 'request.too_many', `at most ${o.maxBatchQueries} urls per /access call, got ${urls.length} (gym serve --max-batch-queries)`, 'urls')
  const result = await Promise.all(
    urls.map(async (u) => {
      if (typeof u !== 'string' || u.length > o.maxUrlChars) return null
      const page = await r.world.access(u.trim())
      return page ? { id: page.url, url: page.url, title: page.title, contents: `${page.title}\n${page.text}`, text: page.text } : null
    }),
  )
  return c.json({ result })
}

/** The queries a /retrieve call searches: past maxBatchQueries or not a string → '' (answered []), over maxQueryChars
 *  → cut; each such item noted (the batch past the cap in one note). */
function retrieveQueries(qs: readonly unknown[], o: SearchRouteDeps['options']): { queries: string[]; notes: RetrieveNote[] } {
  const notes: RetrieveNote[] = []
  const queries: string[] = new Array<string>(qs.length)
  for (let i = 0; i < qs.length; i++) {
    const q: unknown = qs[i]
    if (i >= o.maxBatchQueries) {
      queries[i] = ''
      if (i === o.maxBatchQueries) notes.push({ index: i, note: `queries ${i}..${qs.length - 1} not searched: at most ${o.maxBatchQueries} per call (gym serve --max-batch-queries)` })
    } else if (typeof q !== 'string') {
      queries[i] = ''
      notes.push({ index: i, note: 'not a string; answered []' })
    } else if (q.length > o.maxQueryChars) {
      queries[i] = q.slice(0, o.maxQueryChars)
      notes.push({ index: i, note: `cut from ${q.length} to ${o.maxQueryChars} characters (gym serve --max-query-chars)` })
    } else queries[i] = q
  }
  return { queries, notes }
}

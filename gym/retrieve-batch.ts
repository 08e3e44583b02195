// gym/retrieve-batch: answers one /retrieve batch without holding the server's event loop — the work is bounded up
// front (queries × topk hits), searched and serialised a slice at a time with a turn of the event loop between slices
// (the searches themselves run on worker threads when the world has a search pool: openGymWorld searchThreads), and
// the JSON is handed back as parts for a streamed response, with a bound on its bytes. Both units (pages, passages)
// go the same way. Knows no routes or HTTP types beyond the error it throws.
import { HttpError } from '../infra/http/errors'
import { PASSAGE_POOL_PAGES, passagesJson, type PassageRetriever } from './passages'
import type { GymWorld, SearchResult, SliceAnswerer } from './world-view'

/** Hits searched per search call (on the search threads when the world has them). */
export const SLICE_HITS = 2048
/** Most milliseconds of serialising on the event loop before it yields a turn to other requests. */
export const YIELD_MS = 5

export interface RetrieveWork {
  /** Most hits (answered queries × topk) one call may ask for. */
  maxHits: number
  /** Largest JSON answer in bytes (UTF-16 length, an upper bound for ASCII text and close for most). */
  maxResponseBytes: number
}

/** Refuse (413) a batch whose hits exceed the bound before any search runs. */
export function checkRetrieveWork(answered: number, topk: number, w: RetrieveWork): void {
  const hits = answered * topk
  if (hits > w.maxHits)
    throw new HttpError(
      413,
      'request.too_much_work',
      `this /retrieve asks for ${answered} queries x topk ${topk} = ${hits} hits; at most ${w.maxHits} per call (gym serve maxRetrieveHits): split the batch or lower topk`,
      'queries',
    )
}

const tick = () => new Promise<void>((r) => setImmediate(r))

/** One query's hits as the JSON of its /retrieve result list (page text filled in from access). */
export async function hitsJson(world: Pick<GymWorld, 'access'>, list: SearchResult[], withScores: boolean): Promise<string> {
  const items = await Promise.all(
    list.map(async (h, rank) => {
      const page = await world.access(h.url)
      const text = page?.text ?? h.snippet
      const contents = `${h.title}\n${text}`
      // Without an engine score, a rank-based one keeps the order visible to clients that sort.
      if (withScores) return { document: { id: h.url, contents, url: h.url }, score: h.score ?? 1 / (rank + 1) }
      return { id: h.url, contents, url: h.url, title: h.title, text }
    }),
  )
  return JSON.stringify(items)
}

/** Each query's /retrieve result list as JSON, in order: whole pages, or passages when `passages` is given. */
async function* queryJson(world: GymWorld, queries: string[], topk: number, withScores: boolean, passages: PassageRetriever | undefined): AsyncGenerator<string> {
  if (passages) {
    for (const q of queries) yield passagesJson(await passages(q, topk), withScores)
    return
  }
  const hits: SearchResult[][] = world.searchMany
    ? await world.searchMany(queries, topk)
    : await Promise.all(queries.map((q) => (q.trim() ? world.search(q, topk) : Promise.resolve([]))))
  for (const list of hits) yield await hitsJson(world, list, withScores)
}

/** A slice of queries answered as the comma-joined JSON of their result lists (what a retrieve worker returns). */
export async function sliceJson(world: GymWorld, queries: string[], topk: number, withScores: boolean, passages?: PassageRetriever): Promise<string> {
  const out: string[] = []
  for await (const j of queryJson(world, queries, topk, withScores, passages)) out.push(j)
  return out.join(',')
}

/**
 * The `result` array of a /retrieve answer as JSON text parts (comma-joined query lists, in order). With `workers`,
 * whole slices are searched and serialised on worker threads (up to one slice per thread in flight) and this thread
 * only collects their text; without, slices are answered here, yielding to the event loop every few milliseconds.
 * `passages` (this thread's retriever) makes the answer passages instead of pages, on the threads as here.
 * Throws 413 when the answer would pass maxResponseBytes.
 */
export async function retrieveResultParts(
  world: GymWorld,
  queries: string[],
  topk: number,
  withScores: boolean,
  w: RetrieveWork,
  passages?: PassageRetriever,
  workers: SliceAnswerer | undefined = world.retrieveSlices,
): Promise<string[]> {
  // A passage query searches PASSAGE_POOL_PAGES pages whatever its topk: slices are sized by the pages searched.
  const per = Math.max(1, Math.floor(SLICE_HITS / (passages ? Math.max(topk, PASSAGE_POOL_PAGES) : topk)))
  const unit = passages ? 'passage' : 'page'
  const parts: string[] = []
  let bytes = 0
  const add = (s: string, at: number) => {
    bytes += s.length + 1
    if (bytes > w.maxResponseBytes)
      throw new HttpError(
        413,
        'response.too_large',
        `the answer to this /retrieve passes ${w.maxResponseBytes} bytes by query ${at} (gym serve maxResponseBytes): split the batch or lower topk`,
        'queries',
      )
    if (s !== '') parts.push(s)
  }
  if (workers) {
    const starts: number[] = []
    for (let at = 0; at < queries.length; at += per) starts.push(at)
    const window = Math.max(1, workers.threads)
    const inFlight: Promise<string>[] = []
    const launch = (i: number) => workers.sliceJson(queries.slice(starts[i], starts[i] + per), topk, withScores, unit)
    for (let i = 0; i < Math.min(window, starts.length); i++) inFlight.push(launch(i))
    for (let i = 0; i < starts.length; i++) {
      let s: string
      try {
        s = await inFlight[i]
      } catch (e) {
        for (let j = i + 1; j < inFlight.length; j++) inFlight[j].catch(() => undefined)
        throw e
      }
      if (i + window < starts.length) inFlight.push(launch(i + window))
      try {
        add(s, starts[i] + per)
      } catch (e) {
        for (let j = i + 1; j < inFlight.length; j++) inFlight[j].catch(() => undefined)
        throw e
      }
    }
    return parts
  }
  let since = performance.now()
  for (let at = 0; at < queries.length; at += per) {
    let i = at
    for await (const j of queryJson(world, queries.slice(at, at + per), topk, withScores, passages)) {
      add(j, i++)
      if (performance.now() - since > YIELD_MS) {
        await tick()
        since = performance.now()
      }
    }
    await tick()
    since = performance.now()
  }
  return parts
}

/** A JSON response streamed from `{"result": [parts...]` + extra top-level fields `}`, a few hundred KB per chunk, with
 *  a turn of the event loop before each chunk: @hono/node-server reads the next chunk as soon as a socket write
 *  returns true, which on loopback it does for most of an answer, so a stream that is always ready would be sent in
 *  one go (78 MiB: /health waited ~0.4-0.9 s at the first byte of a 16,384 x 4 answer). */
export function streamJson(resultParts: string[], extra: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  const enc = new TextEncoder()
  let i = 0
  let started = false
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (!started) {
        started = true
        ctl.enqueue(enc.encode('{"result":['))
        return
      }
      await tick()
      if (i >= resultParts.length) {
        const tail = Object.entries(extra).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join('')
        ctl.enqueue(enc.encode(`]${tail}}`))
        ctl.close()
        return
      }
      let chunk = ''
      while (i < resultParts.length && chunk.length < 256 * 1024) chunk += (i > 0 ? ',' : '') + resultParts[i++]
      ctl.enqueue(enc.encode(chunk))
    },
  })
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json', ...headers } })
}

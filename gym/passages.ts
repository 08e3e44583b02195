// gym/passages: passage-level retrieval over a page-level world — a page cut into passages (its title as the first
// line, then ~100 words, as the Wikipedia passage corpora Search-R1, verl and ASearcher were built on), and a query's
// passages ranked among the engine's top pages by the query words they hold. Deterministic; knows no HTTP.
import type { GymWorld } from './world-view'

/** Words per passage (the DPR Wikipedia split Search-R1's corpus uses: 100-word chunks). */
export const PASSAGE_WORDS = 100

export interface Passage {
  /** `url#passage=i` (i from 1): a passage's own id; `url` stays the page's, which /access opens. */
  id: string
  url: string
  title: string
  /** Title, a newline, then the chunk (the `contents` /retrieve returns). */
  contents: string
}

/** A page as passages of ~`words` words each, in order; a sentence is never split unless it alone is longer. */
export function splitPassages(url: string, title: string, text: string, words = PASSAGE_WORDS): Passage[] {
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean)
  const chunks: string[] = []
  let cur: string[] = []
  let n = 0
  for (const s of sentences) {
    const w = s.split(/\s+/).length
    if (n > 0 && n + w > words) {
      chunks.push(cur.join(' '))
      cur = []
      n = 0
    }
    cur.push(s)
    n += w
  }
  if (cur.length) chunks.push(cur.join(' '))
  return chunks.map((c, i) => ({ id: `${url}#passage=${i + 1}`, url, title, contents: `${title}\n${c}` }))
}

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/** Pages searched per query for its passages (at least topk). */
export const PASSAGE_POOL_PAGES = 10

/** The passage retriever: the engine's top pages for the query, cut into passages, the `topk` holding the most query
 *  words first (ties: the page's rank, then the passage's order). Page passages are cached per url. */
export function passageRetriever(world: GymWorld, wordsPerPassage = PASSAGE_WORDS): (query: string, topk: number) => Promise<Passage[]> {
  const cache = new Map<string, Promise<Passage[]>>()
  const passagesOf = (url: string, title: string) => {
    let p = cache.get(url)
    if (!p) {
      p = world.access(url).then((pg) => (pg ? splitPassages(url, pg.title || title, pg.text, wordsPerPassage) : []))
      if (cache.size > 100_000) cache.clear()
      cache.set(url, p)
    }
    return p
  }
  return async (query, topk) => {
    if (!query.trim()) return []
    const hits = await world.search(query, Math.max(topk, PASSAGE_POOL_PAGES))
    const q = words(query)
    const scored: { p: Passage; score: number; order: number }[] = []
    let order = 0
    for (const h of hits)
      for (const p of await passagesOf(h.url, h.title)) {
        let score = 0
        for (const w of words(p.contents)) if (q.has(w)) score++
        scored.push({ p, score, order: order++ })
      }
    scored.sort((a, b) => b.score - a.score || a.order - b.order)
    return scored.slice(0, topk).map((s) => s.p)
  }
}

/** One query's passages as the JSON of its /retrieve result list, in the two shapes the engines read (as the page-level
 *  one in gym/retrieve-batch): with scores `{document: {id, contents, url}, score}` (rank-based), without the flat item. */
export function passagesJson(list: Passage[], withScores: boolean): string {
  return JSON.stringify(
    list.map((p, rank) =>
      withScores
        ? { document: { id: p.id, contents: p.contents, url: p.url }, score: 1 / (rank + 1) }
        : { id: p.id, contents: p.contents, url: p.url, title: p.title, text: p.contents.slice(p.contents.indexOf('\n') + 1) },
    ),
  )
}

/** The passage retriever's type (passageRetriever). */
export type PassageRetriever = ReturnType<typeof passageRetriever>

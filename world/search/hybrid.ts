// world/search/hybrid: the hybrid engine — embedded BM25F and the dense engine fused by weighted reciprocal rank
// fusion: score(d) = Σ_lists w / (rrfK + rank(d)), ranks 1-based, documents with equal scores in a list sharing a rank.
// Each list is read to a fixed depth (max(depth, k)), so a smaller k is a prefix of a larger one. Ties by url.
import { SearchError } from '../../infra/errors'
import { DenseIndex, lexicalSnippet } from './dense'
import { checkK, EmbeddedIndex } from './embedded'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './types'

export interface HybridOptions {
  /** Weight of the BM25F list (default 1). */
  lexicalWeight?: number
  /** Weight of the dense list (default 1). */
  denseWeight?: number
  /** RRF constant (default 60, as in Cormack et al. 2009). */
  rrfK?: number
  /** Hits read from each list (default 100; more when k is larger). */
  depth?: number
}

/** Weighted RRF of ranked lists (each best first); equal scores within a list share the better rank. */
export function reciprocalRankFusion(lists: { hits: SearchHit[]; weight: number }[], rrfK: number): Map<string, number> {
  const fused = new Map<string, number>()
  for (const { hits, weight } of lists) {
    let rank = 0
    for (let i = 0; i < hits.length; i++) {
      if (i === 0 || hits[i].score !== hits[i - 1].score) rank = i + 1
      fused.set(hits[i].url, (fused.get(hits[i].url) ?? 0) + weight / (rrfK + rank))
    }
  }
  return fused
}

export class HybridIndex implements SearchIndex {
  readonly engine = 'hybrid'
  private readonly lexicalWeight: number
  private readonly denseWeight: number
  private readonly rrfK: number
  private readonly depth: number

  constructor(
    readonly lexical: EmbeddedIndex,
    readonly dense: DenseIndex,
    opts: HybridOptions = {},
  ) {
    this.lexicalWeight = opts.lexicalWeight ?? 1
    this.denseWeight = opts.denseWeight ?? 1
    this.rrfK = opts.rrfK ?? 60
    this.depth = opts.depth ?? 100
    for (const [name, v] of Object.entries({ lexicalWeight: this.lexicalWeight, denseWeight: this.denseWeight }))
      if (!(Number.isFinite(v) && v >= 0)) throw new SearchError('search.hybrid', `hybrid ${name} must be a finite number >= 0, got ${v}`)
    if (!(Number.isFinite(this.rrfK) && this.rrfK >= 0)) throw new SearchError('search.hybrid', `hybrid rrfK must be a finite number >= 0, got ${this.rrfK}`)
    if (!(Number.isInteger(this.depth) && this.depth >= 1)) throw new SearchError('search.hybrid', `hybrid depth must be a positive integer, got ${this.depth}`)
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    await this.dense.upsert(docs) // embeds (may fail on a bad model) before the lexical side changes
    await this.lexical.upsert(docs)
  }

  get(url: string): Promise<SearchDoc | undefined> {
    return this.dense.get(url)
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return (await this.searchMany([query], opts))[0]
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    const k = checkK(opts.k)
    if (k === 0) return queries.map(() => [])
    const depth = Math.max(this.depth, k)
    const [lex, den] = await Promise.all([
      this.lexical.searchMany(queries, { k: depth, snippet: false }),
      this.dense.searchMany(queries, { k: depth, snippet: false }),
    ])
    const out: SearchHit[][] = []
    for (let i = 0; i < queries.length; i++) {
      const fused = reciprocalRankFusion(
        [
          { hits: lex[i], weight: this.lexicalWeight },
          { hits: den[i], weight: this.denseWeight },
        ],
        this.rrfK,
      )
      const ranked = [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, k)
      const hits: SearchHit[] = []
      for (const [url, score] of ranked) {
        const doc = (await this.dense.get(url))!
        hits.push({ url, title: doc.title, snippet: opts.snippet === false ? '' : lexicalSnippet(doc.text, queries[i]), score })
      }
      out.push(hits)
    }
    return out
  }

  async close(): Promise<void> {
    await Promise.all([this.lexical.close(), this.dense.close()])
  }
}

// world/search/embedded: the default engine — an in-memory BM25F inverted index (title boosted), no server.
// Postings are compressed-row typed arrays with precomputed per-posting impacts; a query sums impacts into a
// score array and keeps the top k (ties by url). Rebuilt from the documents at open; knows nothing of worlds.
import { SearchError } from '../../infra/errors'
import { centredSnippet, SNIPPET_WORDS } from './snippet'
import { tokenize } from './tokenize'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './types'

export interface EmbeddedOptions {
  /** BM25 term-frequency saturation. */
  k1?: number
  /** Length normalisation of the body (0 = none, 1 = full). */
  b?: number
  /** Length normalisation of the title. */
  bTitle?: number
  /** Weight of a title occurrence relative to a body occurrence (the title boost). */
  titleWeight?: number
  /** Words per snippet. */
  snippetWords?: number
  /** Skip documents that cannot reach the top k (exact; off only to test that it is exact). */
  prune?: boolean
}

interface StoredDoc {
  url: string
  title: string
  text: string
  titleTerms: Int32Array
  bodyTerms: Int32Array
  bodyStarts: Int32Array
  bodyEnds: Int32Array
}

/**
 * Chosen by measurement on the paper world's verification queries (bench/RESULTS.md, "Search engines"): fast
 * saturation and no body-length normalisation (hub documents that list many neighbours are long, and are the
 * documents a question about a neighbour wants); classic k1=1.2, b=0.75 kept 56% of sampled edges, these 86%.
 */
const DEFAULTS: Required<EmbeddedOptions> = { k1: 0.3, b: 0, bTitle: 0.5, titleWeight: 3, snippetWords: SNIPPET_WORDS, prune: true }

/** Growable Int32 column (postings are collected before their final size is known). */
class IntColumn {
  data = new Int32Array(1024)
  length = 0
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = v
  }
}

export function checkK(k: number | undefined): number {
  const v = k ?? 5
  if (!Number.isInteger(v) || v < 0)
    throw new SearchError('search.k', `search option k must be a non-negative integer, got ${String(k)}`)
  return v
}

export class EmbeddedIndex implements SearchIndex {
  readonly engine = 'embedded'
  private readonly opts: Required<EmbeddedOptions>
  private readonly vocab = new Map<string, number>()
  private readonly docs: StoredDoc[] = []
  private readonly byUrl = new Map<string, number>()
  private dirty = true
  private closed = false
  // Compiled index (valid when !dirty).
  private idf = new Float64Array(0)
  private postStart = new Int32Array(1)
  private postDoc = new Int32Array(0)
  private postImpact = new Float64Array(0)
  /** Per term: its largest posting impact (an upper bound of what it adds to any document). */
  private maxImpact = new Float64Array(0)
  private urlRank = new Int32Array(0)
  private scores = new Float64Array(0)
  private stamp = new Int32Array(0)
  private stampNow = 0
  private kBuf = new Float64Array(0)
  private touched = new Int32Array(0)
  /** Per term: the stamp of the query that uses it (snippet weights without a Set). */
  private queryMark = new Int32Array(0)

  constructor(opts: EmbeddedOptions = {}) {
    this.opts = { ...DEFAULTS, ...opts }
  }

  get size(): number {
    return this.docs.length
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    this.upsertSync(docs)
  }

  upsertSync(docs: SearchDoc[]): void {
    this.assertOpen()
    for (const d of docs) {
      if (typeof d.url !== 'string' || d.url === '')
        throw new SearchError('search.doc', `every document needs a non-empty url (got ${JSON.stringify(d.url)})`)
      const body = tokenize(d.text)
      const stored: StoredDoc = {
        url: d.url,
        title: d.title,
        text: d.text,
        titleTerms: Int32Array.from(tokenize(d.title), (t) => this.termId(t.term)),
        bodyTerms: Int32Array.from(body, (t) => this.termId(t.term)),
        bodyStarts: Int32Array.from(body, (t) => t.start),
        bodyEnds: Int32Array.from(body, (t) => t.end),
      }
      const at = this.byUrl.get(d.url)
      if (at === undefined) {
        this.byUrl.set(d.url, this.docs.length)
        this.docs.push(stored)
      } else {
        this.docs[at] = stored
      }
    }
    this.dirty = true
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return this.searchSync(query, opts)
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    const out: SearchHit[][] = new Array(queries.length)
    for (let i = 0; i < queries.length; i++) out[i] = this.searchSync(queries[i], opts)
    return out
  }

  searchSync(query: string, opts: SearchOptions = {}): SearchHit[] {
    this.assertOpen()
    const k = checkK(opts.k)
    if (k === 0 || typeof query !== 'string') return []
    if (this.dirty) this.compile()
    const stamp = this.nextStamp()
    // Distinct known query terms.
    const qterms: number[] = []
    for (const t of tokenize(query)) {
      const id = this.vocab.get(t.term)
      if (id === undefined || this.queryMark[id] === stamp) continue
      this.queryMark[id] = stamp
      qterms.push(id)
    }
    if (qterms.length === 0) return []
    const { postStart, postDoc, postImpact, scores, touched, urlRank, maxImpact } = this
    // Term-at-a-time with pruning (MaxScore-style, exact): terms by decreasing maximal impact; once the k-th best
    // partial score exceeds what all remaining terms together could add, no unseen document can enter the top k,
    // so the remaining terms only complete the scores of documents already seen.
    qterms.sort((a, b) => maxImpact[b] - maxImpact[a] || a - b)
    const rest = new Float64Array(qterms.length + 1)
    for (let i = qterms.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + maxImpact[qterms[i]]
    const seen = this.stamp
    const n = this.docs.length
    let nTouched = 0
    let pruned = false
    for (let i = 0; i < qterms.length; i++) {
      const t = qterms[i]
      const start = postStart[t]
      const end = postStart[t + 1]
      if (!pruned) {
        for (let p = start; p < end; p++) {
          const d = postDoc[p]
          if (seen[d] !== stamp) {
            seen[d] = stamp
            scores[d] = postImpact[p]
            touched[nTouched++] = d
          } else {
            scores[d] += postImpact[p]
          }
        }
        if (this.opts.prune && nTouched >= k && i + 1 < qterms.length && nTouched * 4 < n && rest[i + 1] < this.kthScore(nTouched, k)) pruned = true
      } else if (nTouched * 16 < end - start) {
        // Few candidates, long postings: binary-search each candidate (postings are sorted by document).
        for (let j = 0; j < nTouched; j++) {
          const d = touched[j]
          let lo = start
          let hi = end - 1
          while (lo <= hi) {
            const mid = (lo + hi) >>> 1
            const v = postDoc[mid]
            if (v < d) lo = mid + 1
            else if (v > d) hi = mid - 1
            else {
              scores[d] += postImpact[mid]
              break
            }
          }
        }
      } else {
        for (let p = start; p < end; p++) {
          const d = postDoc[p]
          if (seen[d] === stamp) scores[d] += postImpact[p]
        }
      }
    }
    const better = (a: number, b: number): boolean =>
      scores[a] > scores[b] || (scores[a] === scores[b] && urlRank[a] < urlRank[b])
    let top: number[]
    if (k >= 64) {
      top = Array.from(touched.subarray(0, nTouched)).sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0))
      top.length = Math.min(top.length, k)
    } else {
      top = []
      for (let i = 0; i < nTouched; i++) {
        const d = touched[i]
        if (top.length === k && !better(d, top[k - 1])) continue
        let j = top.length < k ? top.length : k - 1
        if (top.length < k) top.push(d)
        while (j > 0 && better(d, top[j - 1])) {
          top[j] = top[j - 1]
          j--
        }
        top[j] = d
      }
    }
    const wantSnippet = opts.snippet !== false
    return top.map((d) => {
      const doc = this.docs[d]
      return {
        url: doc.url,
        title: doc.title,
        snippet: wantSnippet ? this.snippetOf(doc, stamp) : '',
        score: scores[d],
      }
    })
  }

  async get(url: string): Promise<SearchDoc | undefined> {
    this.assertOpen()
    const at = this.byUrl.get(url)
    if (at === undefined) return undefined
    const d = this.docs[at]
    return { url: d.url, title: d.title, text: d.text }
  }

  async close(): Promise<void> {
    this.closed = true
  }

  /** The k-th largest score among the first `nTouched` touched documents (a lower bound of the final k-th). */
  private kthScore(nTouched: number, k: number): number {
    const best = this.kBuf.length >= k ? this.kBuf : (this.kBuf = new Float64Array(k))
    best.fill(-Infinity, 0, k)
    const { scores, touched } = this
    for (let i = 0; i < nTouched; i++) {
      const s = scores[touched[i]]
      if (s <= best[k - 1]) continue
      let j = k - 1
      while (j > 0 && best[j - 1] < s) {
        best[j] = best[j - 1]
        j--
      }
      best[j] = s
    }
    return best[k - 1]
  }

  private snippetOf(doc: StoredDoc, stamp: number): string {
    const { queryMark, idf } = this
    const terms = doc.bodyTerms
    return centredSnippet(
      doc.text,
      doc.bodyStarts,
      doc.bodyEnds,
      (i) => (queryMark[terms[i]] === stamp ? idf[terms[i]] : 0),
      this.opts.snippetWords,
    )
  }

  private termId(term: string): number {
    let id = this.vocab.get(term)
    if (id === undefined) {
      id = this.vocab.size
      this.vocab.set(term, id)
    }
    return id
  }

  private nextStamp(): number {
    if (this.stampNow === 0x7fffffff) {
      this.stampNow = 0
      this.stamp.fill(0)
      this.queryMark.fill(0)
    }
    return ++this.stampNow
  }

  private assertOpen(): void {
    if (this.closed) throw new SearchError('search.closed', 'this search index was closed; open it again')
  }

  /** Build postings with BM25F impacts: idf(t) · tf'(k1+1)/(tf'+k1), tf' = Σ_field w·tf/(1−b+b·len/avgLen). */
  private compile(): void {
    const { k1, b, bTitle, titleWeight } = this.opts
    const n = this.docs.length
    const v = this.vocab.size
    let sumT = 0
    let sumB = 0
    for (const d of this.docs) {
      sumT += d.titleTerms.length
      sumB += d.bodyTerms.length
    }
    const avgT = n > 0 ? Math.max(1e-9, sumT / n) : 1
    const avgB = n > 0 ? Math.max(1e-9, sumB / n) : 1
    const tfT = new Int32Array(v)
    const tfB = new Int32Array(v)
    const df = new Int32Array(v)
    const pTerm = new IntColumn()
    const pDoc = new IntColumn()
    const pT = new IntColumn()
    const pB = new IntColumn()
    const local: number[] = []
    for (let d = 0; d < n; d++) {
      const doc = this.docs[d]
      local.length = 0
      for (const t of doc.titleTerms) {
        if (tfT[t] === 0 && tfB[t] === 0) local.push(t)
        tfT[t]++
      }
      for (const t of doc.bodyTerms) {
        if (tfT[t] === 0 && tfB[t] === 0) local.push(t)
        tfB[t]++
      }
      for (const t of local) {
        df[t]++
        pTerm.push(t)
        pDoc.push(d)
        pT.push(tfT[t])
        pB.push(tfB[t])
        tfT[t] = 0
        tfB[t] = 0
      }
    }
    const idf = new Float64Array(v)
    for (let t = 0; t < v; t++) idf[t] = df[t] > 0 ? Math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) : 0
    const postStart = new Int32Array(v + 1)
    for (let t = 0; t < v; t++) postStart[t + 1] = postStart[t] + df[t]
    const fill = postStart.slice(0, v)
    const total = pTerm.length
    const postDoc = new Int32Array(total)
    const postImpact = new Float64Array(total)
    const maxImpact = new Float64Array(v)
    for (let p = 0; p < total; p++) {
      const t = pTerm.data[p]
      const d = pDoc.data[p]
      const doc = this.docs[d]
      const tf =
        (titleWeight * pT.data[p]) / (1 - bTitle + (bTitle * doc.titleTerms.length) / avgT) +
        pB.data[p] / (1 - b + (b * doc.bodyTerms.length) / avgB)
      const at = fill[t]++
      postDoc[at] = d
      postImpact[at] = (idf[t] * tf * (k1 + 1)) / (tf + k1)
      if (postImpact[at] > maxImpact[t]) maxImpact[t] = postImpact[at]
    }
    // Tie order: url ascending, as a rank so the hot loop compares integers.
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      const a = this.docs[x].url
      const c = this.docs[y].url
      return a < c ? -1 : a > c ? 1 : 0
    })
    const urlRank = new Int32Array(n)
    order.forEach((d, r) => (urlRank[d] = r))
    this.idf = idf
    this.postStart = postStart
    this.postDoc = postDoc
    this.postImpact = postImpact
    this.maxImpact = maxImpact
    this.urlRank = urlRank
    this.scores = new Float64Array(n)
    this.stamp = new Int32Array(n)
    this.touched = new Int32Array(n)
    this.queryMark = new Int32Array(v)
    this.stampNow = 0
    this.dirty = false
  }
}

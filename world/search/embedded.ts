// world/search/embedded: the default engine — an in-memory BM25F inverted index (title boosted), no server.
// Postings are compressed-row typed arrays with precomputed per-posting impacts; a query keeps the top k (ties by
// url) by exact MaxScore early termination (same results as scoring every match). Rebuilt from the documents at open.
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
/**
 * Relative inflation of every pruning bound: a sum of m non-negative doubles is off by at most ~m·2⁻⁵³ of itself, so
 * with this slack (good for ~4,000 query terms) a bound is never below the sum it bounds, whatever the rounding.
 */
const BOUND_SLACK = 1 + 1e-12

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
  /** What the last query did: documents scored to the end, and documents given up by the bound (for tests and benches). */
  lastStats = { scored: 0, skipped: 0 }
  private touched = new Int32Array(0)
  private qCur = new Int32Array(16)
  private qEnd = new Int32Array(16)
  private qProbe = new Int32Array(16)
  private qRest = new Float64Array(17)
  private heapDoc = new Int32Array(16)
  private heapScore = new Float64Array(16)
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
      // Term ids in order of first use, title before body (the ids order ties in search: keep this order). Plain
      // loops: Int32Array.from(iterable, fn) walks the iterator protocol and cost ~half of building a 10× index.
      const title = tokenize(d.title)
      const titleTerms = new Int32Array(title.length)
      for (let i = 0; i < title.length; i++) titleTerms[i] = this.termId(title[i].term)
      const body = tokenize(d.text)
      const bodyTerms = new Int32Array(body.length)
      const bodyStarts = new Int32Array(body.length)
      const bodyEnds = new Int32Array(body.length)
      for (let i = 0; i < body.length; i++) {
        const t = body[i]
        bodyTerms[i] = this.termId(t.term)
        bodyStarts[i] = t.start
        bodyEnds[i] = t.end
      }
      const stored: StoredDoc = { url: d.url, title: d.title, text: d.text, titleTerms, bodyTerms, bodyStarts, bodyEnds }
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
    // A document's score is the sum of its impacts in this term order (decreasing maximal impact, then term id) on
    // every path, so that every path gives the same floating-point sum, bit for bit.
    const { maxImpact } = this
    qterms.sort((a, b) => maxImpact[b] - maxImpact[a] || a - b)
    const top = this.opts.prune ? this.topMaxScore(qterms, k, stamp) : this.topExhaustive(qterms, k, stamp)
    const wantSnippet = opts.snippet !== false
    return top.map((d) => {
      const doc = this.docs[d]
      return {
        url: doc.url,
        title: doc.title,
        snippet: wantSnippet ? this.snippetOf(doc, stamp) : '',
        score: this.scores[d],
      }
    })
  }

  /** Every document holding a query term scored term at a time, then the best k: the reference the pruned path must equal. */
  private topExhaustive(qterms: number[], k: number, stamp: number): number[] {
    const { postStart, postDoc, postImpact, scores, touched } = this
    const seen = this.stamp
    let nTouched = 0
    for (const t of qterms) {
      for (let p = postStart[t]; p < postStart[t + 1]; p++) {
        const d = postDoc[p]
        if (seen[d] !== stamp) {
          seen[d] = stamp
          scores[d] = postImpact[p]
          touched[nTouched++] = d
        } else {
          scores[d] += postImpact[p]
        }
      }
    }
    this.lastStats = { scored: nTouched, skipped: 0 }
    const { urlRank } = this
    const better = (a: number, b: number): boolean => scores[a] > scores[b] || (scores[a] === scores[b] && urlRank[a] < urlRank[b])
    const top = Array.from(touched.subarray(0, nTouched))
    if (k >= 64 || k >= nTouched) {
      top.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0))
      top.length = Math.min(top.length, k)
      return top
    }
    const best: number[] = []
    for (const d of top) {
      if (best.length === k && !better(d, best[k - 1])) continue
      let j = best.length < k ? best.length : k - 1
      if (best.length < k) best.push(d)
      while (j > 0 && better(d, best[j - 1])) {
        best[j] = best[j - 1]
        j--
      }
      best[j] = d
    }
    return best
  }

  /**
   * The same top k, exactly, with MaxScore early termination (document at a time over impact-bounded postings):
   * θ is the k-th best complete score so far; a term whose maximal impact, added to those of every lower-bound term
   * after it, stays below θ is non-essential — a document holding only non-essential terms cannot reach the top k,
   * so only the essential terms' postings are walked, and the others are looked up (galloping) for the documents
   * found, stopping as soon as the partial score plus what is left to add falls below θ. Phase 1 scores the
   * documents of the highest-impact term first (usually the rarest: a name) so that θ is high from the start.
   * Bounds are inflated by BOUND_SLACK so rounding can never make a bound fall below a true sum; a document whose
   * bound equals θ is always scored fully (ties go by url). Same sums in the same term order: same scores, bit for bit.
   */
  private topMaxScore(qterms: number[], k: number, stamp: number): number[] {
    const { postStart, postDoc, postImpact, maxImpact, urlRank, scores } = this
    const seen = this.stamp
    const m = qterms.length
    // Per-query work arrays, reused (a query allocated six typed arrays before: ~10% of a 1× verification query).
    if (this.qCur.length < m) {
      this.qCur = new Int32Array(2 * m)
      this.qEnd = new Int32Array(2 * m)
      this.qProbe = new Int32Array(2 * m)
      this.qRest = new Float64Array(2 * m + 1)
    }
    const cur = this.qCur
    const end = this.qEnd
    /** rest[i]: the most terms i.. can add to any document, slack included. */
    const rest = this.qRest
    rest[m] = 0
    for (let i = m - 1; i >= 0; i--) {
      end[i] = postStart[qterms[i] + 1]
      rest[i] = rest[i + 1] + maxImpact[qterms[i]]
    }
    for (let i = 0; i < m; i++) rest[i] *= BOUND_SLACK
    const cap = Math.min(k, this.docs.length)
    if (cap === 0) return []
    if (this.heapDoc.length < cap) {
      this.heapDoc = new Int32Array(cap)
      this.heapScore = new Float64Array(cap)
    }
    const heapDoc = this.heapDoc
    const heapScore = this.heapScore
    let size = 0
    let theta = -Infinity
    let essential = m
    let scored = 0
    let skipped = 0
    // Heap of the best so far, the worst at the root.
    const worse = (sa: number, da: number, sb: number, db: number): boolean => sa < sb || (sa === sb && urlRank[da] > urlRank[db])
    const offer = (d: number, s: number): void => {
      scored++
      if (size < cap) {
        let i = size++
        while (i > 0) {
          const parent = (i - 1) >> 1
          if (!worse(s, d, heapScore[parent], heapDoc[parent])) break
          heapDoc[i] = heapDoc[parent]
          heapScore[i] = heapScore[parent]
          i = parent
        }
        heapDoc[i] = d
        heapScore[i] = s
        if (size < cap) return
      } else {
        if (!worse(heapScore[0], heapDoc[0], s, d)) return
        let i = 0
        for (;;) {
          let c = 2 * i + 1
          if (c >= size) break
          if (c + 1 < size && worse(heapScore[c + 1], heapDoc[c + 1], heapScore[c], heapDoc[c])) c++
          if (!worse(heapScore[c], heapDoc[c], s, d)) break
          heapDoc[i] = heapDoc[c]
          heapScore[i] = heapScore[c]
          i = c
        }
        heapDoc[i] = d
        heapScore[i] = s
      }
      theta = heapScore[0]
      while (essential > 0 && rest[essential - 1] < theta) essential--
    }
    /** Adds terms from..m-1 to partial score s of document d (cursors in `at` move forward); NaN once d cannot enter. */
    const complete = (d: number, s: number, from: number, at: Int32Array): number => {
      for (let i = from; i < m; i++) {
        if ((s + rest[i]) * BOUND_SLACK < theta) {
          skipped++
          return NaN
        }
        let p = at[i]
        const e = end[i]
        if (p < e && postDoc[p] < d) {
          // Gallop, then binary search in (lo, hi].
          let lo = p
          let step = 1
          let hi = p + 1
          while (hi < e && postDoc[hi] < d) {
            lo = hi
            step *= 2
            hi = lo + step
          }
          if (hi > e) hi = e
          lo++
          while (lo < hi) {
            const mid = (lo + hi) >>> 1
            if (postDoc[mid] < d) lo = mid + 1
            else hi = mid
          }
          p = lo
          at[i] = p
        }
        if (p < e && postDoc[p] === d) {
          s += postImpact[p]
          at[i] = p + 1
        }
      }
      return s
    }
    // Phase 1: the documents of the first term, then of the next ones while fewer than k are known.
    const probe = this.qProbe
    let walked = 0
    for (let j = 0; j < m && (j === 0 || size < cap) && j < essential; j++, walked++) {
      for (let i = j + 1; i < m; i++) probe[i] = postStart[qterms[i]]
      for (let p = postStart[qterms[j]]; p < end[j]; p++) {
        const d = postDoc[p]
        if (seen[d] === stamp) continue
        seen[d] = stamp
        // Not in the lists of terms before j (those documents are all marked): the sum starts at this impact.
        const s = complete(d, postImpact[p], j + 1, probe)
        if (s === s) offer(d, s)
      }
    }
    // Phase 2: document at a time over the essential terms' postings (every document of the terms phase 1 walked is
    // scored or given up already: their cursors start at the end).
    for (let i = 0; i < m; i++) cur[i] = i < walked ? end[i] : postStart[qterms[i]]
    const n = this.docs.length
    while (essential > 0) {
      let d = n
      for (let i = 0; i < essential; i++) if (cur[i] < end[i] && postDoc[cur[i]] < d) d = postDoc[cur[i]]
      if (d === n) break
      let s = 0
      for (let i = 0; i < essential; i++) {
        const p = cur[i]
        if (p < end[i] && postDoc[p] === d) {
          s += postImpact[p]
          cur[i] = p + 1
        }
      }
      if (seen[d] === stamp) continue
      const total = complete(d, s, essential, cur)
      if (total === total) offer(d, total)
    }
    this.lastStats = { scored, skipped }
    const top: number[] = new Array(size)
    for (let i = 0; i < size; i++) {
      top[i] = heapDoc[i]
      scores[heapDoc[i]] = heapScore[i]
    }
    top.sort((a, b) => (worse(scores[b], b, scores[a], a) ? -1 : worse(scores[a], a, scores[b], b) ? 1 : 0))
    return top
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

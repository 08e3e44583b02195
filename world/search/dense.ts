// world/search/dense: the dense engine — passages embedded by a local ONNX model (world/search/embed), exact
// inner-product search by a flat scan (one ONNX Gemm per query batch, world/search/dense-scan), or an IVF approximate index (world/search/dense-ivf) once a world is large
// enough to need one. Every document is scored (dense retrieval has no "no match"), except that a query without
// words returns no hits, like every engine. Ties are broken by url. Vectors can be loaded from / saved to a world file.
import { SearchError } from '../../infra/errors'
import type { Embedder, EmbedderIdentity } from './embed/embedder'
import { checkK } from './embedded'
import { IvfIndex, type IvfOptions } from './dense-ivf'
import { DenseScanner } from './dense-scan'
import { centredSnippet } from './snippet'
import { terms, tokenize } from './tokenize'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './types'

export type AnnMode = 'exact' | 'ivf' | 'auto'

export interface DenseOptions {
  /** 'exact' (flat scan), 'ivf' (approximate), 'auto' (default: ivf from annMinDocs documents on). */
  ann?: AnnMode
  /** Documents from which 'auto' switches to IVF (default 50 000: below that a flat scan takes a few ms). */
  annMinDocs?: number
  ivf?: IvfOptions
  /** Words per passage: a document is embedded as passages of this many words, each under its title (default 100). */
  passageWords?: number
  /** Close the embedder with the index (default true). */
  ownsEmbedder?: boolean
  /** No progress bar while embedding. */
  quiet?: boolean
}

/**
 * The passages a document is embedded as: its text cut into runs of `words` words, each under the title (as
 * retrieval corpora cut Wikipedia into 100-word passages). A document scores as its best passage.
 */
export function passageTexts(d: SearchDoc, words = 100): string[] {
  const ws = d.text.split(/\s+/).filter((w) => w.length > 0)
  if (ws.length === 0) return [d.title]
  const out: string[] = []
  for (let i = 0; i < ws.length; i += words) out.push(`${d.title}\n${ws.slice(i, i + words).join(' ')}`)
  return out
}

/** A snippet centred on the query's words (dense scores have no term positions; words still show the user why). */
export function lexicalSnippet(text: string, query: string): string {
  const toks = tokenize(text)
  const q = new Set(terms(query))
  return centredSnippet(
    text,
    toks.map((t) => t.start),
    toks.map((t) => t.end),
    (i) => (q.has(toks[i].term) ? 1 : 0),
  )
}

interface Scored {
  doc: number
  score: number
}

export class DenseIndex implements SearchIndex {
  readonly engine = 'dense'
  private docs: SearchDoc[] = []
  private passages: Float32Array[][] = []
  private rowOf = new Map<string, number>()
  /** Flat passage matrix and passage → document, rebuilt after changes. */
  private flat: { vectors: Float32Array; docOf: Int32Array; rows: number } | undefined
  private ivf: IvfIndex | undefined
  private scan: Promise<DenseScanner> | undefined
  private closed = false
  readonly dim: number
  readonly passageWords: number

  constructor(
    readonly embedder: Embedder,
    private readonly opts: DenseOptions = {},
  ) {
    this.dim = embedder.dim
    this.passageWords = opts.passageWords ?? 100
    if (!Number.isInteger(this.passageWords) || this.passageWords < 1)
      throw new SearchError('search.dense', `passageWords must be a positive integer, got ${this.passageWords}`)
  }

  get identity(): EmbedderIdentity {
    return this.embedder.identity
  }

  get size(): number {
    return this.docs.length
  }

  /** Whether searches use the approximate index. */
  get approximate(): boolean {
    const mode = this.opts.ann ?? 'auto'
    return mode === 'ivf' || (mode === 'auto' && this.docs.length >= (this.opts.annMinDocs ?? 50_000))
  }

  private check(): void {
    if (this.closed) throw new SearchError('search.closed', 'the dense index is closed')
  }

  /** Put documents with known passage vectors (e.g. read from a world file); a url already present is replaced. */
  setVectors(docs: SearchDoc[], vectors: Float32Array[][]): void {
    this.check()
    if (docs.length !== vectors.length) throw new SearchError('search.dense_vectors', `${docs.length} documents but ${vectors.length} vector lists`)
    for (let i = 0; i < docs.length; i++) {
      const vs = vectors[i]
      if (vs.length === 0) throw new SearchError('search.dense_vectors', `document ${docs[i].url} has no passage vectors`)
      for (const v of vs)
        if (v.length !== this.dim)
          throw new SearchError('search.dense_vectors', `a vector of ${docs[i].url} has ${v.length} dimensions, the embedder gives ${this.dim}`)
      let row = this.rowOf.get(docs[i].url)
      if (row === undefined) {
        row = this.docs.length
        this.docs.push(docs[i])
        this.passages.push(vs)
        this.rowOf.set(docs[i].url, row)
      } else {
        this.docs[row] = docs[i]
        this.passages[row] = vs
      }
    }
    this.flat = undefined
    this.ivf = undefined
    this.dropScanner()
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    this.check()
    // Identical passages are embedded once (and so get identical vectors and scores).
    const per = docs.map((d) => passageTexts(d, this.passageWords))
    const texts = [...new Set(per.flat())]
    const vecs = await this.embedder.embedPassages(texts, { quiet: this.opts.quiet })
    const byText = new Map(texts.map((t, i) => [t, vecs[i]]))
    this.setVectors(docs, per.map((ps) => ps.map((t) => byText.get(t)!)))
  }

  /** Every document with its passage vectors, in insertion order (what a world file stores). */
  *entries(): Generator<[SearchDoc, Float32Array[]]> {
    for (let r = 0; r < this.docs.length; r++) yield [this.docs[r], this.passages[r]]
  }

  async get(url: string): Promise<SearchDoc | undefined> {
    this.check()
    const r = this.rowOf.get(url)
    return r === undefined ? undefined : this.docs[r]
  }

  private matrix(): { vectors: Float32Array; docOf: Int32Array; rows: number } {
    if (this.flat) return this.flat
    let rows = 0
    for (const p of this.passages) rows += p.length
    const vectors = new Float32Array(rows * this.dim)
    const docOf = new Int32Array(rows)
    let r = 0
    this.passages.forEach((ps, doc) => {
      for (const v of ps) {
        vectors.set(v, r * this.dim)
        docOf[r++] = doc
      }
    })
    this.flat = { vectors, docOf, rows }
    return this.flat
  }

  /** The IVF index over passages (built on first use), e.g. to tune nprobe in a benchmark. */
  ivfIndex(): IvfIndex {
    const m = this.matrix()
    this.ivf ??= new IvfIndex(m.vectors, m.rows, this.dim, this.opts.ivf)
    return this.ivf
  }

  /** The k best documents for a query vector (each scored by its best passage): exact or over IVF candidates; ties by url. */
  rank(q: Float32Array, k: number, exact = !this.approximate): Scored[] {
    if (k === 0 || this.docs.length === 0) return []
    const d = this.dim
    const { vectors: v, docOf, rows } = this.matrix()
    const best = new Float64Array(this.docs.length).fill(-Infinity)
    const score = (r: number) => {
      let s = 0
      const o = r * d
      for (let j = 0; j < d; j++) s += q[j] * v[o + j]
      if (s > best[docOf[r]]) best[docOf[r]] = s
    }
    if (exact) for (let r = 0; r < rows; r++) score(r)
    else for (const list of this.ivfIndex().candidates(q)) for (const r of list) score(r)
    return this.topDocs(best, k)
  }

  /** Exact ranking of many query vectors by the ONNX Gemm scan (what searchMany uses below the IVF threshold). */
  async rankExact(qs: Float32Array[], k: number): Promise<Scored[][]> {
    if (k === 0 || this.docs.length === 0) return qs.map(() => [])
    const { docOf } = this.matrix()
    const scanner = await this.scanner()
    const all = await scanner.scores(qs)
    return all.map((s) => {
      const best = new Float64Array(this.docs.length).fill(-Infinity)
      for (let r = 0; r < s.length; r++) if (s[r] > best[docOf[r]]) best[docOf[r]] = s[r]
      return this.topDocs(best, k)
    })
  }

  private scanner(): Promise<DenseScanner> {
    if (!this.scan) {
      const m = this.matrix()
      this.scan = DenseScanner.create(m.vectors, m.rows, this.dim)
      this.scan.catch(() => (this.scan = undefined))
    }
    return this.scan
  }

  private dropScanner(): void {
    const old = this.scan
    this.scan = undefined
    if (old) void old.then((s) => s.close()).catch(() => undefined)
  }

  private topDocs(best: Float64Array, k: number): Scored[] {
    const top: Scored[] = []
    const better = (a: Scored, b: Scored) => a.score > b.score || (a.score === b.score && this.docs[a.doc].url < this.docs[b.doc].url)
    for (let doc = 0; doc < best.length; doc++) {
      if (best[doc] === -Infinity) continue
      const c = { doc, score: best[doc] }
      if (top.length === k && !better(c, top[k - 1])) continue
      let i = top.length < k ? top.length : k - 1
      if (top.length < k) top.push(c)
      while (i > 0 && better(c, top[i - 1])) {
        top[i] = top[i - 1]
        i--
      }
      top[i] = c
    }
    return top
  }

  private hit(query: string, { doc: row, score }: Scored, snippet: boolean): SearchHit {
    const doc = this.docs[row]
    return { url: doc.url, title: doc.title, snippet: snippet ? lexicalSnippet(doc.text, query) : '', score }
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return (await this.searchMany([query], opts))[0]
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    this.check()
    const k = checkK(opts.k)
    const out: SearchHit[][] = queries.map(() => [])
    // A query without words (punctuation, emoji, blanks) has nothing to look for: no hits, as with every engine.
    const todo = queries.map((q, i) => [q, i] as const).filter(([q]) => k > 0 && this.docs.length > 0 && terms(q).length > 0)
    if (todo.length === 0) return out
    const vecs = await this.embedder.embedQueries(todo.map(([q]) => q))
    const ranked = this.approximate ? vecs.map((v) => this.rank(v, k, false)) : await this.rankExact(vecs, k)
    const snippet = opts.snippet !== false
    todo.forEach(([q, i], j) => (out[i] = ranked[j].map((s) => this.hit(q, s, snippet))))
    return out
  }

  /** Query vectors (for benchmarks comparing exact and approximate ranking). */
  embedQueries(queries: string[]): Promise<Float32Array[]> {
    return this.embedder.embedQueries(queries)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.dropScanner()
    if (this.opts.ownsEmbedder !== false) await this.embedder.close()
  }
}

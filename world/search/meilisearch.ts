// world/search/meilisearch: the Meilisearch engine through the official client (keep-alive HTTP, tasks awaited,
// batched multiSearch). Index settings are chosen so natural-language questions work; see MEILI_SETTINGS.
// It can own a local server (stopped on close); it does not know how a server is found for a world.
import { Meilisearch, type Settings, type Task } from 'meilisearch'
import { SearchError } from '../../infra/errors'
import { sha256 } from '../../infra/hash'
import { checkK } from './embedded'
import { keepAliveClient, MeiliConnectError, MeiliHttpError, rootMeiliError, type KeepAliveClient } from './meili-http'
import type { MeiliServer } from './meili-server'
import { SNIPPET_WORDS } from './snippet'
import { rawWords } from './tokenize'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './types'

export type MatchingStrategy = 'last' | 'all' | 'frequency'

/**
 * Words that carry no retrieval signal in questions. With Meilisearch's defaults, "where was Mabel Smith born"
 * finds nothing: words are dropped from the end and the leading "where" matches no document. As stop words
 * they are ignored in queries (and documents), and the matching strategy drops the rarest-information words.
 */
export const QUESTION_STOP_WORDS = [
  'a', 'an', 'the', 'of', 'in', 'on', 'at', 'to', 'for', 'by', 'with', 'from', 'as', 'and', 'or', 'not',
  'is', 'was', 'are', 'were', 'be', 'been', 'did', 'does', 'do', 'has', 'have', 'had',
  'who', 'whom', 'whose', 'what', 'which', 'where', 'when', 'how', 'why',
]

export interface MeiliSettingsChoice {
  matchingStrategy: MatchingStrategy
  stopWords: string[]
}

/** Chosen by measurement (bench/RESULTS.md, "Search engines"). */
export const DEFAULT_MEILI_CHOICE: MeiliSettingsChoice = { matchingStrategy: 'frequency', stopWords: QUESTION_STOP_WORDS }

export function meiliSettings(choice: MeiliSettingsChoice): Settings {
  return {
    searchableAttributes: ['title', 'text'],
    displayedAttributes: ['url', 'title', 'text'],
    sortableAttributes: ['url'],
    filterableAttributes: [],
    // `sort` last: among documents equal on every relevance rule, url ascending decides (deterministic ties).
    rankingRules: ['words', 'typo', 'proximity', 'attribute', 'exactness', 'sort'],
    stopWords: choice.stopWords,
    // Typos as Meilisearch ships them (1 typo from 5 letters, 2 from 9): agents misspell synthetic names.
    typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } },
    pagination: { maxTotalHits: 1000 },
  }
}

export interface MeiliIndexOptions {
  url: string
  apiKey?: string
  /** Index uid (default 'searchgym'). */
  indexUid?: string
  /** Delete the index first (a fresh build). */
  fresh?: boolean
  choice?: Partial<MeiliSettingsChoice>
  /** Queries per multiSearch request, and requests in flight, for searchMany. */
  batchSize?: number
  concurrency?: number
  /** A server this index owns: stopped on close. */
  server?: MeiliServer
  /** Meilisearch's own hybrid search with user-provided vectors (world/search/hybrid-meili); absent = keyword only. */
  vectors?: MeiliVectors
}

/** Vectors for Meilisearch hybrid search: passage vectors per document, one vector per query. */
export interface MeiliVectors {
  dimensions: number
  /** 0 = keyword only, 1 = semantic only. */
  semanticRatio: number
  docs(docs: SearchDoc[]): Promise<Float32Array[][]>
  queries(queries: string[]): Promise<Float32Array[]>
}

/** The embedder name under which user-provided vectors are stored in Meilisearch. */
export const MEILI_EMBEDDER = 'searchgym'

interface MeiliDocRow {
  id: string
  url: string
  title: string
  text: string
  _vectors?: Record<string, number[][]>
}

interface MeiliHitRow {
  url: string
  title: string
  _formatted?: { text?: string }
  _rankingScore?: number
}

function describe(e: unknown, url: string, what: string): SearchError {
  const root = rootMeiliError(e)
  if (root instanceof MeiliConnectError)
    return new SearchError('search.meili_unreachable', `cannot reach Meilisearch at ${url} (${what}): ${root.message}; start it or pass the right --meili-url`, { cause: e })
  if (root instanceof MeiliHttpError) {
    if (root.status === 401 || root.status === 403 || root.code.includes('api_key') || root.code.includes('authorization'))
      return new SearchError('search.meili_auth', `Meilisearch at ${url} refused the API key (${root.code}: ${root.message}); set the key in $MEILI_MASTER_KEY (or in the variable a --config file names in search.meiliKeyEnv)`, { cause: e })
    return new SearchError('search.meili_api', `Meilisearch at ${url} failed to ${what}: ${root.code}: ${root.message}`, { cause: e })
  }
  if (e instanceof SearchError) return e
  return new SearchError('search.meili', `Meilisearch at ${url} failed to ${what}: ${(e as Error).message}`, { cause: e })
}

export function meiliDocId(url: string): string {
  return sha256(url).slice(0, 40)
}

export class MeiliIndex implements SearchIndex {
  readonly engine: string
  readonly url: string
  readonly indexUid: string
  readonly choice: MeiliSettingsChoice
  private readonly http: KeepAliveClient
  private readonly client: Meilisearch
  private readonly batchSize: number
  private readonly concurrency: number
  private readonly server?: MeiliServer
  private readonly vectors?: MeiliVectors
  private closed = false

  private constructor(opts: MeiliIndexOptions) {
    this.url = opts.url.replace(/\/+$/, '')
    this.indexUid = opts.indexUid ?? 'searchgym'
    this.choice = { ...DEFAULT_MEILI_CHOICE, ...opts.choice }
    this.batchSize = opts.batchSize ?? 250
    this.concurrency = opts.concurrency ?? 2
    this.server = opts.server
    this.vectors = opts.vectors
    this.engine = opts.vectors ? 'meili-hybrid' : 'meilisearch'
    this.http = keepAliveClient()
    this.client = new Meilisearch({
      host: this.url,
      apiKey: opts.apiKey,
      httpClient: this.http.request,
      defaultWaitOptions: { timeout: 30 * 60_000, interval: 25 },
    })
  }

  /** Connect, check the key, create the index (if missing) and apply the settings. */
  static async open(opts: MeiliIndexOptions): Promise<MeiliIndex> {
    const idx = new MeiliIndex(opts)
    try {
      await idx.call('check the server health', () => idx.client.health())
      await idx.call('list indexes (key check)', () => idx.client.getIndexes({ limit: 1 }))
      if (opts.fresh) await idx.task('delete the index', () => idx.client.deleteIndex(idx.indexUid).waitTask(), true)
      await idx.task('create the index', () => idx.client.createIndex(idx.indexUid, { primaryKey: 'id' }).waitTask(), true)
      const settings: Settings = meiliSettings(idx.choice)
      if (idx.vectors) settings.embedders = { [MEILI_EMBEDDER]: { source: 'userProvided', dimensions: idx.vectors.dimensions } }
      await idx.task('apply the index settings', () => idx.client.index(idx.indexUid).updateSettings(settings).waitTask())
      return idx
    } catch (e) {
      await idx.close()
      throw e
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      throw describe(e, this.url, what)
    }
  }

  /** Run a task and check it succeeded (`tolerate`: index_already_exists / index_not_found are fine). */
  private async task(what: string, fn: () => Promise<Task>, tolerate = false): Promise<void> {
    const t = await this.call(what, fn)
    if (t.status === 'succeeded') return
    const code = t.error?.code ?? ''
    if (tolerate && (code === 'index_already_exists' || code === 'index_not_found')) return
    throw new SearchError('search.meili_task', `Meilisearch task '${what}' ${t.status}: ${code} ${t.error?.message ?? ''}`.trim())
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    this.assertOpen()
    const index = this.client.index<MeiliDocRow>(this.indexUid)
    const rows: MeiliDocRow[] = []
    for (const d of docs) {
      if (typeof d.url !== 'string' || d.url === '')
        throw new SearchError('search.doc', `every document needs a non-empty url (got ${JSON.stringify(d.url)})`)
      rows.push({ id: meiliDocId(d.url), url: d.url, title: d.title, text: d.text })
    }
    if (this.vectors) {
      const vecs = await this.vectors.docs(docs)
      rows.forEach((r, i) => (r._vectors = { [MEILI_EMBEDDER]: vecs[i].map((v) => Array.from(v)) }))
    }
    for (let i = 0; i < rows.length; i += 2000) {
      const part = rows.slice(i, i + 2000)
      await this.task(`index ${part.length} documents`, () => index.addDocuments(part).waitTask())
    }
  }

  private params(query: string, k: number, snippet: boolean, vector?: Float32Array) {
    return {
      ...(vector && this.vectors ? { vector: Array.from(vector), hybrid: { embedder: MEILI_EMBEDDER, semanticRatio: this.vectors.semanticRatio } } : {}),
      indexUid: this.indexUid,
      q: query,
      limit: k,
      sort: ['url:asc'],
      matchingStrategy: this.choice.matchingStrategy,
      attributesToRetrieve: ['url', 'title'],
      showRankingScore: true,
      ...(snippet ? { attributesToCrop: ['text'], cropLength: SNIPPET_WORDS, cropMarker: '…' } : {}),
    }
  }

  private toHits(rows: MeiliHitRow[], snippet: boolean): SearchHit[] {
    return rows.map((r) => ({
      url: r.url,
      title: r.title,
      snippet: snippet ? (r._formatted?.text ?? '') : '',
      score: r._rankingScore ?? 0,
    }))
  }

  /** User text → plain words: quotes (phrase search) and leading '-' (negation) never reach the server. */
  static plainQuery(query: string): string {
    return typeof query === 'string' ? rawWords(query).join(' ').toLowerCase() : ''
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return (await this.searchMany([query], opts))[0]
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    this.assertOpen()
    const k = checkK(opts.k)
    const snippet = opts.snippet !== false
    const out: SearchHit[][] = queries.map(() => [])
    const todo: number[] = []
    const plain = queries.map((q) => MeiliIndex.plainQuery(q))
    if (k > 0) plain.forEach((q, i) => q !== '' && todo.push(i))
    const vecs: (Float32Array | undefined)[] = queries.map(() => undefined)
    if (this.vectors && todo.length > 0) (await this.vectors.queries(todo.map((i) => queries[i]))).forEach((v, j) => (vecs[todo[j]] = v))
    const batches: number[][] = []
    for (let i = 0; i < todo.length; i += this.batchSize) batches.push(todo.slice(i, i + this.batchSize))
    let next = 0
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++]
        const res = await this.call('search', () =>
          this.client.multiSearch({ queries: batch.map((i) => this.params(plain[i], k, snippet, vecs[i])) }),
        )
        res.results.forEach((r, j) => (out[batch[j]] = this.toHits(r.hits as unknown as MeiliHitRow[], snippet)))
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker))
    return out
  }

  async get(url: string): Promise<SearchDoc | undefined> {
    this.assertOpen()
    if (typeof url !== 'string' || url === '') return undefined
    try {
      const d = await this.client.index<MeiliDocRow>(this.indexUid).getDocument(meiliDocId(url), { fields: ['url', 'title', 'text'] })
      return d.url === url ? { url: d.url, title: d.title, text: d.text } : undefined
    } catch (e) {
      const root = rootMeiliError(e)
      if (root instanceof MeiliHttpError && root.code === 'document_not_found') return undefined
      throw describe(e, this.url, `get document ${url}`)
    }
  }

  /** Number of documents in the index. */
  async count(): Promise<number> {
    const s = await this.call('read index stats', () => this.client.index(this.indexUid).getStats())
    return s.numberOfDocuments
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.http.close()
    await this.server?.stop()
  }

  private assertOpen(): void {
    if (this.closed) throw new SearchError('search.closed', 'this search index was closed; open it again')
  }
}

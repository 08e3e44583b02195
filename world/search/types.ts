// world/search/types: the SearchIndex contract every engine implements (embedded BM25, Meilisearch, later dense).

export interface SearchDoc {
  url: string
  title: string
  text: string
}

export interface SearchHit {
  url: string
  title: string
  /** A short window of the text centred on the matches. */
  snippet: string
  score: number
}

export interface SearchOptions {
  /** Number of hits (default 5). */
  k?: number
  /** Compute snippets (default true). Verification only needs urls and ranks, so it turns them off. */
  snippet?: boolean
}

export interface SearchIndex {
  /** Engine name recorded in verification results: 'embedded' | 'sqlite' | 'meilisearch' | ... */
  readonly engine: string
  upsert(docs: SearchDoc[]): Promise<void>
  search(query: string, opts?: SearchOptions): Promise<SearchHit[]>
  searchMany(queries: string[], opts?: SearchOptions): Promise<SearchHit[][]>
  get(url: string): Promise<SearchDoc | undefined>
  close(): Promise<void>
}

// world/search/sqlite-fts: a SQLite FTS5 engine (bm25 with a title weight) through better-sqlite3.
// Every query word is quoted, so user text is never FTS5 syntax. Kept as an alternative to the embedded engine.
import Database from 'better-sqlite3'
import { SearchError } from '../../infra/errors'
import type { Db } from '../../infra/store'
import { checkK } from './embedded'
import { SNIPPET_WORDS } from './snippet'
import { terms } from './tokenize'
import type { SearchDoc, SearchHit, SearchIndex, SearchOptions } from './types'

export interface SqliteFtsOptions {
  /** Database to keep the index in (default: a private in-memory database). */
  db?: Db
  /** Name of the FTS5 table (default 'search_fts'). */
  table?: string
  /** bm25 weight of the title column relative to the text column. */
  titleWeight?: number
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*$/

export class SqliteFtsIndex implements SearchIndex {
  readonly engine = 'sqlite'
  private readonly db: Db
  private readonly own: boolean
  private readonly table: string
  private readonly titleWeight: number
  private readonly stmts = new Map<string, Database.Statement>()

  constructor(opts: SqliteFtsOptions = {}) {
    this.table = opts.table ?? 'search_fts'
    if (!TABLE.test(this.table)) throw new SearchError('search.table', `invalid FTS table name '${this.table}'`)
    this.titleWeight = opts.titleWeight ?? 3
    this.own = opts.db === undefined
    this.db = opts.db ?? new Database(':memory:')
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${this.table} USING fts5(url UNINDEXED, title, text, tokenize = 'unicode61 remove_diacritics 2')`,
    )
  }

  private stmt(key: string, sql: string): Database.Statement {
    let s = this.stmts.get(key)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(key, s)
    }
    return s
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    const del = this.stmt('del', `DELETE FROM ${this.table} WHERE url = ?`)
    const ins = this.stmt('ins', `INSERT INTO ${this.table}(url, title, text) VALUES (?, ?, ?)`)
    this.db.transaction(() => {
      for (const d of docs) {
        if (typeof d.url !== 'string' || d.url === '')
          throw new SearchError('search.doc', `every document needs a non-empty url (got ${JSON.stringify(d.url)})`)
        del.run(d.url)
        ins.run(d.url, d.title, d.text)
      }
    })()
  }

  /** The FTS5 MATCH expression: each distinct word quoted, OR-ed; '' when the query has no words. */
  static matchExpression(query: string): string {
    const seen = new Set<string>()
    for (const t of terms(query)) seen.add(t)
    return [...seen].map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ')
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    return this.searchSync(query, opts)
  }

  searchSync(query: string, opts: SearchOptions = {}): SearchHit[] {
    const k = checkK(opts.k)
    if (k === 0 || typeof query !== 'string') return []
    const match = SqliteFtsIndex.matchExpression(query)
    if (match === '') return []
    const withSnippet = opts.snippet !== false
    const snip = withSnippet ? `snippet(${this.table}, 2, '', '', '…', ${SNIPPET_WORDS})` : `''`
    const s = this.stmt(
      `q${withSnippet}`,
      `SELECT url, title, ${snip} AS snippet, bm25(${this.table}, 0, ${this.titleWeight}, 1) AS rank FROM ${this.table}
       WHERE ${this.table} MATCH ? ORDER BY rank, url LIMIT ?`,
    )
    const rows = s.all(match, k) as { url: string; title: string; snippet: string; rank: number }[]
    return rows.map((r) => ({ url: r.url, title: r.title, snippet: r.snippet, score: -r.rank }))
  }

  async searchMany(queries: string[], opts: SearchOptions = {}): Promise<SearchHit[][]> {
    return queries.map((q) => this.searchSync(q, opts))
  }

  async get(url: string): Promise<SearchDoc | undefined> {
    const row = this.stmt('get', `SELECT url, title, text FROM ${this.table} WHERE url = ? LIMIT 1`).get(url) as
      | SearchDoc
      | undefined
    return row ? { url: row.url, title: row.title, text: row.text } : undefined
  }

  async close(): Promise<void> {
    this.stmts.clear()
    if (this.own && this.db.open) this.db.close()
  }
}

// world/indexing/search-handle: the world's open search index within one build run, shared by the 'index' and
// 'verify' stages (a local Meilisearch is started and filled once, not twice). The caller of the stages owns one
// SearchHandle per run and hands it to every stage on StageContext.search; verify releases it, and so does the owner
// when the run ends (a no-op once released).
import { openSearchIndex, type OpenSearchOptions } from './open'
import type { SearchIndex } from '../search/types'
import type { StageContext } from '../stage'

export class SearchHandle {
  private open: Promise<SearchIndex> | undefined

  /** The world's search index for this run (opened on first use; the configured engine). */
  index(ctx: Pick<StageContext, 'db' | 'config'>, opts: OpenSearchOptions = {}): Promise<SearchIndex> {
    if (!this.open) {
      const p = openSearchIndex({ db: ctx.db, config: ctx.config }, { engine: ctx.config.search.engine, ...opts })
      this.open = p
      p.catch(() => {
        if (this.open === p) this.open = undefined
      })
    }
    return this.open
  }

  /** Close the index if this handle holds one (stops a local Meilisearch). */
  async release(): Promise<void> {
    const p = this.open
    this.open = undefined
    if (p) await (await p).close()
  }
}

/** The world's search index for this build (opened on first use by the run's handle). */
export function stageSearchIndex(ctx: StageContext, opts: OpenSearchOptions = {}): Promise<SearchIndex> {
  return ctx.search.index(ctx, opts)
}

/** Close the run's index if it holds one (stops a local Meilisearch). */
export function releaseStageSearchIndex(ctx: StageContext): Promise<void> {
  return ctx.search.release()
}

// world/indexing/search-handle: one open search index per world folder within a build process, shared by the
// 'index' and 'verify' stages (a local Meilisearch is started and filled once, not twice). Released by verify.
import { resolve } from 'node:path'
import { openSearchIndex, type OpenSearchOptions } from './open'
import type { SearchIndex } from '../search/types'
import type { StageContext } from '../stage'

const open = new Map<string, Promise<SearchIndex>>()

/** The world's search index for this build (opened on first use; the configured engine). */
export function stageSearchIndex(ctx: StageContext, opts: OpenSearchOptions = {}): Promise<SearchIndex> {
  const key = resolve(ctx.dir)
  let p = open.get(key)
  if (!p) {
    p = openSearchIndex({ db: ctx.db, config: ctx.config }, { engine: ctx.config.search.engine, ...opts })
    open.set(key, p)
    p.catch(() => open.delete(key))
  }
  return p
}

/** Close the world's index if this process holds one (stops a local Meilisearch). */
export async function releaseStageSearchIndex(ctx: StageContext): Promise<void> {
  const key = resolve(ctx.dir)
  const p = open.get(key)
  open.delete(key)
  if (p) await (await p).close()
}

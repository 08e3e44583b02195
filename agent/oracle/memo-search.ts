// agent/oracle/memo-search: a GymWorld whose search answers a repeated (query, k) from memory — for the oracle check,
// where thousands of questions search the same names and verified queries again. Sound only over a deterministic
// engine (the embedded and SQLite indexes: the same query string gives the same hits); each caller gets its own copy
// of the hit list. The memory is bounded in two generations: when the recent one holds half the bound it becomes the
// old one (the previous old one is forgotten) and a hit in the old one moves back to the recent one — what is asked
// again stays, what was not asked for a generation goes (a big world's check used to forget everything at the bound).
import type { GymWorld, SearchResult } from '../../gym'

export interface MemoStats {
  hits: number
  misses: number
}

export function withMemoSearch(world: GymWorld, maxEntries = 100_000): GymWorld & { memo: MemoStats } {
  const half = Math.max(1, Math.floor(maxEntries / 2))
  let recent = new Map<string, SearchResult[]>()
  let old = new Map<string, SearchResult[]>()
  const keep = (key: string, hits: SearchResult[]) => {
    if (recent.size >= half) {
      old = recent
      recent = new Map()
    }
    recent.set(key, hits)
  }
  const stats: MemoStats = { hits: 0, misses: 0 }
  return {
    name: world.name,
    memo: stats,
    async search(query, k) {
      const key = `${k}\u0000${query}`
      let have = recent.get(key)
      if (have === undefined && (have = old.get(key)) !== undefined) {
        old.delete(key)
        keep(key, have)
      }
      if (have !== undefined) {
        stats.hits++
        return have.slice()
      }
      stats.misses++
      const got = await world.search(query, k)
      keep(key, got.slice())
      return got
    },
    searchMany: world.searchMany?.bind(world),
    access: (url) => world.access(url),
    qa: (id) => world.qa(id),
    listQa: (split) => world.listQa(split),
    close: () => world.close(),
  }
}

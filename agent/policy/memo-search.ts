// agent/policy/memo-search: a GymWorld whose search answers a repeated (query, k) from memory — for the oracle check,
// where thousands of questions search the same names and verified queries again. Sound only over a deterministic
// engine (the embedded and SQLite indexes: the same query string gives the same hits); each caller gets its own copy
// of the hit list. The memory is bounded: past `maxEntries` distinct queries it starts afresh.
import type { GymWorld, SearchResult } from '../../gym'

export interface MemoStats {
  hits: number
  misses: number
}

export function withMemoSearch(world: GymWorld, maxEntries = 100_000): GymWorld & { memo: MemoStats } {
  const memo = new Map<string, SearchResult[]>()
  const stats: MemoStats = { hits: 0, misses: 0 }
  return {
    name: world.name,
    memo: stats,
    async search(query, k) {
      const key = `${k}\u0000${query}`
      const have = memo.get(key)
      if (have !== undefined) {
        stats.hits++
        return have.slice()
      }
      stats.misses++
      const got = await world.search(query, k)
      if (memo.size >= maxEntries) memo.clear()
      memo.set(key, got.slice())
      return got
    },
    searchMany: world.searchMany?.bind(world),
    access: (url) => world.access(url),
    qa: (id) => world.qa(id),
    listQa: (split) => world.listQa(split),
    close: () => world.close(),
  }
}

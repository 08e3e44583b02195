// tests/oracle-check-memo: the oracle check's speed-ups keep its answers — withMemoSearch answers a repeated (query, k)
// from memory with the engine's own hits (a copy per caller), forgets past its bound what was not asked again, never memoises a
// failure; readQaByIds reads a shard's questions in the order asked, undefined for an unknown id; the oracle knowledge's
// bulk prefetch gives the same edges and verified queries as its per-edge reads.
import { join } from 'node:path'
import { withMemoSearch } from '../agent/oracle/memo-search'
import type { GymWorld, SearchResult } from '../gym'
import { readQa, readQaById, readQaByIds, worldReader } from '../world'
import { worldOracleKnowledge } from '../agent/oracle/oracle-knowledge'
import { openDb } from '../infra/store'
import { openFixtureWorld } from './fixtures/gym-fixture-world'
import { sharedTinyWorld } from './helpers/shared-world'

function counting(world: GymWorld): GymWorld & { calls: number } {
  const w = {
    ...world,
    calls: 0,
    async search(query: string, k: number): Promise<SearchResult[]> {
      w.calls++
      if (query === 'boom') throw new Error('engine down')
      return world.search(query, k)
    },
  }
  return w
}

test('a repeated search is answered from memory with the same hits, a copy per caller', async () => {
  const inner = counting(openFixtureWorld())
  const memo = withMemoSearch(inner)
  const first = await memo.search('Marie Alder', 3)
  expect(first.length).toBeGreaterThan(0)
  first.pop() // a caller changing its list must not change what the next caller gets
  const again = await memo.search('Marie Alder', 3)
  expect(again).toEqual(await inner.search('Marie Alder', 3))
  expect(memo.memo).toEqual({ hits: 1, misses: 1 })
  // k is part of the key
  expect((await memo.search('Marie Alder', 1)).length).toBeLessThanOrEqual(1)
  expect(memo.memo.misses).toBe(2)
  // failures are not memoised: the engine is asked again
  await expect(memo.search('boom', 3)).rejects.toThrow('engine down')
  await expect(memo.search('boom', 3)).rejects.toThrow('engine down')
  expect(memo.memo.misses).toBe(4)
})

test('past its bound the memory forgets what was not asked again for a generation', async () => {
  const inner = counting(openFixtureWorld())
  const tiny = withMemoSearch(inner, 2)
  for (const q of ['a', 'b', 'c', 'a']) await tiny.search(q, 2)
  // generations of one: a, then b (a old), then c (b old, a forgotten): a is asked of the engine again
  expect(tiny.memo).toEqual({ hits: 0, misses: 4 })
  await tiny.search('c', 2)
  expect(tiny.memo.hits).toBe(1)
  // generations of two: a is asked again within each generation and survives both turnovers (a bound that cleared
  // everything at 4 entries would have forgotten it at e: 1 hit, 6 misses)
  const memo = withMemoSearch(counting(openFixtureWorld()), 4)
  for (const q of ['a', 'b', 'c', 'a', 'd', 'e', 'a']) await memo.search(q, 2)
  expect(memo.memo).toEqual({ hits: 2, misses: 5 })
  expect(await memo.search('a', 2)).toEqual(await inner.search('a', 2))
})

test('readQaByIds reads the asked questions in the asked order, like readQaById one by one', async () => {
  const w = await sharedTinyWorld()
  const db = openDb(join(w.dir, 'world.db'), { readonly: true })
  try {
    const all = readQa(db, ['train', 'bench', 'excluded', 'dropped'])
    const ids = [all[7].id, 'no-such-id', all[0].id, all[all.length - 1].id]
    const got = readQaByIds(db, ids)
    expect(got.map((q) => q?.id)).toEqual([all[7].id, undefined, all[0].id, all[all.length - 1].id])
    for (const [i, id] of ids.entries()) expect(got[i]).toEqual(readQaById(db, id))
  } finally {
    db.close()
  }
})

test('prefetched edges and verified queries are the ones read edge by edge', async () => {
  const w = await sharedTinyWorld()
  const db = openDb(join(w.dir, 'world.db'), { readonly: true })
  try {
    const ids = (db.prepare('SELECT id FROM edges ORDER BY id').pluck().all() as string[]).concat(['no-such-edge'])
    const lazy = worldOracleKnowledge(worldReader(db))
    const bulk = worldOracleKnowledge(worldReader(db))
    bulk.prefetch(ids.filter((_, i) => i % 2 === 0)) // half prefetched, the rest read on first use
    let withQueries = 0
    for (const id of ids) {
      expect(bulk.edge(id)).toEqual(lazy.edge(id))
      expect(bulk.verifiedQueries(id)).toEqual(lazy.verifiedQueries(id))
      if (lazy.verifiedQueries(id).length > 1) withQueries++
    }
    expect(withQueries).toBeGreaterThan(50) // lists long enough for their order to matter
  } finally {
    db.close()
  }
})

// tests/world-search-pool: a SearchPool (worker threads, each with its own copy of the world's embedded index built
// from the world file) answers a batch of queries exactly as the world's own index does, in query order.
import { openSearchIndex, readQa } from '../world'
import { SearchPool } from '../world/indexing/search-pool'
import { openDb } from '../infra/store'
import { join } from 'node:path'
import { sharedTinyWorld } from './helpers/shared-world'

test('two search workers give the same hits as one in-process index, in order', async () => {
  const w = await sharedTinyWorld()
  const db = openDb(join(w.dir, 'world.db'), { readonly: true })
  const queries = readQa(db, ['train']).slice(0, 300).map((q) => q.question)
  db.close()
  queries.push('', 'zzzz no such words qqq')
  const local = await openSearchIndex(w.dir)
  const pool = await SearchPool.start(w.dir, 'embedded', 2)
  try {
    expect(pool.size).toBe(2)
    const want = await local.searchMany(queries, { k: 5, snippet: false })
    const got = await pool.searchMany(queries, { k: 5, snippet: false })
    expect(got).toHaveLength(queries.length)
    expect(got).toEqual(want)
    expect(want.filter((h) => h.length > 0).length).toBeGreaterThan(250)
  } finally {
    await pool.close()
    await local.close()
  }
  await expect(pool.searchMany(['x'])).rejects.toThrow(/closed/)
})

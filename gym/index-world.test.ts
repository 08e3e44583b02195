// gym/index-world tests: the SearchIndex adapter — search hits (with scores), searchMany, access via get(), QA by
// id and split, close — on a small in-test index over the fixture documents.
import type { SearchDoc, SearchHit, SearchIndex } from '../world/search/types'
import { FIXTURE_DOCS, FIXTURE_QA, fixtureSearch } from '../tests/fixtures/gym-fixture-world'
import { gymWorldFromIndex } from './index-world'

function memoryIndex(docs: SearchDoc[]): SearchIndex & { closed: boolean } {
  const byUrl = new Map(docs.map((d) => [d.url, d]))
  const search = async (q: string, o?: { k?: number }): Promise<SearchHit[]> =>
    fixtureSearch(docs, q, o?.k ?? 5).map((r, i) => ({ ...r, score: 10 - i }))
  return {
    engine: 'memory',
    closed: false,
    upsert: async () => {},
    search,
    searchMany: (qs, o) => Promise.all(qs.map((q) => search(q, o))),
    get: async (url) => byUrl.get(url),
    async close() {
      this.closed = true
    },
  }
}

describe('gymWorldFromIndex', () => {
  it('serves search, access, QA and closes the index', async () => {
    const idx = memoryIndex(FIXTURE_DOCS)
    const w = gymWorldFromIndex('mem', idx, FIXTURE_QA)
    const hits = await w.search('Harrow House', 2)
    expect(hits[0]).toMatchObject({ title: 'Harrow House', url: 'https://fixture.wiki/Harrow_House', score: 10 })
    expect(hits).toHaveLength(2)
    expect((await w.searchMany!(['Velmora', 'Brenlow'], 1)).map((h) => h[0].title)).toEqual(['Velmora', 'Brenlow'])
    expect(await w.access('https://fixture.wiki/Brenlow')).toEqual(FIXTURE_DOCS[3])
    expect(await w.access('https://fixture.wiki/None')).toBeUndefined()
    expect(w.qa('fx-2')?.answer).toBe('Brenlow')
    expect(w.listQa('bench').map((q) => q.id)).toEqual(['fx-3', 'fx-4'])
    expect(w.listQa()).toHaveLength(4)
    await w.close()
    expect(idx.closed).toBe(true)
  })
})

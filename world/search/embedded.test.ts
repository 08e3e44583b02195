// world/search/embedded.test: the embedded BM25 engine passes the shared SearchIndex contract, plus its own details.
import { runSearchIndexContract } from './search-index.contract'
import { EmbeddedIndex } from './embedded'
import { syntheticCorpus } from '../../bench/perf/synthetic-corpus'

runSearchIndexContract({ name: 'embedded', make: async () => new EmbeddedIndex() })

describe('EmbeddedIndex', () => {
  it('rejects a bad k and a closed index with typed errors', async () => {
    const idx = new EmbeddedIndex()
    await idx.upsert([{ url: 'u', title: 'T', text: 'alpha beta' }])
    await expect(idx.search('alpha', { k: -1 })).rejects.toThrow(/non-negative integer/)
    await expect(idx.search('alpha', { k: 1.5 })).rejects.toThrow(/non-negative integer/)
    await idx.close()
    await expect(idx.search('alpha')).rejects.toThrow(/closed/)
  })

  it('boosts the title over the body', async () => {
    const idx = new EmbeddedIndex()
    await idx.upsert([
      { url: 'a', title: 'Harbour', text: 'A place with boats and a pier and some more words here.' },
      { url: 'b', title: 'Pier', text: 'The harbour is mentioned once in this text with other words.' },
    ])
    expect((await idx.search('harbour')).map((h) => h.url)).toEqual(['a', 'b'])
  })

  it('skips snippets when asked', async () => {
    const idx = new EmbeddedIndex()
    await idx.upsert([{ url: 'a', title: 'A', text: 'alpha beta gamma' }])
    expect((await idx.search('beta', { snippet: false }))[0].snippet).toBe('')
    expect((await idx.search('beta'))[0].snippet).toBe('alpha beta gamma')
  })
})

describe('EmbeddedIndex pruning', () => {
  it('returns exactly the unpruned ranking (urls and scores) on a realistic corpus', async () => {
    const { docs, queries } = syntheticCorpus(3, 400, 120, 600)
    const fast = new EmbeddedIndex()
    const slow = new EmbeddedIndex({ prune: false })
    await fast.upsert(docs)
    await slow.upsert(docs)
    const qs = [...queries.map((q) => q.query), 'the of and in', 'was born', 'zzz unknown words', 'a']
    for (const k of [1, 5, 20]) {
      const a = await fast.searchMany(qs, { k, snippet: false })
      const b = await slow.searchMany(qs, { k, snippet: false })
      expect(a).toEqual(b)
    }
  })
})

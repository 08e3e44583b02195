// tests/world-search-prune: the embedded engine's MaxScore early termination is exact — on a real tiny world's corpus
// (its stored verification queries, its questions, and seeded random word queries) and on larger seeded corpora, the
// pruned path returns the same urls in the same order with the same scores, bit for bit, as the exhaustive path;
// ties at the k-th place go by url as before; and pruning really skips documents (so these comparisons test it).
import { Rng } from '../infra/rng'
import { openWorld } from '../world/store/open'
import { readSearchDocs } from '../world/indexing/open'
import { EmbeddedIndex } from '../world/search/embedded'
import type { SearchDoc } from '../world/search/types'
import { terms } from '../world/search/tokenize'
import { syntheticCorpus } from '../bench/perf/synthetic-corpus'
import { sharedTinyWorld } from './helpers/shared-world'

const KS = [1, 2, 5, 10, 64]

/** Seeded queries of 1–9 words drawn from the corpus (titles, body words, function words), some unknown words. */
function randomQueries(docs: SearchDoc[], n: number, seed: number): string[] {
  const rng = new Rng(seed)
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const words: string[] = []
    const len = rng.int(1, 9)
    for (let j = 0; j < len; j++) {
      const d = rng.pick(docs)
      const r = rng.next()
      const pool = r < 0.3 ? terms(d.title) : r < 0.95 ? terms(d.text) : [`zz${rng.int(0, 99)}`]
      if (pool.length > 0) words.push(rng.pick(pool))
    }
    out.push(words.join(' '))
  }
  return out
}

interface Compared {
  queries: number
  /** Documents scored to the end, pruned and exhaustive. */
  scoredPruned: number
  scoredAll: number
}

/** Every query at every k through both paths: same urls, order and scores (Object.is: bit for bit). */
function compareAll(docs: SearchDoc[], queries: string[]): Compared {
  const fast = new EmbeddedIndex()
  const slow = new EmbeddedIndex({ prune: false })
  fast.upsertSync(docs)
  slow.upsertSync(docs)
  const out: Compared = { queries: 0, scoredPruned: 0, scoredAll: 0 }
  const bad: string[] = []
  for (const q of queries) {
    for (const k of KS) {
      const a = fast.searchSync(q, { k, snippet: false })
      out.scoredPruned += fast.lastStats.scored
      const b = slow.searchSync(q, { k, snippet: false })
      out.scoredAll += slow.lastStats.scored
      out.queries++
      const same = a.length === b.length && a.every((h, i) => h.url === b[i].url && Object.is(h.score, b[i].score))
      if (!same && bad.length < 3) bad.push(`k=${k} "${q}": pruned ${JSON.stringify(a.map((h) => [h.url, h.score]))} vs ${JSON.stringify(b.map((h) => [h.url, h.score]))}`)
    }
  }
  expect(bad).toEqual([])
  return out
}

describe('EmbeddedIndex MaxScore pruning is exact', () => {
  it('on the tiny world: stored verification queries, questions and random word queries', async () => {
    const { dir } = await sharedTinyWorld()
    const w = openWorld(dir)
    let docs: SearchDoc[]
    let queries: string[]
    try {
      docs = readSearchDocs(w.db)
      const stored = (w.db.prepare('SELECT query FROM verification_queries ORDER BY edge_id, qi').all() as { query: string }[]).map((r) => r.query)
      const questions = (w.db.prepare('SELECT question FROM qa ORDER BY seq').all() as { question: string }[]).map((r) => r.question)
      const rng = new Rng(19)
      queries = [...rng.sample(stored, Math.min(1500, stored.length)), ...rng.sample(questions, Math.min(500, questions.length)), ...randomQueries(docs, 1000, 7)]
    } finally {
      w.close()
    }
    expect(docs.length).toBeGreaterThan(50)
    const r = compareAll(docs, queries)
    // The bound must actually cut: otherwise equality above would say nothing about it.
    expect(r.scoredPruned).toBeLessThan(r.scoredAll * 0.5)
  }, 300_000)

  it('on a seeded corpus of 2,000 documents with relation words and Zipf filler', () => {
    const { docs, queries } = syntheticCorpus(5, 2000, 120, 800)
    const r = compareAll(docs, [...queries.map((q) => q.query), ...randomQueries(docs, 800, 11), 'the of and in', 'was born in the', 'a'])
    expect(r.scoredPruned).toBeLessThan(r.scoredAll * 0.2)
  })

  it('breaks ties at the k-th place by url, as the exhaustive path does', () => {
    // Many documents with the same text (same score), inserted in an order unlike their urls, plus a few better ones.
    const rng = new Rng(3)
    const docs: SearchDoc[] = []
    for (let i = 0; i < 300; i++) docs.push({ url: `https://t.test/${String(i).padStart(3, '0')}`, title: 'Same', text: i % 50 === 0 ? 'alpha alpha beta gamma' : 'alpha beta filler words here' })
    for (let i = 0; i < 200; i++) docs.push({ url: `https://t.test/x${i}`, title: 'Other', text: 'beta only words' })
    rng.shuffle(docs)
    compareAll(docs, ['alpha beta', 'alpha', 'beta', 'alpha beta gamma', 'same alpha', 'other beta words', 'gamma alpha'])
    const idx = new EmbeddedIndex()
    idx.upsertSync(docs)
    const top = idx.searchSync('alpha beta', { k: 10, snippet: false }).map((h) => h.url)
    // The 6 double-alpha documents first (by url), then the ties by url.
    expect(top).toEqual(['000', '050', '100', '150', '200', '250', '001', '002', '003', '004'].map((s) => `https://t.test/${s}`))
  })

  it('keeps a document whose bound equals the k-th score exactly (identical documents, urls against insertion order)', () => {
    // Every bound here is met exactly by the documents' sums, so a bound that gives up on equality loses the ties.
    const same: SearchDoc[] = []
    for (let i = 99; i >= 0; i--) same.push({ url: `https://s.test/${String(i).padStart(2, '0')}`, title: 'Twin', text: 'alpha beta gamma delta' })
    const r = compareAll(same, ['alpha beta', 'alpha beta gamma', 'twin alpha', 'delta gamma beta alpha'])
    expect(r.queries).toBe(4 * KS.length)
    const idx = new EmbeddedIndex()
    idx.upsertSync(same)
    expect(idx.searchSync('alpha beta', { k: 3, snippet: false }).map((h) => h.url)).toEqual(['00', '01', '02'].map((s) => `https://s.test/${s}`))
  })
})

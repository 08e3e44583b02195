// world/search/search-index.contract: the one contract suite every SearchIndex engine passes (used from *.test.ts files).
// Call runSearchIndexContract({ name, make }) inside a test file; `make` returns a fresh, empty index.
import { Rng } from '../../infra/rng'
import type { SearchDoc, SearchHit, SearchIndex } from './types'

export interface ContractOptions {
  name: string
  make: () => Promise<SearchIndex>
  /**
   * Dense-style engines score every document (there is no "does not match"): where a lexical engine must leave a
   * document out, these must rank it below the documents that do match instead. Default false.
   */
  ranksEveryDoc?: boolean
}

const FILLER = (
  'river market bridge harbour winter garden valley station library council museum orchard ' +
  'festival quarry meadow tower chapel forest canal mill school square theatre fountain'
).split(' ')

/** Deterministic filler prose of `words` words (seeded, no query words in it). */
function filler(rng: Rng, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(rng.pick(FILLER))
  return out.join(' ') + '.'
}

/** The fixture corpus: people, places and a few traps (twins for tie order, a long doc for snippets). */
export function contractCorpus(): SearchDoc[] {
  const rng = new Rng(7)
  const docs: SearchDoc[] = [
    {
      url: 'https://w.test/wiki/Mabel_Smith',
      title: 'Mabel Smith',
      text: `Mabel Smith (born 1931) is a novelist. Mabel Smith was born in Dorchester. ${filler(rng, 40)} She wrote The Quiet Harbour.`,
    },
    {
      url: 'https://w.test/wiki/Dorchester',
      title: 'Dorchester',
      text: `Dorchester is a town. ${filler(rng, 30)} Notable people born in Dorchester include Mabel Smith.`,
    },
    {
      url: 'https://w.test/wiki/The_Quiet_Harbour',
      title: 'The Quiet Harbour',
      text: `The Quiet Harbour is a novel written by Mabel Smith. ${filler(rng, 30)}`,
    },
    {
      url: 'https://w.test/wiki/Zoe_Muller',
      title: 'Zoë Müller',
      text: `Zoë Müller is a composer from Zürich. ${filler(rng, 30)} Müller founded the Zürich Ensemble.`,
    },
    {
      url: 'https://w.test/wiki/Smith-Jones_Foundry',
      title: 'Smith-Jones Foundry',
      text: `The Smith-Jones Foundry (C++ tooling, 50% owned) makes bells. ${filler(rng, 30)} It is NOT related to Mabel.`,
    },
    {
      url: 'https://w.test/wiki/Long_Chronicle',
      title: 'Long Chronicle',
      text: `${filler(rng, 200)} The zanzibar expedition of 1888 ended at the lighthouse. ${filler(rng, 200)}`,
    },
    // Two documents with identical content: their order must be decided by url (a before b).
    { url: 'https://w.test/wiki/Twin_B', title: 'Twin Hall', text: 'Twin Hall is a concert venue with a pipe organ.' },
    { url: 'https://w.test/wiki/Twin_A', title: 'Twin Hall', text: 'Twin Hall is a concert venue with a pipe organ.' },
  ]
  for (let i = 0; i < 24; i++) {
    const n = String(i).padStart(2, '0')
    docs.push({
      url: `https://w.test/wiki/Village_${n}`,
      title: `Village ${n}`,
      text: `Village ${n} is a village near the river. ${filler(rng, 25 + i)}`,
    })
  }
  return docs
}

/** User text that must never be read as query syntax by any engine. */
export const HOSTILE_QUERIES: string[] = [
  '"Mabel Smith"',
  '"Mabel Smith',
  'Mabel"',
  "Mabel's novel",
  'Smith-Jones',
  '-Smith',
  'title:Mabel',
  'text:Dorchester url:x',
  '(Mabel OR Smith',
  'Mabel) AND (',
  'Mabel*',
  '*',
  '^Mabel',
  'Mabel^2',
  'Mabel AND Smith',
  'Mabel OR',
  'NOT Mabel',
  'AND OR NOT NEAR',
  'NEAR(Mabel Smith, 2)',
  'Mabel NEAR Smith',
  '{Mabel}',
  '[Dorchester]',
  'C++',
  '50%',
  'Mabel; DROP TABLE search_fts; --',
  "' OR 1=1 --",
  'a\\b\\c',
  'Zürich',
  'Zoë Müller',
  '北京 大学',
  'مابل سميث',
  '🙂',
  'Mabel 🙂 Smith',
  '\u0000Mabel\u0000',
  'Mabel\tSmith\nborn',
  '',
  ' ',
  '\t\n  ',
  '~~~',
  '+Mabel +Smith',
  'Mabel~2',
  '?',
  ':',
]

function checkHits(hits: SearchHit[], k: number): void {
  expect(Array.isArray(hits)).toBe(true)
  expect(hits.length).toBeLessThanOrEqual(k)
  for (const h of hits) {
    expect(typeof h.url).toBe('string')
    expect(typeof h.title).toBe('string')
    expect(typeof h.snippet).toBe('string')
    expect(Number.isFinite(h.score)).toBe(true)
  }
  expect(new Set(hits.map((h) => h.url)).size).toBe(hits.length)
}

const urls = (hits: SearchHit[]) => hits.map((h) => h.url)

export function runSearchIndexContract({ name, make, ranksEveryDoc = false }: ContractOptions): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let index: SearchIndex
    const corpus = contractCorpus()

    beforeAll(async () => {
      index = await make()
      await index.upsert(corpus)
    })
    afterAll(async () => {
      await index?.close()
    })

    it('names its engine', () => {
      expect(typeof index.engine).toBe('string')
      expect(index.engine.length).toBeGreaterThan(0)
    })

    it('honours k', async () => {
      for (const k of [1, 3, 5, 10, 20]) {
        const hits = await index.search('village river', { k })
        checkHits(hits, k)
        expect(hits.length).toBe(k)
      }
      expect(await index.search('village river', { k: 0 })).toEqual([])
      const five = await index.search('village river')
      expect(five.length).toBe(5)
      const all = await index.search('village river', { k: 100 })
      expect(all.length).toBeGreaterThanOrEqual(24)
      expect(all.length).toBeLessThanOrEqual(corpus.length)
    })

    it('ranks consistently: a smaller k is a prefix of a larger k, and repeats are identical', async () => {
      const ten = await index.search('village river', { k: 10 })
      const three = await index.search('village river', { k: 3 })
      expect(urls(three)).toEqual(urls(ten).slice(0, 3))
      expect(await index.search('village river', { k: 10 })).toEqual(ten)
      for (let i = 1; i < ten.length; i++) expect(ten[i - 1].score).toBeGreaterThanOrEqual(ten[i].score)
    })

    it('breaks ties by url', async () => {
      const hits = await index.search('twin hall concert organ', { k: 2 })
      expect(urls(hits)).toEqual(['https://w.test/wiki/Twin_A', 'https://w.test/wiki/Twin_B'])
      expect(hits[0].score).toBe(hits[1].score)
    })

    it('finds the document a question asks about', async () => {
      const hits = await index.search('where was Mabel Smith born', { k: 5 })
      expect(urls(hits)).toContain('https://w.test/wiki/Mabel_Smith')
      const top = await index.search('Mabel Smith', { k: 1 })
      expect(urls(top)).toEqual(['https://w.test/wiki/Mabel_Smith'])
    })

    it('searches by title words first', async () => {
      const hits = await index.search('quiet harbour', { k: 3 })
      expect(hits[0].url).toBe('https://w.test/wiki/The_Quiet_Harbour')
      expect(hits[0].title).toBe('The Quiet Harbour')
    })

    it('folds case and diacritics', async () => {
      for (const q of ['zoe muller', 'Zoë Müller', 'ZURICH ensemble']) {
        const hits = await index.search(q, { k: 3 })
        expect(urls(hits)).toContain('https://w.test/wiki/Zoe_Muller')
      }
    })

    it('centres snippets on the matches', async () => {
      const hits = await index.search('zanzibar expedition', { k: 1 })
      expect(hits[0].url).toBe('https://w.test/wiki/Long_Chronicle')
      const snip = hits[0].snippet
      expect(snip.toLowerCase()).toContain('zanzibar')
      // The match sits ~200 words into a ~400-word document: the window is short and starts cut.
      expect(snip.split(/\s+/).length).toBeLessThan(60)
      expect(snip.startsWith('…')).toBe(true)
      expect(snip.endsWith('…')).toBe(true)
      const mabel = await index.search('Dorchester', { k: 5 })
      for (const h of mabel) {
        // An engine that ranks every document also returns documents without the word: those have nothing to centre on.
        if (ranksEveryDoc && !(await index.get(h.url))!.text.includes('Dorchester')) continue
        expect(h.snippet.toLowerCase()).toContain('dorchester')
      }
      if (ranksEveryDoc) expect(mabel[0].snippet.toLowerCase()).toContain('dorchester')
    })

    it('searchMany equals one search per query, in order', async () => {
      const qs = ['Mabel Smith', 'village river', '', 'zanzibar', 'nothing-matches-qqqxz', 'Dorchester']
      const many = await index.searchMany(qs, { k: 4 })
      expect(many.length).toBe(qs.length)
      for (let i = 0; i < qs.length; i++) expect(many[i]).toEqual(await index.search(qs[i], { k: 4 }))
      expect(await index.searchMany([], { k: 4 })).toEqual([])
    })

    it('get returns the document, and undefined for an unknown url', async () => {
      const d = await index.get('https://w.test/wiki/Dorchester')
      expect(d).toEqual(corpus[1])
      expect(await index.get('https://w.test/wiki/Nowhere')).toBeUndefined()
      expect(await index.get('')).toBeUndefined()
      expect(await index.get('"; DROP TABLE x; --')).toBeUndefined()
    })

    it('never reads user text as query syntax', async () => {
      for (const q of HOSTILE_QUERIES) {
        let hits: SearchHit[]
        try {
          hits = await index.search(q, { k: 5 })
        } catch (e) {
          throw new Error(`query ${JSON.stringify(q)} threw: ${(e as Error).message}`)
        }
        checkHits(hits, 5)
      }
      const many = await index.searchMany(HOSTILE_QUERIES, { k: 5 })
      expect(many.length).toBe(HOSTILE_QUERIES.length)
      // Operators are plain words: phrase quotes, negation, fields, wildcards, boosts and booleans do not act.
      for (const q of ['"Mabel Smith"', 'Mabel -Smith', 'title:Mabel', 'NOT Mabel', 'Mabel*', '^Mabel', '(Mabel OR Smith', 'Mabel NEAR Smith']) {
        const hits = await index.search(q, { k: 5 })
        expect({ q, found: urls(hits).includes('https://w.test/wiki/Mabel_Smith') }).toEqual({ q, found: true })
      }
      const hy = await index.search('Smith-Jones', { k: 3 })
      expect(urls(hy)).toContain('https://w.test/wiki/Smith-Jones_Foundry')
    })

    it('returns no hits for queries without words', async () => {
      for (const q of ['', ' ', '\t\n  ', '🙂', '?', ':', '*', '~~~']) expect({ q, hits: await index.search(q) }).toEqual({ q, hits: [] })
    })

    it('survives a 10 kB query', async () => {
      const rng = new Rng(3)
      const words: string[] = ['Mabel', 'Smith']
      while (words.join(' ').length < 10_000) words.push(rng.pick([...FILLER, 'AND', 'OR', '"', '(', '*', 'NEAR', '-x', 'ü']))
      const q = words.join(' ')
      expect(q.length).toBeGreaterThanOrEqual(10_000)
      const hits = await index.search(q, { k: 5 })
      checkHits(hits, 5)
      const junk = '(('.repeat(2_500) + '"'.repeat(5_000)
      checkHits(await index.search(junk, { k: 5 }), 5)
    })

    it('replaces a document on upsert of the same url', async () => {
      const fresh = await make()
      try {
        await fresh.upsert(corpus.slice(0, 4))
        const before = await fresh.search('Notable people', { k: 5 })
        await fresh.upsert([{ url: corpus[1].url, title: 'Dorchester', text: 'Dorchester is now a quokka sanctuary.' }])
        const hits = await fresh.search('quokka sanctuary', { k: 5 })
        expect((await fresh.get(corpus[1].url))?.text).toBe('Dorchester is now a quokka sanctuary.')
        const old = await fresh.search('Notable people', { k: 5 })
        if (!ranksEveryDoc) {
          expect(urls(hits)).toEqual([corpus[1].url])
          expect(urls(old)).not.toContain(corpus[1].url)
        } else {
          // Still four documents, one per url; the new text ranks first, the old text no longer scores as it did.
          expect(urls(hits)[0]).toBe(corpus[1].url)
          expect([...urls(hits)].sort()).toEqual(corpus.slice(0, 4).map((d) => d.url).sort())
          expect(urls(before)[0]).toBe(corpus[1].url)
          const scoreOf = (hs: SearchHit[]) => hs.find((h) => h.url === corpus[1].url)!.score
          expect(scoreOf(old)).toBeLessThan(scoreOf(before))
        }
      } finally {
        await fresh.close()
      }
    })
  })
}

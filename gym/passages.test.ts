// gym/passages tests: a page as ~100-word passages (title first, sentences whole, every sentence once, in order) and
// the passage retriever over a fixture world (query words rank passages; deterministic; empty query answers []).
import { PASSAGE_WORDS, passageRetriever, splitPassages } from './passages'
import { FIXTURE_DOCS, openFixtureWorld } from '../tests/fixtures/gym-fixture-world'

const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} says that entity ${i} is linked to entity ${i + 1}.`)

test('passages: the title as first line, then whole sentences of about 100 words, nothing lost', () => {
  const ps = splitPassages('https://w/A', 'A Title', sentences.join(' '))
  expect(ps.length).toBeGreaterThan(5)
  ps.forEach((p, i) => {
    expect(p.contents.split('\n')[0]).toBe('A Title')
    expect(p.id).toBe(`https://w/A#passage=${i + 1}`)
    expect(p.url).toBe('https://w/A')
    const words = p.contents.split('\n')[1].split(/\s+/).length
    expect(words).toBeLessThanOrEqual(PASSAGE_WORDS)
    if (i < ps.length - 1) expect(words).toBeGreaterThan(PASSAGE_WORDS - 15)
  })
  expect(ps.map((p) => p.contents.split('\n')[1]).join(' ')).toBe(sentences.join(' '))
  expect(splitPassages('u', 't', '')).toEqual([])
})

test('the passage retriever ranks passages by the query words they hold, the same way every time', async () => {
  const world = openFixtureWorld()
  const r = passageRetriever(world)
  const doc = FIXTURE_DOCS[0]
  const q = doc.text.split(/\s+/).slice(0, 6).join(' ')
  const a = await r(q, 3)
  expect(a.length).toBeGreaterThan(0)
  expect(a.length).toBeLessThanOrEqual(3)
  expect(a[0].url).toBe(doc.url)
  expect(a[0].contents.startsWith(`${doc.title}\n`)).toBe(true)
  expect(await passageRetriever(world)(q, 3)).toEqual(a)
  expect(await r('   ', 3)).toEqual([])
})

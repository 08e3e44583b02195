// gym/pages tests: paged access — pages fit the budget, cut between sentences, and join back to the text; the env
// serves a long document page by page (page argument, `#page=k` form, bad pages) and short ones exactly as before.
import { documentPages, paginate, renderPage } from './pages'
import { SearchEnv } from './env'
import { resolveGymOptions } from './make-env'
import { FIXTURE_DOCS, FIXTURE_QA, openFixtureWorld } from '../tests/fixtures/gym-fixture-world'

const sentences = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} says that entity ${i} is linked to entity ${i + 1}.`)
const long = [sentences.slice(0, 100).join(' '), sentences.slice(100).join(' ')].join('\n')

test('pages fit the budget, keep every sentence whole and join back to the text', () => {
  const pages = paginate(long, 1000)
  expect(pages.length).toBeGreaterThan(6)
  for (const p of pages) expect(p.length).toBeLessThanOrEqual(1000)
  expect(pages.join('')).toBe(long)
  for (const s of sentences) expect(pages.filter((p) => p.includes(s))).toHaveLength(1)
  expect(paginate('short', 1000)).toEqual(['short'])
  // a single sentence longer than a page is cut hard (nothing is lost)
  const huge = 'x'.repeat(2500)
  expect(paginate(huge, 1000).join('')).toBe(huge)
})

test('every rendered page of a long document fits the observation cap', () => {
  const cap = 1500
  const pages = documentPages('A Title', 'https://w/A', long, cap)
  expect(pages.length).toBeGreaterThan(1)
  pages.forEach((p, i) => expect(renderPage('A Title', 'https://w/A', p, i + 1, pages.length).length).toBeLessThanOrEqual(cap))
  expect(documentPages('A Title', 'https://w/A', 'short text', cap)).toEqual(['short text'])
})

describe('SearchEnv paged access', () => {
  const world = openFixtureWorld()
  const doc = FIXTURE_DOCS[0]
  const tc = (args: unknown) => `<tool_call>${JSON.stringify({ name: 'access', arguments: args })}</tool_call>`

  it('a page that fits the cap is served as before, without a page line', async () => {
    const env = new SearchEnv(world, FIXTURE_QA[0], resolveGymOptions({}))
    const r = await env.step(tc({ url: doc.url }))
    expect(r.observation[0].content).toBe(`${doc.title}\nURL: ${doc.url}\n\n${doc.text}`)
    expect(r.metrics.access_paged).toBeUndefined()
  })

  it('a long document comes in pages with the count; page=k and #page=k read the others; no page past the end', async () => {
    // the fixture world with one hub-sized document (~12,900 characters, past the default 8,000-character cap)
    const hub = { url: 'https://fixture.wiki/Hub', title: 'Hub', text: long }
    const base = openFixtureWorld()
    const big = { ...base, access: async (url: string) => (url === hub.url ? hub : base.access(url)) }
    const cap = 8000
    const env = new SearchEnv(big, FIXTURE_QA[0], resolveGymOptions({}))
    const doc = hub
    const first = (await env.step(tc({ url: doc.url }))).observation[0].content
    const m = /^Page 1 of (\d+)\. Read the next with access\(url, page=2\), or open (\S+)#page=2\.$/m.exec(first)
    expect(m).not.toBeNull()
    const n = Number(m![1])
    expect(n).toBeGreaterThan(1)
    expect(m![2]).toBe(doc.url)
    let all = first
    for (let p = 2; p <= n; p++) {
      const r = await env.step(p % 2 === 0 ? tc({ url: `${doc.url}#page=${p}` }) : tc({ url: doc.url, page: p }))
      const text = r.observation[0].content
      expect(text).toContain(`\nPage ${p} of ${n}`)
      expect(text.length).toBeLessThanOrEqual(cap)
      expect(r.metrics).toMatchObject({ access_ok: 1, access_paged: 1 })
      all += text
    }
    for (const s of sentences) expect(all).toContain(s)
    expect(n).toBe(2)
    const past = await env.step(tc({ url: doc.url, page: n + 1 }))
    expect(past.observation[0].content).toBe(`No page ${n + 1}: ${doc.url} has ${n} pages.`)
    expect(past.metrics.access_bad_page).toBe(1)
    const bad = await env.step(tc({ url: doc.url, page: 0 }))
    expect(bad.observation[0].content).toMatch(/page.*whole number/)
  })
})

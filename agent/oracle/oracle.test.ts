// agent/oracle/oracle tests: the oracle solves Simple (entity and attribute terminals), Parallel (compare, sum) and
// Combo QA of the fixture through the real env with F1 = 1, and says why when a page cannot be found or evidence is
// missing.
import { openFixtureWorld, FIXTURE_DOCS } from '../../tests/fixtures/gym-fixture-world'
import { makeEnv } from '../../gym/make-env'
import type { Qa } from '../../world/types'
import { oraclePolicy, runOracle } from './oracle'
import { runEpisode } from '../rollout/episode'
import { scoreAnswer } from '../../gym'
import { ORACLE_KNOWLEDGE, ORACLE_QA } from '../../tests/fixtures/oracle-fixture'

const CHECK = { budgets: { maxTurns: 1000, maxResponseTokens: 1024, maxContextTokens: 100_000_000 } }

describe('oracle', () => {
  const world = openFixtureWorld({ qa: ORACLE_QA })
  it.each(ORACLE_QA.map((q) => [q.id, q] as const))('solves %s with F1 = 1', async (_id, qa) => {
    const r = await runOracle(makeEnv(world, qa, CHECK), qa, ORACLE_KNOWLEDGE)
    expect(r).toMatchObject({ f1: 1, stopReason: 'answer' })
    expect(r.failure).toBeUndefined()
  })

  it('needs two tool calls per page: 3 hops + start = 8 calls + answer', async () => {
    const qa = ORACLE_QA[0]
    const r = await runOracle(makeEnv(world, qa, CHECK), qa, ORACLE_KNOWLEDGE)
    expect(r.turns).toBe(9)
  })

  it('reports a page that no search finds', async () => {
    const hidden = openFixtureWorld({ qa: ORACLE_QA, docs: FIXTURE_DOCS })
    const noHarrow = { ...hidden, search: async (q: string, k: number) => (await hidden.search(q, k)).filter((r) => r.title !== 'Harrow House') }
    const qa = ORACLE_QA[0]
    const r = await runOracle(makeEnv(noHarrow, qa, CHECK), qa, ORACLE_KNOWLEDGE)
    expect(r.f1).toBe(0)
    expect(r.failure).toMatch(/^no search found the page of Harrow House \(https:\/\/fixture.wiki\/Harrow_House\); queries tried: "Harrow House"/)
  })

  it('reports evidence missing from the accessed text', async () => {
    const qa: Qa = { ...ORACLE_QA[0], evidence: ORACLE_QA[0].evidence.map((e, i) => (i === 1 ? { ...e, sentence: 'It was printed by Harrow House.' } : e)) }
    const r = await runOracle(makeEnv(world, qa, CHECK), qa, ORACLE_KNOWLEDGE)
    expect(r.failure).toMatch(/^evidence sentence of edge e2 is not in the accessed text/)
  })

  it('reports pages cut by the observation cap', async () => {
    const qa = ORACLE_QA[0]
    const r = await runOracle(makeEnv(world, qa, { ...CHECK, observationCap: 100 }), qa, ORACLE_KNOWLEDGE)
    expect(r.f1).toBe(0)
    expect(r.failure).toMatch(/no search found the page of The Glass Orchard|is not in the accessed text/)
  })

  it('under the paper budget of 16 turns a long walk is truncated, and says so', async () => {
    const qa = ORACLE_QA[4]
    const r = await runOracle(makeEnv(world, qa, { budgets: { maxTurns: 4, maxResponseTokens: 1024, maxContextTokens: 32768 } }), qa, ORACLE_KNOWLEDGE)
    expect(r.failure).toMatch(/^the env stopped the episode: max_turns/)
  })
})

describe('checkWithOracle', () => {
  it('reports totals, per-type counts, turns and failures with reasons', async () => {
    const { checkWithOracle } = await import('./oracle-check')
    const broken: Qa = { ...ORACLE_QA[1], id: 's-broken', evidence: [{ hop: 0, url: 'https://fixture.wiki/The_Glass_Orchard', sentence: 'nope' }] }
    const qas = [...ORACLE_QA, broken]
    const world = openFixtureWorld({ qa: qas })
    const r = await checkWithOracle(world, ORACLE_KNOWLEDGE, qas, { quiet: true })
    expect(r).toMatchObject({ total: 7, solved: 6, byType: { simple: { total: 3, solved: 2 }, parallel: { total: 2, solved: 2 }, combo: { total: 2, solved: 2 } } })
    expect(r.failures).toHaveLength(1)
    expect(r.failures[0]).toMatchObject({ qaId: 's-broken', type: 'simple', f1: 0 })
    expect(r.failures[0].failure).toMatch(/evidence sentence of edge e2 is not in the accessed text/)
    expect(r.turns.max).toBe(9)
  })
})

describe('oracle in the search-r1 protocol', () => {
  it('reads page k of a paged document as <access> url#page=k </access> and solves every fixture question', async () => {
    const world = openFixtureWorld({ qa: ORACLE_QA })
    let paged = 0
    for (const qa of ORACLE_QA) {
      // Cap 220: the fixture's longer pages come in several pages and every evidence sentence still fits one page.
      const env = makeEnv(world, qa, { ...CHECK, protocol: 'search-r1', observationCap: 220 })
      const rec = await runEpisode(qa, env, oraclePolicy(qa, ORACLE_KNOWLEDGE, undefined, 'search-r1'), { scorer: scoreAnswer })
      expect({ id: qa.id, f1: rec.f1 }).toEqual({ id: qa.id, f1: 1 })
      paged += rec.turns.filter((t) => /^<access> \S+#page=\d+ <\/access>$/.test(t.text)).length
    }
    expect(paged).toBeGreaterThan(0)
  })
})

describe('oracle opening pages by title (accessByTitle)', () => {
  it('writes <access> Title </access> for pages it found by search and solves every fixture question', async () => {
    const world = openFixtureWorld({ qa: ORACLE_QA })
    for (const qa of ORACLE_QA) {
      const env = makeEnv(world, qa, { ...CHECK, protocol: 'search-r1', accessByTitle: true })
      const rec = await runEpisode(qa, env, oraclePolicy(qa, ORACLE_KNOWLEDGE, undefined, 'search-r1', true), { scorer: scoreAnswer })
      expect({ id: qa.id, f1: rec.f1 }).toEqual({ id: qa.id, f1: 1 })
      const accesses = rec.turns.filter((t) => t.text.startsWith('<access>'))
      expect(accesses.length).toBeGreaterThan(0)
      for (const t of accesses) expect(t.text).not.toMatch(/https?:/)
    }
  })
})

describe("oracle reading only the pages it needs (pages: 'needed')", () => {
  it('solves every fixture question with at most the page accesses of reading all pages, and fewer in all', async () => {
    const world = openFixtureWorld({ qa: ORACLE_QA })
    const paged = (texts: string[]) => texts.filter((t) => /^<access> \S+#page=\d+ <\/access>$/.test(t)).length
    let all = 0
    let needed = 0
    for (const qa of ORACLE_QA) {
      const run = async (pages: 'all' | 'needed') => {
        const env = makeEnv(world, qa, { ...CHECK, protocol: 'search-r1', observationCap: 220 })
        const rec = await runEpisode(qa, env, oraclePolicy(qa, ORACLE_KNOWLEDGE, { maxQueriesPerPage: 6, pages }, 'search-r1'), { scorer: scoreAnswer })
        expect({ id: qa.id, pages, f1: rec.f1 }).toEqual({ id: qa.id, pages, f1: 1 })
        return rec.turns.map((t) => t.text)
      }
      const a = await run('all')
      const n = await run('needed')
      expect(paged(n)).toBeLessThanOrEqual(paged(a))
      // The same walk: the same searches in the same order, only fewer pages.
      expect(n.filter((t) => t.startsWith('<search>'))).toEqual(a.filter((t) => t.startsWith('<search>')))
      all += paged(a)
      needed += paged(n)
    }
    expect(needed).toBeLessThan(all)
  })
})

describe("oracle answering with a name it has read (answer: 'read')", () => {
  const world = openFixtureWorld({ qa: ORACLE_QA })
  const play = async (qa: Qa, answer: 'open' | 'read') => {
    const env = makeEnv(world, qa, { ...CHECK, protocol: 'search-r1', accessByTitle: true })
    return runEpisode(qa, env, oraclePolicy(qa, ORACLE_KNOWLEDGE, { maxQueriesPerPage: 6, pages: 'needed', answer }, 'search-r1', true), { scorer: scoreAnswer })
  }

  it("stops at the page whose evidence names the answer: 3 hops in 7 turns, the answer's page never opened", async () => {
    const qa = ORACLE_QA.find((q) => q.id === 's-3hop')!
    const open = (await play(qa, 'open')).turns.map((t) => t.text)
    const read = (await play(qa, 'read')).turns.map((t) => t.text)
    expect(open).toHaveLength(9)
    expect(read).toEqual([...open.slice(0, 6), '<answer> Brenlow </answer>'])
    expect(open.slice(6, 8)).toEqual(['<search> Brenlow </search>', '<access> Brenlow </access>'])
  })

  it('solves every fixture question with F1 = 1, never with more turns than opening the answer, and walks the same path', async () => {
    for (const qa of ORACLE_QA) {
      const open = await play(qa, 'open')
      const read = await play(qa, 'read')
      expect({ id: qa.id, f1: read.f1 }).toEqual({ id: qa.id, f1: 1 })
      expect(read.turns.length).toBeLessThanOrEqual(open.turns.length)
      // The same walk, cut short: every tool call of 'read' is the call 'open' made at that turn.
      expect(read.turns.slice(0, -1).map((t) => t.text)).toEqual(open.turns.slice(0, read.turns.length - 1).map((t) => t.text))
    }
  })

  it("still opens the answer's page when no hop's evidence names it (c-param: found by an attribute's value)", async () => {
    const qa = ORACLE_QA.find((q) => q.id === 'c-param')!
    expect((await play(qa, 'read')).turns.map((t) => t.text)).toEqual((await play(qa, 'open')).turns.map((t) => t.text))
  })
})

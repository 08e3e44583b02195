// Tests of QA sampling on a hand-made world: every QA's path is re-walked and its answer and uniqueness
// recomputed by the independent checker; evidence sentences are in their documents; same seed, same pool.
import { canonicalJson, sha256 } from '../../infra/hash'
import { DEFAULT_CONFIG } from '../config'
import { makeQaChecker } from './check'
import { generateQa, type QaConfig } from './generate'
import type { ParallelMeta, SimpleMeta } from './spec'
import { fixtureDocText, makeFixtureWorld } from '../../tests/fixtures/qa-fixture-world'

const view = makeFixtureWorld({ seed: 5, perType: 40, keptRate: 0.85, homonymRate: 0.15 })
const cfg: QaConfig = { ...DEFAULT_CONFIG.qa, target: 1500 }
const { qas, stats } = generateQa(view, cfg, 21)

describe('generateQa on a fixture world', () => {
  it('draws the requested volume of every type with hops 1..12', () => {
    expect(qas.length).toBe(Math.ceil(1500 * (1 + cfg.headroom)))
    expect(stats.produced).toEqual(stats.requested)
    const hops = new Set(qas.filter((q) => q.type === 'simple').map((q) => q.hops))
    for (let h = 1; h <= 12; h++) expect(hops.has(h)).toBe(true)
    expect(new Set(qas.filter((q) => q.type === 'parallel').map((q) => q.hops)).size).toBeGreaterThanOrEqual(8)
  })

  it('every QA re-walks through G*, has a unique answer that recomputes, and cites sentences of its documents', () => {
    const check = makeQaChecker(view, (u) => fixtureDocText(view, u))
    const problems = qas.flatMap((q) => check(q))
    expect(problems).toEqual([])
  })

  it('the checker catches a wrong answer, an unverified edge and an ambiguous step', () => {
    const check = makeQaChecker(view)
    const q = qas.find((x) => x.type === 'simple' && x.hops >= 2)!
    expect(check({ ...q, answer: 'nobody' }).join()).toMatch(/recomputes/)
    const unverified = view.edges.find((e) => !view.kept.has(e.id))!
    const m = q.meta as unknown as SimpleMeta
    const broken = { ...q, path: [unverified.id, ...q.path.slice(1)], meta: { ...m, chain: { ...m.chain, edges: [unverified.id, ...m.chain.edges.slice(1)] } } }
    expect(check(broken as typeof q).join()).toMatch(/not in G\*|does not leave|is .*step says/)
    // A step along a relation with two candidates from the current entity is rejected.
    const counts = new Map<string, number>()
    for (const e of view.edges) counts.set(`${e.source}|${e.relation}`, (counts.get(`${e.source}|${e.relation}`) ?? 0) + 1)
    const amb = view.edges.find((e) => view.kept.has(e.id) && counts.get(`${e.source}|${e.relation}`)! > 1)!
    const fake = { ...q, hops: 1, path: [amb.id], meta: { chain: { start: amb.source, desc: { kind: 'typed' }, steps: [{ rel: amb.relation, dir: 'fwd' }], edges: [amb.id] }, terminal: { kind: 'entity' }, template: 'x' } }
    expect(check(fake as unknown as typeof q).join()).toMatch(/candidates in G/)
  })

  it('never names an intermediate entity or the answer in the question', () => {
    const names = new Map(view.entities.map((e) => [e.id, e.name.toLowerCase()]))
    const ends = new Map(view.edges.map((e) => [e.id, [e.source, e.target]]))
    for (const q of qas) {
      const m = q.meta as unknown as SimpleMeta
      if (q.type !== 'simple') continue
      const last = ends.get(q.path[q.path.length - 1])!
      const end = m.chain.steps[m.chain.steps.length - 1].dir === 'fwd' ? last[1] : last[0]
      expect(q.question.toLowerCase().includes(names.get(end)!)).toBe(false)
    }
  })

  it('questions are unique and Parallel answers are well-formed', () => {
    expect(new Set(qas.map((q) => q.question)).size).toBe(qas.length)
    for (const q of qas.filter((x) => x.type === 'parallel')) {
      const m = q.meta as unknown as ParallelMeta
      if (m.op === 'same') expect(['yes', 'no']).toContain(q.answer)
      if (m.op === 'sum' || m.op === 'difference') {
        expect(q.answer).toMatch(/^[\d,]+$/)
        expect(q.aliases).toContain(q.answer.replace(/,/g, ''))
      }
    }
    const ops = new Set(qas.filter((x) => x.type === 'parallel').map((q) => (q.meta as unknown as ParallelMeta).op))
    expect([...ops].sort()).toEqual(['compare', 'difference', 'same', 'sum'])
    const kinds = new Set(qas.filter((x) => x.type === 'combo').map((q) => (q.meta as { kind: string }).kind))
    expect([...kinds].sort()).toEqual(['compare-chain', 'param'])
  })

  it('questions of every length are well-formed: no placeholders, doubled or stray articles, one framing', () => {
    for (const q of qas) {
      expect(q.question).toMatch(/^[A-Z]/)
      expect(q.question).toMatch(/[?.]$/)
      expect(q.question).not.toMatch(/\{[st]\}|\b(the|a|an) (the|a|an)\b|\s{2}|\bThe the\b/i)
      expect((q.question.match(/\(/g) ?? []).length).toBe((q.question.match(/\)/g) ?? []).length)
      expect((q.question.match(/\bConsider\b/g) ?? []).length).toBeLessThanOrEqual(2)
    }
    const twelve = qas.filter((q) => q.hops === 12)
    expect(twelve.length).toBeGreaterThan(10)
  })

  it('person answers accept the surname', () => {
    const q = qas.find((x) => x.type === 'simple' && /^Who /.test(x.question) && x.aliases.length > 1)!
    expect(q.aliases[1]).toBe(q.answer.split(' ').pop())
  })

  it('same seed gives the same pool; another seed another pool', () => {
    const again = generateQa(view, cfg, 21).qas
    expect(sha256(canonicalJson(again))).toBe(sha256(canonicalJson(qas)))
    const other = generateQa(view, cfg, 22).qas
    expect(sha256(canonicalJson(other))).not.toBe(sha256(canonicalJson(qas)))
  })
})

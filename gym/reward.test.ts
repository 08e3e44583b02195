// gym/reward tests: agreement with the official HotpotQA scorer (golden file from tests/fixtures/hotpot/hotpot-reference.py),
// SQuAD normalisation edge cases, the SearchGym worked example and the reward specs.
import { readFileSync } from 'node:fs'
import { computeReward, exactMatch, f1Score, normalizeAnswer, parseRewardSpec, scoreAnswer } from './reward'

interface Golden {
  prediction: string
  gold: string
  normalized: string
  f1: number
  precision: number
  recall: number
  em: number
}
const golden = JSON.parse(readFileSync(new URL('../tests/fixtures/hotpot/hotpot-golden.json', import.meta.url), 'utf8')) as Golden[]

// The golden cases are reported by category (one test each), not one test per case: the count of tests then says how
// many behaviours are covered, and a failure lists every disagreeing case with its index.
const SPECIAL = new Set(['yes', 'no', 'noanswer'])
const category = (g: Golden): string =>
  SPECIAL.has(normalizeAnswer(g.gold)) || SPECIAL.has(g.normalized) ? 'yes/no/noanswer rule'
    : g.em === 1 ? 'exact match after normalisation'
      : g.f1 > 0 ? 'partial token overlap'
        : 'no token overlap'
const byCategory = new Map<string, [number, Golden][]>()
golden.forEach((g, i) => (byCategory.get(category(g)) ?? byCategory.set(category(g), []).get(category(g))!).push([i, g]))

describe('HotpotQA scorer agreement (gym/fixtures/hotpot-golden.json from the official script)', () => {
  it('has the golden cases in every category', () => {
    expect(golden.length).toBeGreaterThan(600)
    expect([...byCategory.keys()].sort()).toEqual(['exact match after normalisation', 'no token overlap', 'partial token overlap', 'yes/no/noanswer rule'])
  })
  it.each([...byCategory.keys()].sort())('%s: normalisation, F1, precision, recall and EM agree on every case', (cat) => {
    const cases = byCategory.get(cat)!
    const bad: string[] = []
    const close = (a: number, b: number) => Math.abs(a - b) < 1e-12
    for (const [i, g] of cases) {
      const r = f1Score(g.prediction, g.gold)
      const got = { normalized: normalizeAnswer(g.prediction), f1: r.f1, precision: r.precision, recall: r.recall, em: exactMatch(g.prediction, g.gold) ? 1 : 0 }
      if (got.normalized !== g.normalized || !close(got.f1, g.f1) || !close(got.precision, g.precision) || !close(got.recall, g.recall) || got.em !== g.em)
        bad.push(`case ${i} ${JSON.stringify([g.prediction, g.gold])}: got ${JSON.stringify(got)}, official ${JSON.stringify({ normalized: g.normalized, f1: g.f1, precision: g.precision, recall: g.recall, em: g.em })}`)
    }
    expect(cases.length).toBeGreaterThan(0)
    expect(bad).toEqual([])
  })
})

describe('normalisation edge cases', () => {
  it('lowercases, strips ASCII punctuation and articles, collapses whitespace', () => {
    expect(normalizeAnswer('  The  U.S.A.!  ')).toBe('usa')
    expect(normalizeAnswer('An apple, a day')).toBe('apple day')
    expect(normalizeAnswer('theatre')).toBe('theatre')
    expect(normalizeAnswer('“Paris”')).toBe('“paris”') // Unicode quotes are not ASCII punctuation
    expect(normalizeAnswer('x\ufeffy')).toBe('x\ufeffy') // BOM is not Python whitespace
    expect(normalizeAnswer('x\x1cy')).toBe('x y') // ... but \x1c is
    expect(normalizeAnswer('éthe')).toBe('éthe') // Unicode word boundary, as Python's re
  })
  it('yes/no/noanswer must match exactly', () => {
    expect(f1Score('yes no', 'yes').f1).toBe(0) // hedging earns nothing: the gold is special and differs
    expect(f1Score('yes', 'no').f1).toBe(0)
    expect(f1Score('Yes.', 'yes').f1).toBe(1)
    expect(f1Score('no', 'no way').f1).toBe(0)
  })
  it('empty prediction and gold: EM 1 but F1 0 (as the official script)', () => {
    expect(exactMatch('', '')).toBe(true)
    expect(f1Score('', '').f1).toBe(0)
  })
  it('takes the maximum over aliases', () => {
    expect(scoreAnswer('NYC', ['New York City', 'NYC'])).toEqual({ f1: 1, em: 1 })
    expect(scoreAnswer('New York', ['New York City', 'Big Apple']).f1).toBeCloseTo(0.8, 12)
    expect(scoreAnswer('New York', ['New York City']).em).toBe(0)
  })
})

describe('SearchGym worked example', () => {
  it('predictions give the group F1s 1,1,0.5,0,0,0,0,0.5 (mean 0.375)', () => {
    const gold = ['Marie Curie']
    const preds = ['Marie Curie', 'marie curie.', 'Pierre Curie', 'Albert Einstein', 'yes', 'no', 'the Sorbonne', 'Curie, Pierre']
    const f1s = preds.map((p) => scoreAnswer(p, gold).f1)
    expect(f1s).toEqual([1, 1, 0.5, 0, 0, 0, 0, 0.5])
    expect(f1s.reduce((a, b) => a + b, 0) / 8).toBe(0.375)
  })
})

describe('reward specs', () => {
  const base = { golds: ['Marie Curie'], malformedTurns: 0, validSearches: 1 }
  it('f1', () => {
    expect(computeReward(parseRewardSpec('f1'), { ...base, answer: 'Pierre Curie' }).reward).toBe(0.5)
    expect(computeReward(parseRewardSpec('f1'), base).reward).toBe(0)
  })
  it('em+format: 1 / 0 / −0.1 without a valid answer', () => {
    const s = parseRewardSpec('em+format')
    expect(computeReward(s, { ...base, answer: 'marie curie' }).reward).toBe(1)
    expect(computeReward(s, { ...base, answer: 'Pierre Curie' }).reward).toBe(0)
    expect(computeReward(s, base).reward).toBe(-0.1)
  })
  it('r1-searcher-stage1: 0.5 format + 0.5 retrieval', () => {
    const s = parseRewardSpec('r1-searcher-stage1')
    expect(computeReward(s, { ...base, answer: 'x' }).reward).toBe(1)
    expect(computeReward(s, { ...base, answer: 'x', validSearches: 0 }).reward).toBe(0.5)
    expect(computeReward(s, { ...base, answer: 'x', malformedTurns: 1 }).reward).toBe(0.5)
    expect(computeReward(s, { ...base, validSearches: 0 }).reward).toBe(0)
  })
  it('r1-searcher-stage2: F1, −2 for a bad format', () => {
    const s = parseRewardSpec('r1-searcher-stage2')
    expect(computeReward(s, { ...base, answer: 'Pierre Curie' }).reward).toBe(0.5)
    expect(computeReward(s, { ...base, answer: 'Marie Curie', malformedTurns: 2 }).reward).toBe(-1)
    expect(computeReward(s, base).reward).toBe(-2)
  })
  it('composes terms and rejects unknown ones', () => {
    expect(parseRewardSpec('f1+retrieval').terms).toEqual(['f1', 'retrieval'])
    expect(() => parseRewardSpec('f2')).toThrow(/unknown reward spec 'f2'/)
  })
})

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

describe('HotpotQA scorer agreement', () => {
  it('has the golden cases', () => expect(golden.length).toBeGreaterThan(600))
  it.each(golden.map((g, i) => [i, g] as const))('case %i', (_i, g) => {
    expect(normalizeAnswer(g.prediction)).toBe(g.normalized)
    const r = f1Score(g.prediction, g.gold)
    expect(r.f1).toBeCloseTo(g.f1, 12)
    expect(r.precision).toBeCloseTo(g.precision, 12)
    expect(r.recall).toBeCloseTo(g.recall, 12)
    expect(exactMatch(g.prediction, g.gold) ? 1 : 0).toBe(g.em)
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

// agent/grpo/turn-credit tests: turn-level advantages (terminal baseline, reward-to-go of step credit, the std of the
// total returns), the fewest-retrievals bonus, scoreGroups with step credit, and buildDatums putting each turn's
// advantage on exactly that turn's sampled tokens.
import { groupAdvantages } from './advantages'
import { buildDatums } from './datums'
import { scoreGroups } from './groups'
import { fewestRetrievalsBonus, turnAdvantages } from './turn-credit'

describe('turnAdvantages', () => {
  it('hand-computed: terminal [1, 0], steps [[0.1, 0], [0.05]]', () => {
    // totals 1.1 and 0.05 → population std 0.525; terminal baseline 0.5
    const s = 0.525 + 1e-6
    const a = turnAdvantages([1, 0], [[0.1, 0], [0.05]])
    expect(a[0][0]).toBeCloseTo((0.5 + 0.1) / s, 12)
    expect(a[0][1]).toBeCloseTo(0.5 / s, 12)
    expect(a[1][0]).toBeCloseTo((-0.5 + 0.05) / s, 12)
  })
  it('without step credit it is groupAdvantages of the terminal rewards on every turn', () => {
    const a = turnAdvantages([1, 0.5, 0], [[0, 0], [0], [0, 0, 0]], { std: 'sample' })
    const g = groupAdvantages([1, 0.5, 0], { std: 'sample' })
    a.forEach((turns, j) => turns.forEach((x) => expect(x).toBeCloseTo(g[j], 12)))
  })
  it("'mean' normalisation: no scale", () => {
    expect(turnAdvantages([1, 0], [[0.2], [0]], { normalize: 'mean' })).toEqual([[0.7], [-0.5]])
  })
  it('equal totals: all zeros', () => {
    expect(turnAdvantages([1, 0.9], [[0], [0.1]])).toEqual([[0], [0]])
  })
})

describe('fewestRetrievalsBonus', () => {
  it('only correct episodes with the fewest tool calls among the correct ones', () => {
    expect(fewestRetrievalsBonus([true, true, false, true], [5, 7, 1, 5], 0.2)).toEqual([0.2, 0, 0, 0.2])
    expect(fewestRetrievalsBonus([false, false], [1, 2], 0.2)).toEqual([0, 0])
  })
})

describe('scoreGroups with step credit and group terms', () => {
  it('per-turn advantages only when a group has step credit; the bonus enters rewards and advantages', () => {
    const rs = [
      { reward: 1.1, terminalReward: 1, stepRewards: [0.1, 0], infraFault: null, correct: true, retrievals: 1 },
      { reward: 0.05, terminalReward: 0, stepRewards: [0.05], infraFault: null, correct: false, retrievals: 1 },
      { reward: 1, infraFault: null, correct: true, retrievals: 3 },
      { reward: 0, infraFault: null, correct: false, retrievals: 0 },
    ]
    const g = scoreGroups(rs, 2, { fewestRetrievalsBonus: 0.2 })
    expect(g.kept).toHaveLength(2)
    expect(g.kept[0].rewards).toEqual([1.3, 0.05])
    expect(g.kept[0].turnAdvantages).toEqual(turnAdvantages([1.2, 0], [[0.1, 0], [0.05]]))
    expect(g.kept[0].advantages).toEqual([g.kept[0].turnAdvantages![0][0], g.kept[0].turnAdvantages![1][0]])
    expect(g.kept[1].turnAdvantages).toBeNull()
    expect(g.kept[1].rewards).toEqual([1.2, 0])
    expect(g.kept[1].advantages).toEqual(groupAdvantages([1.2, 0]))
  })
})

describe('buildDatums with turn advantages', () => {
  // prompt 2 tokens, turn 1 (3 sampled), observation 2, turn 2 (2 sampled)
  const seq = { ids: [1, 2, 3, 4, 5, 6, 7, 8, 9], sampled: [0, 0, 1, 1, 1, 0, 0, 1, 1], logprobs: [0, 0, -1, -1, -1, 0, 0, -1, -1], truncatedTurns: 0 }
  it("each turn's advantage on its own tokens, 0 elsewhere", () => {
    const [d] = buildDatums([{ seq, advantage: 9, turnAdvantages: [0.5, -0.25], turnTokens: [3, 2] }], 'token-mean')
    expect(d.advantages).toEqual([0, 0.5, 0.5, 0.5, 0, 0, -0.25, -0.25])
  })
  it('a zero-token turn is skipped; without turn advantages the sequence advantage everywhere', () => {
    const [d] = buildDatums([{ seq, advantage: 0, turnAdvantages: [0.5, 7, -0.25], turnTokens: [3, 0, 2] }], 'token-mean')
    expect(d.advantages).toEqual([0, 0.5, 0.5, 0.5, 0, 0, -0.25, -0.25])
    const [e] = buildDatums([{ seq, advantage: 2 }], 'token-mean')
    expect(e.advantages).toEqual([0, 2, 2, 2, 0, 0, 2, 2])
  })
  it('turn token counts that do not match the sequence are an error, not a silent shift', () => {
    expect(() => buildDatums([{ seq, advantage: 0, turnAdvantages: [1, 1], turnTokens: [3, 3] }], 'token-mean')).toThrow(/more tokens/)
    expect(() => buildDatums([{ seq, advantage: 0, turnAdvantages: [1, 1], turnTokens: [3, 1] }], 'token-mean')).toThrow(/more sampled tokens/)
  })
})

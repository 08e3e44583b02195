// infra/engine/losses-boundary: the PPO clip with ε_low ≠ ε_high (DAPO-style clip-higher), each bound hit exactly and
// just past it, in both the objective and the token loss the learner uses. A clip that reused ε_low above fails here.
import { clippedSurrogate, tokenLoss } from './losses'

const LO = 0.2
const HI = 0.28

describe('clippedSurrogate with ε_low = 0.2, ε_high = 0.28', () => {
  it('clips a good token (A > 0) at 1 + ε_high, not at 1 + ε_low', () => {
    expect(clippedSurrogate(1.25, 1, LO, HI)).toBeCloseTo(1.25, 12) // inside [0.8, 1.28]
    expect(clippedSurrogate(1.28, 1, LO, HI)).toBeCloseTo(1.28, 12) // exactly at the upper bound
    expect(clippedSurrogate(1.5, 1, LO, HI)).toBeCloseTo(1.28, 12) // past it
    expect(clippedSurrogate(1.5, 2, LO, HI)).toBeCloseTo(2.56, 12)
  })
  it('clips a bad token (A < 0) at 1 − ε_low, not at 1 − ε_high', () => {
    expect(clippedSurrogate(0.8, -1, LO, HI)).toBeCloseTo(-0.8, 12) // exactly at the lower bound
    expect(clippedSurrogate(0.75, -1, LO, HI)).toBeCloseTo(-0.8, 12) // past it: 1 − 0.2, not 1 − 0.28 = 0.72
    expect(clippedSurrogate(0.5, -1, LO, HI)).toBeCloseTo(-0.8, 12)
  })
  it('never clips the pessimistic side', () => {
    expect(clippedSurrogate(1.5, -1, LO, HI)).toBeCloseTo(-1.5, 12)
    expect(clippedSurrogate(0.5, 1, LO, HI)).toBeCloseTo(0.5, 12)
  })
  it('defaults ε_high to ε_low (symmetric [0.6, 1.4] at 0.4)', () => {
    expect(clippedSurrogate(1.4, 1)).toBeCloseTo(1.4, 12)
    expect(clippedSurrogate(1.45, 1)).toBeCloseTo(1.4, 12)
    expect(clippedSurrogate(0.55, -1)).toBeCloseTo(-0.6, 12)
  })
})

describe('tokenLoss ppo with epsLow ≠ epsHigh', () => {
  const cfg = { name: 'ppo' as const, epsLow: LO, epsHigh: HI }
  it('a ratio of 1.25 with A > 0 is inside the wider upper bound: not clipped, gradient −ρA', () => {
    const t = tokenLoss(cfg, Math.log(1.25), 0, 1)
    expect(t.clipped).toBe(false)
    expect(t.loss).toBeCloseTo(-1.25, 10)
    expect(t.dlogp).toBeCloseTo(-1.25, 10)
  })
  it('a ratio of 1.3 with A > 0 is clipped at 1.28: loss −1.28, gradient 0', () => {
    const t = tokenLoss(cfg, Math.log(1.3), 0, 1)
    expect(t.clipped).toBe(true)
    expect(t.loss).toBeCloseTo(-1.28, 10)
    expect(t.dlogp).toBe(0)
  })
  it('a ratio of 0.75 with A < 0 is clipped at 0.8 (ε_low), not inside (which ε_high would allow)', () => {
    const t = tokenLoss(cfg, Math.log(0.75), 0, -1)
    expect(t.clipped).toBe(true)
    expect(t.loss).toBeCloseTo(0.8, 10)
    expect(t.dlogp).toBe(0)
  })
  it('only epsLow given: the upper bound follows it', () => {
    const t = tokenLoss({ name: 'ppo', epsLow: LO }, Math.log(1.25), 0, 1)
    expect(t.clipped).toBe(true)
    expect(t.loss).toBeCloseTo(-1.2, 10)
  })
})

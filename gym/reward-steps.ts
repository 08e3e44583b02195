// gym/reward-steps: the per-step reward terms — `process` (discounted credit for new gold documents found/accessed,
// minus a price for redundant actions, capped at ±PROCESS.weight so the terminal answer dominates) and `cost` (a
// price per tool call, capped at COST.cap). Each step's reward is the change of the capped running total, so the
// step rewards of an episode add up to exactly the capped total. Inputs are the gym's step signals, never model text.
import type { StepSignalCounts } from './step-signals'

/** process: weight β, per-turn discount γ, price ρ per redundant action (repeated query, re-access). */
export const PROCESS = { weight: 0.25, gamma: 0.9, redundancyPrice: 0.1 } as const
/** cost: price per tool call, and the most an episode can lose to it. */
export const COST = { price: 0.02, cap: 0.25 } as const
/** fewest-retrievals (group term, applied where groups are scored): bonus of the correct answers with fewest tool calls. */
export const FEWEST_RETRIEVALS_BONUS = 0.2

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x))

export interface StepCreditResult {
  /** Sum of this step's credits over the spec's step terms. */
  reward: number
  /** This step's credit per step term (`process`, `cost`), only for terms in the spec. */
  terms: Record<string, number>
}

/** Running step credit of one episode for the step terms of a spec. */
export class StepCredit {
  private processRaw = 0
  private processGiven = 0
  private costRaw = 0
  private costGiven = 0

  constructor(
    private readonly terms: { process: boolean; cost: boolean },
    private readonly goldCount: number,
  ) {}

  /** True when the spec has a step term (the env then reports step credit). */
  get active(): boolean {
    return this.terms.process || this.terms.cost
  }

  /** Credit of turn `turn` (1-based) with these signals and this many tool calls. */
  step(turn: number, s: StepSignalCounts, toolCalls: number): StepCreditResult {
    const terms: Record<string, number> = {}
    let reward = 0
    if (this.terms.process) {
      const gain = this.goldCount > 0 ? (PROCESS.gamma ** (turn - 1) * (s.gold_found + s.gold_accessed)) / (2 * this.goldCount) : 0
      this.processRaw += gain - PROCESS.redundancyPrice * (s.redundant_query + s.redundant_access)
      const given = PROCESS.weight * clip(this.processRaw, -1, 1)
      terms.process = given - this.processGiven
      this.processGiven = given
      reward += terms.process
    }
    if (this.terms.cost) {
      this.costRaw += COST.price * toolCalls
      const given = -Math.min(COST.cap, this.costRaw)
      terms.cost = given - this.costGiven
      this.costGiven = given
      reward += terms.cost
    }
    return { reward, terms }
  }

  /** Episode totals so far, per step term in the spec. */
  totals(): Record<string, number> {
    const t: Record<string, number> = {}
    if (this.terms.process) t.process = this.processGiven
    if (this.terms.cost) t.cost = this.costGiven
    return t
  }
}

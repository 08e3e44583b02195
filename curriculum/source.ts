// curriculum/source: a CurriculumSpec over a world's training questions → the trainer's QuestionSource. Seeded data
// order (one permutation per stage, a cursor through it; wraps around), type weights, the adaptive preset's
// type × hops buckets sampled towards a pass rate near the target from an exponential moving average, the stage
// switch rules (fixed steps, or a plateau gate on held-out F1), and the held-out slice of training questions used for evaluation — fact-disjoint: no question left to train on shares an
// edge with a held-out one. All of it checkpointable through state()/load(). Which questions, not how long an episode
// runs: turn budgets are gym/episode-budgets' (the train config's turn rule).
import { ConfigError } from '../infra/errors'
import { Rng } from '../infra/rng'
import { heldOutSlice, type Qa } from '../world'
import type { QuestionOutcome, QuestionSource } from '../agent'
import { bucketOf, inStage, type CurriculumSpec } from './stages'

export interface SourceOptions {
  seed: number
  /** Training questions set aside for evaluation (never trained on). */
  heldOut: number
}

/** What holding out cost: the slice, its distinct edges, the training questions excluded for sharing one, the rest. */
export interface HeldOutInfo {
  heldOut: number
  heldFacts: number
  /** Training questions neither trained on nor evaluated: each shares an edge with a held-out question. */
  excluded: number
  /** Training questions left to draw from. */
  train: number
}

interface State {
  stage: number
  stepsInStage: number
  cursors: number[]
  ema: Record<string, number>
  best: number | null
  sinceBest: number
  switches: { step: number; from: string; to: string; why: string }[]
}

export class CurriculumSource implements QuestionSource {
  private readonly pool: Qa[]
  private readonly held: Qa[]
  private readonly heldInfo: HeldOutInfo
  private readonly orders: Qa[][]
  private s: State

  constructor(
    readonly spec: CurriculumSpec,
    train: readonly Qa[],
    private readonly opts: SourceOptions,
  ) {
    // Held out by fact, not only by question: a training question that shares an edge with a held-out one is
    // neither trained on nor evaluated (world/split/facts; the pick itself is the seeded one of before).
    const slice = heldOutSlice(train, opts.heldOut, opts.seed)
    this.held = slice.held
    this.pool = slice.train
    this.heldInfo = { heldOut: slice.held.length, heldFacts: slice.heldFacts, excluded: slice.excluded.length, train: slice.train.length }
    this.orders = spec.stages.map((st, i) => {
      const eligible = this.pool.filter((q) => inStage(q, st))
      if (eligible.length === 0)
        throw new ConfigError('curriculum.empty_stage', `stage '${st.name}' of '${spec.name}' has no training questions in this world (types ${st.types.join('/')}, hops ${st.minHops}-${st.maxHops})`)
      return Rng.derive(opts.seed, 'order', i).shuffle(eligible)
    })
    this.s = { stage: 0, stepsInStage: 0, cursors: spec.stages.map(() => 0), ema: {}, best: null, sinceBest: 0, switches: [] }
  }

  stage(): string {
    return this.spec.stages[this.s.stage].name
  }

  heldOut(): Qa[] {
    return this.held
  }

  /** The training questions left after the held-out slice and its fact exclusion (the pool every stage draws from). */
  trainingPool(): Qa[] {
    return this.pool
  }

  heldOutInfo(): HeldOutInfo {
    return { ...this.heldInfo }
  }

  /** One log line: the held-out slice and what its fact exclusion cost. */
  heldOutLine(): string {
    const h = this.heldInfo
    const rest = h.excluded + h.train
    return `held out ${h.heldOut} training questions (${h.heldFacts} edges); excluded ${h.excluded} of the other ${rest} (${rest ? ((100 * h.excluded) / rest).toFixed(1) : '0.0'}%) for sharing an edge with them; ${h.train} left to train on`
  }

  next(count: number, rng: Rng): Qa[] {
    const order = this.orders[this.s.stage]
    const st = this.spec.stages[this.s.stage]
    const out: Qa[] = []
    if (this.spec.adaptive) {
      const buckets = new Map<string, Qa[]>()
      for (const q of order) {
        const b = bucketOf(q)
        const list = buckets.get(b)
        if (list) list.push(q)
        else buckets.set(b, [q])
      }
      const keys = [...buckets.keys()].sort()
      const { target, width } = this.spec.adaptive
      const weights = keys.map((k) => {
        const p = Object.hasOwn(this.s.ema, k) ? this.s.ema[k] : target
        return Math.exp(-(((p - target) / width) ** 2)) + 1e-3
      })
      for (let i = 0; i < count; i++) out.push(rng.pick(buckets.get(keys[rng.weightedIndex(weights)])!))
      return out
    }
    const tw = st.typeWeights
    if (tw) {
      const types = st.types.filter((t) => (tw[t] ?? 1) > 0 && order.some((q) => q.type === t))
      const byType = types.map((t) => order.filter((q) => q.type === t))
      for (let i = 0; i < count; i++) out.push(rng.pick(byType[rng.weightedIndex(types.map((t) => tw[t] ?? 1))]))
      return out
    }
    for (let i = 0; i < count; i++) {
      out.push(order[this.s.cursors[this.s.stage] % order.length])
      this.s.cursors[this.s.stage]++
    }
    return out
  }

  observe(outcomes: readonly QuestionOutcome[]): void {
    const a = this.spec.adaptive?.ema ?? 0.3
    for (const o of outcomes) {
      const k = bucketOf(o.qa)
      const prev = Object.hasOwn(this.s.ema, k) ? this.s.ema[k] : o.meanReward
      this.s.ema[k] = (1 - a) * prev + a * o.meanReward
    }
  }

  afterStep(step: number, evalScore: number | null): string | null {
    this.s.stepsInStage++
    if (evalScore !== null) {
      if (this.s.best === null || evalScore > this.s.best) {
        this.s.best = evalScore
        this.s.sinceBest = 0
      } else this.s.sinceBest++
    }
    if (this.s.stage >= this.spec.switches.length) return null
    const rule = this.spec.switches[this.s.stage]
    let why: string | null = null
    if (rule.kind === 'steps' && this.s.stepsInStage >= rule.steps) why = `after ${rule.steps} steps`
    if (rule.kind === 'plateau' && this.s.stepsInStage >= rule.minSteps && evalScore !== null && this.s.sinceBest >= rule.patience)
      why = `held-out F1 plateaued at ${this.s.best?.toFixed(3)} for ${rule.patience} evaluations`
    if (!why) return null
    const from = this.stage()
    this.s.stage++
    this.s.stepsInStage = 0
    this.s.best = null
    this.s.sinceBest = 0
    const to = this.stage()
    this.s.switches.push({ step, from, to, why })
    return `curriculum: step ${step}: ${from} → ${to} (${why})`
  }

  state(): unknown {
    return JSON.parse(JSON.stringify(this.s))
  }

  load(state: unknown): void {
    const s = state as State
    if (!s || typeof s !== 'object' || !Number.isInteger(s.stage) || !Array.isArray(s.cursors) || s.cursors.length !== this.spec.stages.length)
      throw new ConfigError('curriculum.state', `the checkpoint's curriculum state does not belong to preset '${this.spec.name}'`)
    this.s = JSON.parse(JSON.stringify(s)) as State
  }
}

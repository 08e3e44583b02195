// gym/episode-budgets: the one place an episode's budgets are decided — from the budgets a config gave (gym.budgets:
// each field given is the episode's, as given), the run's turn rule for the question (fixed, or scaled with its hops),
// the sampler's response length and the model's context; the gym's defaults for what none of them says. Also the one
// check that refuses a given budget which a run's own setting for the same limit contradicts. It does not wrap or run
// an env (wrappers/budgets issues the truncation; agent/rollout runs until the env ends the episode).
import { GymError } from '../infra/errors'
import type { Qa } from '../world'
import { DEFAULT_BUDGETS, type Budgets } from './wrappers/budgets'

/** A run's turn limit per question (the train config's maxTurns, turnBudget, turnsPerHop). */
export interface TurnRule {
  /** 'fixed': every question gets maxTurns; 'hop-scaled': max(maxTurns, turnsPerHop·hops + 4). */
  turnBudget: 'fixed' | 'hop-scaled'
  maxTurns: number
  turnsPerHop: number
}

export interface BudgetInputs {
  /** Budgets as a config gave them (gym.budgets, partial): honoured field by field, never replaced. */
  given?: Partial<Budgets>
  /** The run's turn limit: a number for every question, or a rule over the question's hops. */
  turns?: number | TurnRule
  /** The sampler's max new tokens a turn. */
  responseTokens?: number
  /** The model's context window, in tokens. */
  contextTokens?: number
}

/** The turn limit a rule gives a question. */
export function turnsFor(qa: Pick<Qa, 'hops'>, rule: TurnRule): number {
  return rule.turnBudget === 'hop-scaled' ? Math.max(rule.maxTurns, rule.turnsPerHop * qa.hops + 4) : rule.maxTurns
}

/** The budgets of one episode of `qa` (null: of every question of a run, whose turn rule must then be fixed): a given
 *  field as given, else what the run says, else the gym's default. Where the run's value is an explicit setting of
 *  its config (not a default), its resolver has refused a contradiction first (refuseBudgetConflicts). */
export function episodeBudgets(qa: Pick<Qa, 'hops'> | null, inputs: BudgetInputs = {}): Budgets {
  const g = inputs.given ?? {}
  const rule = inputs.turns
  if (qa === null && typeof rule === 'object' && rule.turnBudget === 'hop-scaled')
    throw new GymError('options.budgets', "a hop-scaled turn budget needs the question: budgets of a whole run take a fixed turn limit")
  const turns = rule === undefined ? undefined : typeof rule === 'number' ? rule : turnsFor(qa ?? { hops: 0 }, rule)
  return {
    maxTurns: g.maxTurns ?? turns ?? DEFAULT_BUDGETS.maxTurns,
    maxResponseTokens: g.maxResponseTokens ?? inputs.responseTokens ?? DEFAULT_BUDGETS.maxResponseTokens,
    maxContextTokens: g.maxContextTokens ?? inputs.contextTokens ?? DEFAULT_BUDGETS.maxContextTokens,
  }
}

/** A run's own explicit setting of a budget's limit: its key as the config spells it, and its value. */
export type OwnSetting = { key: string; value: number }

/** Refuse (one line) a given budget that an explicit setting of the same limit contradicts; `where` names the given
 *  budgets as the config spells them (e.g. 'gym.budgets', 'experiment.gym.budgets'). Equal values are no conflict. */
export function refuseBudgetConflicts(given: Partial<Budgets> | undefined, own: Partial<Record<keyof Budgets, OwnSetting>>, where = 'gym.budgets'): void {
  if (!given) return
  for (const k of Object.keys(own) as (keyof Budgets)[]) {
    const o = own[k]
    const g = given[k]
    if (o && g !== undefined && g !== o.value) throw new GymError('options.budgets', `${o.key} ${o.value} and ${where}.${k} ${g} set the same limit: give one`)
  }
}

// gym/episode-budgets: the one place an episode's budgets are decided — from the budgets a config gave (gym.budgets:
// each field given is the episode's, as given; maxTurns with an optional turnsPerHop rule that scales it with the
// question's hops), then the run kind's own defaults (a demonstration's hop-scaled turns, a sampler's response length,
// the model's context), then the gym's. It does not wrap or run an env (wrappers/budgets issues the truncation;
// agent/rollout runs until the env ends the episode).
import { GymError } from '../infra/errors'
import type { Qa } from '../world'
import { DEFAULT_BUDGETS, type Budgets } from './wrappers/budgets'

/** Budgets as a config spells them (gym.budgets): every field optional; turnsPerHop > 0 scales the turn limit with the
 *  question's hops, max(maxTurns, turnsPerHop·hops + 4) (0 or absent: every question gets maxTurns). */
export type BudgetsJson = Partial<Budgets> & { turnsPerHop?: number }

/** The turn limit `b`'s rule gives a question of `hops` hops. */
export function turnsFor(hops: number, maxTurns: number, turnsPerHop = 0): number {
  return turnsPerHop > 0 ? Math.max(maxTurns, turnsPerHop * hops + 4) : maxTurns
}

/** The budgets of one episode of `qa` (null: of every question of a run, whose turn limit must then be fixed): each
 *  field as the config `given` says, else as the run kind's `fallback` says (a demonstration's hop-scaled turns, the
 *  sampler's response length, the model's context), else the gym's default. The turn rule is one piece: a layer that
 *  gives maxTurns or turnsPerHop gives both (a given maxTurns alone is a fixed limit, not the fallback's rule). */
export function episodeBudgets(qa: Pick<Qa, 'hops'> | null, given: BudgetsJson = {}, fallback: BudgetsJson = {}): Budgets {
  const rule = given.maxTurns !== undefined || given.turnsPerHop !== undefined ? given : fallback
  const maxTurns = rule.maxTurns ?? fallback.maxTurns ?? DEFAULT_BUDGETS.maxTurns
  const perHop = rule.turnsPerHop ?? 0
  if (qa === null && perHop > 0) throw new GymError('options.budgets', 'budgets.turnsPerHop scales the turn limit with the question: budgets of a whole run take a fixed maxTurns')
  return {
    maxTurns: turnsFor(qa?.hops ?? 0, maxTurns, perHop),
    maxResponseTokens: given.maxResponseTokens ?? fallback.maxResponseTokens ?? DEFAULT_BUDGETS.maxResponseTokens,
    maxContextTokens: given.maxContextTokens ?? fallback.maxContextTokens ?? DEFAULT_BUDGETS.maxContextTokens,
  }
}

/** The response length a run's sampler takes from its budgets: the given maxResponseTokens, else the fallback's, else
 *  the gym's default — the same figure episodeBudgets gives the env, so a sampled turn never outgrows its budget. */
export function responseTokensOf(given: BudgetsJson = {}, fallback: BudgetsJson = {}): number {
  return given.maxResponseTokens ?? fallback.maxResponseTokens ?? DEFAULT_BUDGETS.maxResponseTokens
}

/** Budgets as two runs of one folder compare them: the two limits every older config carried written out (maxTurns,
 *  maxResponseTokens) filled with the gym's defaults when not given, so the same limits compare equal however they
 *  were written (a train run's config.json, an experiment's train and eval blocks). */
export function comparableBudgets(b: BudgetsJson): BudgetsJson {
  return { ...b, maxTurns: b.maxTurns ?? DEFAULT_BUDGETS.maxTurns, maxResponseTokens: responseTokensOf(b) }
}

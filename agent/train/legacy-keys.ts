// agent/train/legacy-keys: the older spelling of a train config's episode limits — top-level maxTurns, turnBudget
// ('fixed' | 'hop-scaled'), turnsPerHop and maxTokensPerTurn — read into the one place they live now, gym.budgets
// (maxTurns, turnsPerHop, maxResponseTokens), through the gym's one mover (gym/moved-budget-keys). Files, experiment
// blocks and run folders' config.json written before the move keep working (a run folder resumes); a layer that spells
// one limit both ways with two values is refused. Knows the older keys' rule (turnBudget), not how keys move.
import { moveBudgetKeys, type BudgetKeyMap, type BudgetsJson } from '../../gym'
import { ConfigError } from '../../infra/errors'

/** The older keys and the gym.budgets field each now is. */
export const MOVED_BUDGET_KEYS: BudgetKeyMap = { maxTurns: 'maxTurns', maxTokensPerTurn: 'maxResponseTokens', turnBudget: 'turnsPerHop', turnsPerHop: 'turnsPerHop' }

/** `layer` with its older episode-limit keys moved into gym.budgets (the layer itself when it has none; `note(old,
 *  now)` is told each key moved; `at` is the block's place in its file, e.g. 'experiment.train.', '' at the top).
 *  turnBudget 'hop-scaled' keeps its rule — max(maxTurns, turnsPerHop·hops + 4), the older default turnsPerHop 2 — and
 *  'fixed' drops turnsPerHop. A value the layer's own gym.budgets gives otherwise is refused in one line naming both keys. */
export function movedBudgetKeys(layer: unknown, at: string, note?: (old: string, now: string) => void): unknown {
  const turnBudget = typeof layer === 'object' && layer !== null ? (layer as { turnBudget?: unknown }).turnBudget : undefined
  if (turnBudget !== undefined && turnBudget !== 'fixed' && turnBudget !== 'hop-scaled')
    throw new ConfigError('config.range', `${at}turnBudget must be 'fixed' or 'hop-scaled', got ${JSON.stringify(turnBudget)}`)
  return moveBudgetKeys(layer, MOVED_BUDGET_KEYS, at, { note, budgets: olderBudgets })
}

/** The budgets the older keys make: turnBudget 'hop-scaled' a turnsPerHop rule (default 2; 0 a fixed limit of at least
 *  4, what the rule gave a question of no hops), 'fixed' or absent none (an older turnsPerHop alone was unused). */
function olderBudgets(l: Record<string, unknown>): BudgetsJson {
  const hopScaled = l.turnBudget === 'hop-scaled'
  const perHop = hopScaled ? (l.turnsPerHop ?? 2) : undefined
  const out: Record<string, unknown> = {}
  if (l.maxTurns !== undefined) out.maxTurns = hopScaled && perHop === 0 && typeof l.maxTurns === 'number' ? Math.max(l.maxTurns, 4) : l.maxTurns
  if (l.maxTokensPerTurn !== undefined) out.maxResponseTokens = l.maxTokensPerTurn
  if (perHop !== undefined && perHop !== 0) out.turnsPerHop = perHop
  return out as BudgetsJson
}

// agent/train/legacy-keys: the older spelling of a train config's episode limits — top-level maxTurns, turnBudget
// ('fixed' | 'hop-scaled'), turnsPerHop and maxTokensPerTurn — read into the one place they live now, gym.budgets
// (maxTurns, turnsPerHop, maxResponseTokens). Files, experiment blocks and run folders' config.json written before the
// move keep working (a run folder resumes); a layer that spells one limit both ways with two values is refused.
import { ConfigError } from '../../infra/errors'

/** The older keys and where each now lives. */
export const MOVED_BUDGET_KEYS = { maxTurns: 'gym.budgets.maxTurns', maxTokensPerTurn: 'gym.budgets.maxResponseTokens', turnBudget: 'gym.budgets.turnsPerHop', turnsPerHop: 'gym.budgets.turnsPerHop' } as const

type Layer = Record<string, unknown>
const isObject = (v: unknown): v is Layer => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `layer` with its older episode-limit keys moved into gym.budgets (the layer itself when it has none; `note(old,
 *  now)` is told each key moved; `at` is the block's place in its file, e.g. 'experiment.train.', '' at the top). turnBudget 'hop-scaled' keeps its rule — max(maxTurns, turnsPerHop·hops + 4), the
 *  older default turnsPerHop 2 — and 'fixed' drops turnsPerHop. A value the layer's own gym.budgets gives otherwise
 *  is refused in one line naming both keys. */
export function movedBudgetKeys(layer: unknown, at: string, note?: (old: string, now: string) => void): unknown {
  if (!isObject(layer) || !Object.keys(MOVED_BUDGET_KEYS).some((k) => k in layer)) return layer
  const { maxTurns, maxTokensPerTurn, turnBudget, turnsPerHop, ...rest } = layer
  if (turnBudget !== undefined && turnBudget !== 'fixed' && turnBudget !== 'hop-scaled')
    throw new ConfigError('config.range', `${at}turnBudget must be 'fixed' or 'hop-scaled', got ${JSON.stringify(turnBudget)}`)
  const gym = rest.gym === undefined ? {} : rest.gym
  if (!isObject(gym)) return layer // the strict merge refuses a gym that is not an object, naming it
  const given = gym.budgets === undefined ? {} : gym.budgets
  if (!isObject(given)) return layer
  const moved: Layer = {}
  const hopScaled = turnBudget === 'hop-scaled'
  const perHop = hopScaled ? (turnsPerHop ?? 2) : undefined
  if (maxTurns !== undefined) moved.maxTurns = hopScaled && perHop === 0 && typeof maxTurns === 'number' ? Math.max(maxTurns, 4) : maxTurns
  if (maxTokensPerTurn !== undefined) moved.maxResponseTokens = maxTokensPerTurn
  if (perHop !== undefined && perHop !== 0) moved.turnsPerHop = perHop
  for (const [k, v] of Object.entries(moved))
    if (given[k] !== undefined && given[k] !== v) {
      const old = k === 'maxResponseTokens' ? 'maxTokensPerTurn' : k === 'turnsPerHop' ? 'turnBudget/turnsPerHop' : k
      throw new ConfigError('config.moved_key', `${at}${old} (the older spelling of ${at}gym.budgets.${k}) ${JSON.stringify(layer[old.split('/')[0]])} and ${at}gym.budgets.${k} ${JSON.stringify(given[k])} set one limit: give gym.budgets.${k} alone`)
    }
  for (const k of ['maxTurns', 'maxTokensPerTurn', 'turnBudget', 'turnsPerHop'] as const) if (layer[k] !== undefined) note?.(`${at}${k}`, `${at}${MOVED_BUDGET_KEYS[k]}`)
  return { ...rest, gym: { ...gym, budgets: { ...given, ...moved } } }
}

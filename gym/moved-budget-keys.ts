// gym/moved-budget-keys: a config layer's older spelling of its episode limits moved into the one place they live now,
// the layer's gym.budgets — one mechanism for every run kind's older keys (agent/train/legacy-keys: a train config's
// maxTurns, maxTokensPerTurn, turnBudget, turnsPerHop; bench/experiment/spec: the eval block's maxTurns, maxTokens).
// A layer that spells one limit both ways with two values is refused naming both. Knows no run kind's keys.
import { ConfigError } from '../infra/errors'
import type { BudgetsJson } from './episode-budgets'

/** Older keys of a layer and the gym.budgets field each now is (two older keys may make one field). */
export type BudgetKeyMap = Readonly<Record<string, keyof BudgetsJson>>

type Layer = Record<string, unknown>
const isObject = (v: unknown): v is Layer => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface MoveOptions {
  /** Told each older key moved (old, now: both with the layer's place), after every check. */
  note?: (old: string, now: string) => void
  /** The budgets the older keys make (default: each given key's value, as is, at its field); a run kind whose older
   *  keys carried a rule (turnBudget) computes them here. */
  budgets?: (layer: Layer) => BudgetsJson
}

/** `layer` with the older keys of `map` moved into its gym.budgets (the layer itself when it has none, or when its gym
 *  or budgets is not an object: the strict resolution refuses that, naming it); `at` is the layer's place in its file
 *  ('experiment.eval.', '' at the top). */
export function moveBudgetKeys(layer: unknown, map: BudgetKeyMap, at: string, o: MoveOptions = {}): unknown {
  if (!isObject(layer) || !Object.keys(map).some((k) => k in layer)) return layer
  const rest = Object.fromEntries(Object.entries(layer).filter(([k]) => !Object.hasOwn(map, k)))
  const gym = rest.gym === undefined ? {} : rest.gym
  if (!isObject(gym)) return layer
  const given = gym.budgets === undefined ? {} : gym.budgets
  if (!isObject(given)) return layer
  const moved: Layer = o.budgets ? o.budgets(layer) : givenBudgets(layer, map)
  for (const [k, v] of Object.entries(moved))
    if (given[k] !== undefined && given[k] !== v) {
      const olds = Object.keys(map).filter((x) => map[x] === k)
      throw new ConfigError('config.moved_key', `${at}${olds.join('/')} (the older spelling of ${at}gym.budgets.${k}) ${JSON.stringify(layer[olds[0]])} and ${at}gym.budgets.${k} ${JSON.stringify(given[k])} set one limit: give gym.budgets.${k} alone`)
    }
  for (const k of Object.keys(map)) if (layer[k] !== undefined) o.note?.(`${at}${k}`, `${at}gym.budgets.${map[k]}`)
  return { ...rest, gym: { ...gym, budgets: { ...given, ...moved } } }
}

/** Each older key given, its value as is, at its field. */
function givenBudgets(layer: Layer, map: BudgetKeyMap): Layer {
  const out: Layer = {}
  for (const [k, field] of Object.entries(map)) if (layer[k] !== undefined) out[field] = layer[k]
  return out
}

// Tests for agent/train/config's bounds: every numeric field refused in one line outside its range (issue 47:
// `steps: 1e15` in an experiment file was accepted), checked at resolve time before any work; a given gym.budgets
// the episode limits in gym.budgets alone, the older top-level spelling read into it (issue 61).
import { ConfigError } from '../../infra/errors'
import { DEFAULT_TRAIN_CONFIG, resolveTrainConfig, TRAIN_INT_BOUNDS, TRAIN_NUMBER_BOUNDS } from './config'

test('the defaults sit inside every bound', () => {
  expect(resolveTrainConfig()).toEqual(DEFAULT_TRAIN_CONFIG)
  for (const [k, [lo, hi]] of Object.entries({ ...TRAIN_INT_BOUNDS, ...TRAIN_NUMBER_BOUNDS })) {
    const v = DEFAULT_TRAIN_CONFIG[k as keyof typeof DEFAULT_TRAIN_CONFIG] as number
    expect(v >= lo && v <= hi).toBe(true)
  }
})

test.each([
  [{ steps: 1e15 }, /^steps must be an integer in \[1, 1000000\], got 1000000000000000$/],
  [{ steps: 2.5 }, /^steps must be an integer/],
  [{ groupSize: 1e9 }, /^groupSize must be an integer in \[1, 1024\]/],
  [{ maxTurns: 5000 }, /^gym\.budgets\.maxTurns must be an integer in \[1, 1000\]/],
  [{ seed: -1 }, /^seed must be an integer in \[0, /],
  [{ ppoEpochs: 1e6 }, /^ppoEpochs must be an integer in \[1, 100\]/],
  [{ lr: 3 }, /^lr must be a number in \[0, 1\], got 3$/],
  [{ epsLow: 1.5 }, /^epsLow must be a number in \[0, 0.999\]/],
  [{ weightDecay: -1 }, /^weightDecay must be a number in \[0, 10\]/],
  [{ lora: { rank: 0 } }, /^lora.rank must be an integer in \[1, 4096\]/],
  [{ lora: { rank: 1e7 } }, /^lora.rank must be an integer in \[1, 4096\]/],
])('%j is refused in one line', (layer, message) => {
  let err: unknown
  try {
    resolveTrainConfig(layer)
  } catch (e) {
    err = e
  }
  expect(err).toBeInstanceOf(ConfigError)
  expect((err as Error).message).toMatch(message)
  expect((err as Error).message).not.toMatch(/\n/)
})

test('the episode limits live in gym.budgets alone; the older top-level spelling is read into it, never beside it', () => {
  const c = resolveTrainConfig({ gym: { budgets: { maxTurns: 4, maxResponseTokens: 24 } } })
  expect(c.gym.budgets).toEqual({ maxTurns: 4, maxResponseTokens: 24 })
  for (const k of ['maxTurns', 'maxTokensPerTurn', 'turnBudget', 'turnsPerHop']) expect(Object.keys(c)).not.toContain(k)
  // Resolved again (a stored config.json, a resume): the same config.
  expect(resolveTrainConfig(JSON.parse(JSON.stringify(c)))).toEqual(c)
  // The older spelling (a file or a run folder written before the move) is the same config.
  expect(resolveTrainConfig({ maxTurns: 4, maxTokensPerTurn: 24 })).toEqual(c)
  expect(resolveTrainConfig({ maxTurns: 2, turnBudget: 'hop-scaled', turnsPerHop: 3 }).gym.budgets).toEqual({ maxTurns: 2, turnsPerHop: 3 })
  expect(resolveTrainConfig({ maxTurns: 2, turnBudget: 'hop-scaled' }).gym.budgets).toEqual({ maxTurns: 2, turnsPerHop: 2 })
  expect(resolveTrainConfig({ maxTurns: 9, turnBudget: 'fixed', turnsPerHop: 3 }).gym.budgets).toEqual({ maxTurns: 9 })
  // One knob spelt both ways with two values, in one layer: refused naming both.
  expect(() => resolveTrainConfig({ maxTurns: 2, gym: { budgets: { maxTurns: 4 } } })).toThrow(/^maxTurns \(the older spelling of gym\.budgets\.maxTurns\) 2 and gym\.budgets\.maxTurns 4 set one limit: give gym\.budgets\.maxTurns alone$/)
  // A later layer overrides an earlier one, whichever spelling each uses.
  expect(resolveTrainConfig({ maxTurns: 2 }, { gym: { budgets: { maxTurns: 4 } } }).gym.budgets).toEqual({ maxTurns: 4 })
  expect(() => resolveTrainConfig({ turnBudget: 'daily' })).toThrow(/turnBudget must be 'fixed' or 'hop-scaled'/)
  expect(() => resolveTrainConfig({ gym: { budgets: 3 } })).toThrow(/^gym\.budgets must be an object/)
})

test('the limits are checked in the gym’s ranges before any work', () => {
  expect(() => resolveTrainConfig({ gym: { budgets: { maxTurns: 0 } } })).toThrow(/^gym\.budgets\.maxTurns must be an integer in \[1, 1000\], got 0$/)
  expect(() => resolveTrainConfig({ gym: { budgets: { turnsPerHop: 1.5 } } })).toThrow(/^gym\.budgets\.turnsPerHop must be an integer in \[0, 100\], got 1\.5$/)
})

test('budgets of two layers merge key by key; an unknown budget key is refused naming it', () => {
  expect(resolveTrainConfig({ gym: { budgets: { maxResponseTokens: 8 } } }, { gym: { budgets: { maxTurns: 4 } } }).gym.budgets).toEqual({ maxResponseTokens: 8, maxTurns: 4 })
  expect(() => resolveTrainConfig({ gym: { budgets: { maxTurn: 4 } } })).toThrow(/^unknown key 'gym\.budgets\.maxTurn' \(known keys: maxTurns, turnsPerHop, maxResponseTokens, maxContextTokens\)$/)
})

// Tests for agent/train/config's bounds: every numeric field refused in one line outside its range (issue 47:
// `steps: 1e15` in an experiment file was accepted), checked at resolve time before any work; a given gym.budgets
// folded into maxTurns / maxTokensPerTurn or refused where a layer sets the same limit otherwise (issue 48).
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
  [{ maxTurns: 5000 }, /^maxTurns must be an integer in \[1, 1000\]/],
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

test('a gym.budgets given is the run’s: its limits become maxTurns / maxTokensPerTurn; a layer that says otherwise is refused', () => {
  const c = resolveTrainConfig({ gym: { budgets: { maxTurns: 4, maxResponseTokens: 24 } } })
  expect([c.maxTurns, c.maxTokensPerTurn, c.gym.budgets]).toEqual([4, 24, { maxTurns: 4, maxResponseTokens: 24 }])
  // Resolved again (a stored config.json, a resume): both keys agree, no conflict, the same config.
  expect(resolveTrainConfig(JSON.parse(JSON.stringify(c)))).toEqual(c)
  // Context alone: nothing folded (the model's context is not a config key).
  expect(resolveTrainConfig({ gym: { budgets: { maxContextTokens: 900 } } }).maxTurns).toBe(DEFAULT_TRAIN_CONFIG.maxTurns)
  expect(() => resolveTrainConfig({ maxTurns: 2 }, { gym: { budgets: { maxTurns: 4 } } })).toThrow(/^maxTurns 2 and gym\.budgets\.maxTurns 4 set the same limit: give one$/)
  expect(() => resolveTrainConfig({ maxTokensPerTurn: 32, gym: { budgets: { maxResponseTokens: 8 } } })).toThrow(/^maxTokensPerTurn 32 and gym\.budgets\.maxResponseTokens 8 set the same limit/)
  expect(() => resolveTrainConfig({ turnBudget: 'hop-scaled', gym: { budgets: { maxTurns: 4 } } })).toThrow(/turnBudget 'hop-scaled' scales it with hops: give one$/)
  expect(() => resolveTrainConfig({ gym: { budgets: { maxTurns: 0 } } })).toThrow(/^gym\.budgets\.maxTurns must be an integer in \[1, 1000\], got 0$/)
})

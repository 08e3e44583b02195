// gym/episode-budgets.test: the one function that decides an episode's budgets — a given field is honoured, a turn
// rule (turnsPerHop) scales the limit with the question's hops, the run kind's fallback fills the rest and the gym's
// defaults come last; a given turn limit brings its own rule (a fixed one unless it says turnsPerHop).
import { DEFAULT_BUDGETS } from './wrappers/budgets'
import { episodeBudgets, responseTokensOf, turnsFor } from './episode-budgets'
import { budgetsRecord, makeEnv, resolveGymOptions } from './make-env'

const DEMO = { maxTurns: 16, turnsPerHop: 2 }

test('a turn rule gives long questions more turns; a fixed limit does not', () => {
  expect(turnsFor(12, 16)).toBe(16)
  expect(turnsFor(12, 16, 2)).toBe(28)
  expect(turnsFor(2, 16, 2)).toBe(16)
})

test('a given field is the episode’s, as given; the fallback fills the rest; the gym’s defaults last', () => {
  expect(episodeBudgets(null)).toEqual(DEFAULT_BUDGETS)
  expect(episodeBudgets({ hops: 12 }, {}, { ...DEMO, maxResponseTokens: 48, maxContextTokens: 512 })).toEqual({ maxTurns: 28, maxResponseTokens: 48, maxContextTokens: 512 })
  // A given maxTurns beats the fallback's rule (as SFT's demonstrations use it), and only that field.
  expect(episodeBudgets({ hops: 12 }, { maxTurns: 3 }, { ...DEMO, maxResponseTokens: 48, maxContextTokens: 512 })).toEqual({ maxTurns: 3, maxResponseTokens: 48, maxContextTokens: 512 })
  // A given rule without maxTurns takes the fallback's limit as its floor.
  expect(episodeBudgets({ hops: 12 }, { turnsPerHop: 3 }, { maxTurns: 10 }).maxTurns).toBe(40)
  expect(episodeBudgets(null, { maxContextTokens: 100 }, { maxTurns: 5 })).toEqual({ maxTurns: 5, maxResponseTokens: DEFAULT_BUDGETS.maxResponseTokens, maxContextTokens: 100 })
  expect(() => episodeBudgets(null, { turnsPerHop: 2 })).toThrow(/turnsPerHop scales the turn limit with the question/)
  expect(responseTokensOf({}, { maxResponseTokens: 48 })).toBe(48)
  expect(responseTokensOf({ maxResponseTokens: 8 }, { maxResponseTokens: 48 })).toBe(8)
  expect(responseTokensOf()).toBe(DEFAULT_BUDGETS.maxResponseTokens)
})

test('gym options carry a turn rule (checked; 0, a fixed limit, unless given; left out of records when 0) and each env applies it to its own question', async () => {
  expect(resolveGymOptions({}).budgets).toEqual({ ...DEFAULT_BUDGETS, turnsPerHop: 0 })
  expect(resolveGymOptions({ budgets: { turnsPerHop: 0 } }).budgets).toEqual({ ...DEFAULT_BUDGETS, turnsPerHop: 0 })
  expect(JSON.stringify(budgetsRecord(resolveGymOptions({}).budgets))).toBe(JSON.stringify(DEFAULT_BUDGETS))
  expect(resolveGymOptions({ budgets: { maxTurns: 4, turnsPerHop: 3 } }).budgets).toEqual({ ...DEFAULT_BUDGETS, maxTurns: 4, turnsPerHop: 3 })
  expect(JSON.stringify(budgetsRecord(resolveGymOptions({ budgets: { maxTurns: 4, turnsPerHop: 3 } }).budgets))).toBe(JSON.stringify({ ...DEFAULT_BUDGETS, maxTurns: 4, turnsPerHop: 3 }))
  expect(() => resolveGymOptions({ budgets: { turnsPerHop: -1 } })).toThrow(/^budgets\.turnsPerHop must be an integer in \[0, 100\], got -1$/)
  expect(() => resolveGymOptions({ budgets: { turnz: 1 } })).toThrow(/turnz/)
  void makeEnv
})

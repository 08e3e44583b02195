// gym/episode-budgets.test: the one function that decides an episode's budgets — a given field is honoured, the turn
// rule (fixed or hop-scaled) and the run's response/context limits fill the rest, the gym's defaults last; and the
// conflict check refuses a given budget an explicit setting contradicts, in one line naming both.
import { DEFAULT_BUDGETS } from './wrappers/budgets'
import { episodeBudgets, refuseBudgetConflicts, turnsFor } from './episode-budgets'

const FIXED = { turnBudget: 'fixed' as const, maxTurns: 16, turnsPerHop: 2 }
const SCALED = { ...FIXED, turnBudget: 'hop-scaled' as const }

test('hop-scaled budgets give long questions more turns; fixed budgets do not', () => {
  expect(turnsFor({ hops: 12 }, FIXED)).toBe(16)
  expect(turnsFor({ hops: 12 }, SCALED)).toBe(28)
  expect(turnsFor({ hops: 2 }, SCALED)).toBe(16)
})

test('a given field is the episode’s, as given; the run fills the rest; the gym’s defaults last', () => {
  expect(episodeBudgets(null)).toEqual(DEFAULT_BUDGETS)
  expect(episodeBudgets({ hops: 12 }, { turns: SCALED, responseTokens: 48, contextTokens: 512 })).toEqual({ maxTurns: 28, maxResponseTokens: 48, maxContextTokens: 512 })
  // Given maxTurns beats the rule (even a hop-scaled default rule, as SFT's demonstrations use), and only that field.
  expect(episodeBudgets({ hops: 12 }, { given: { maxTurns: 3 }, turns: SCALED, responseTokens: 48, contextTokens: 512 })).toEqual({ maxTurns: 3, maxResponseTokens: 48, maxContextTokens: 512 })
  expect(episodeBudgets(null, { given: { maxContextTokens: 100 }, turns: 5 })).toEqual({ maxTurns: 5, maxResponseTokens: DEFAULT_BUDGETS.maxResponseTokens, maxContextTokens: 100 })
  expect(() => episodeBudgets(null, { turns: SCALED })).toThrow(/hop-scaled turn budget needs the question/)
})

test('a given budget contradicted by an explicit setting is refused in one line; equal values are no conflict', () => {
  expect(() => refuseBudgetConflicts({ maxTurns: 3 }, { maxTurns: { key: 'maxTurns', value: 16 } })).toThrow('maxTurns 16 and gym.budgets.maxTurns 3 set the same limit: give one')
  expect(() => refuseBudgetConflicts({ maxResponseTokens: 8 }, { maxResponseTokens: { key: 'experiment.eval.maxTokens', value: 48 } }, 'experiment.gym.budgets')).toThrow(
    'experiment.eval.maxTokens 48 and experiment.gym.budgets.maxResponseTokens 8 set the same limit: give one',
  )
  expect(() => refuseBudgetConflicts({ maxTurns: 3 }, { maxTurns: { key: 'maxTurns', value: 3 } })).not.toThrow()
  expect(() => refuseBudgetConflicts(undefined, { maxTurns: { key: 'maxTurns', value: 3 } })).not.toThrow()
})

// gym/moved-budget-keys.test: one mover for every run kind's older limit keys — each given key at its field, the rest
// of the layer and its gym kept in place, a value spelt both ways refused naming both, notes after every check.
import { comparableBudgets } from './episode-budgets'
import { moveBudgetKeys } from './moved-budget-keys'

const MAP = { maxTurns: 'maxTurns', maxTokens: 'maxResponseTokens' } as const

it('moves each given older key into gym.budgets, keeping the layer and its gym; a layer without one is itself', () => {
  const notes: string[] = []
  const note = (old: string, now: string) => notes.push(`${old} → ${now}`)
  const layer = { sets: [1], maxTurns: 4, gym: { budgets: { maxContextTokens: 9 } } }
  expect(JSON.stringify(moveBudgetKeys(layer, MAP, 'e.', { note }))).toBe(JSON.stringify({ sets: [1], gym: { budgets: { maxContextTokens: 9, maxTurns: 4 } } }))
  expect(notes).toEqual(['e.maxTurns → e.gym.budgets.maxTurns'])
  expect(moveBudgetKeys({ maxTokens: 8 }, MAP, '')).toEqual({ gym: { budgets: { maxResponseTokens: 8 } } })
  const plain = { sets: [] }
  expect(moveBudgetKeys(plain, MAP, '')).toBe(plain)
  // A gym (or budgets) that is not an object is left for the strict resolution to name.
  const odd = { maxTurns: 2, gym: 'x' }
  expect(moveBudgetKeys(odd, MAP, '')).toBe(odd)
})

it('one limit spelt both ways with two values: one line naming both (the same value is one limit); no note before the check', () => {
  const notes: string[] = []
  expect(() => moveBudgetKeys({ maxTurns: 2, maxTokens: 8, gym: { budgets: { maxResponseTokens: 9 } } }, MAP, 'e.', { note: (o) => notes.push(o) })).toThrow(
    /^e\.maxTokens \(the older spelling of e\.gym\.budgets\.maxResponseTokens\) 8 and e\.gym\.budgets\.maxResponseTokens 9 set one limit: give gym\.budgets\.maxResponseTokens alone$/,
  )
  expect(notes).toEqual([])
  expect(moveBudgetKeys({ maxTurns: 2, gym: { budgets: { maxTurns: 2 } } }, MAP, '')).toEqual({ gym: { budgets: { maxTurns: 2 } } })
  // Two older keys of one field are named together; a run kind's rule computes the value (budgets).
  const two = { a: 'rule', b: 3, gym: { budgets: { turnsPerHop: 1 } } }
  expect(() => moveBudgetKeys(two, { a: 'turnsPerHop', b: 'turnsPerHop' }, '', { budgets: () => ({ turnsPerHop: 3 }) })).toThrow(/^a\/b \(the older spelling of gym\.budgets\.turnsPerHop\) "rule" and gym\.budgets\.turnsPerHop 1/)
})

it("comparableBudgets fills the two limits every older config wrote out with the gym's defaults", () => {
  expect(comparableBudgets({})).toEqual({ maxTurns: 16, maxResponseTokens: 1024 })
  expect(comparableBudgets({ maxTurns: 3, turnsPerHop: 2, maxContextTokens: 5 })).toEqual({ maxTurns: 3, turnsPerHop: 2, maxContextTokens: 5, maxResponseTokens: 1024 })
})

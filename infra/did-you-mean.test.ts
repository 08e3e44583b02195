// infra/did-you-mean.test: typos find their name; unrelated words find none.
import { editDistance, nearest } from './did-you-mean'

test('edit distance counts inserts, deletes, substitutions and neighbour swaps', () => {
  expect(editDistance('limit', 'limit')).toBe(0)
  expect(editDistance('limt', 'limit')).toBe(1)
  expect(editDistance('bnech', 'bench')).toBe(1)
  expect(editDistance('kitten', 'sitting')).toBe(3)
})

test('nearest: typos of flags and commands, nothing for unrelated words', () => {
  const flags = ['policy', 'limit', 'limit-mode', 'base-url', 'out', 'seed']
  expect(nearest('limt', flags)).toBe('limit')
  expect(nearest('base-ulr', flags)).toBe('base-url')
  expect(nearest('polcy', flags)).toBe('policy')
  expect(nearest('banana', flags)).toBeUndefined()
  expect(nearest('bnech', ['world', 'gym', 'score', 'model', 'train', 'bench', 'view'])).toBe('bench')
  expect(nearest('rn', ['run', 'report', 'compare'])).toBe('run')
})

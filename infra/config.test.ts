import { mergeStrict } from './config'
import { ConfigError } from './errors'

const defaults = { seed: 1, counts: { A: 1 }, search: { engine: 'sqlite', topK: 5 } }

test('defaults are spread in and nested keys merged', () => {
  expect(mergeStrict(defaults, { search: { topK: 3 } })).toEqual({ seed: 1, counts: { A: 1 }, search: { engine: 'sqlite', topK: 3 } })
})

test('unknown keys and wrong types are rejected with the path', () => {
  expect(() => mergeStrict(defaults, { sed: 2 })).toThrow(/unknown config key 'config.sed'/)
  expect(() => mergeStrict(defaults, { search: { topk: 2 } })).toThrow(ConfigError)
  expect(() => mergeStrict(defaults, { seed: 'x' })).toThrow(/config.seed must be a number/)
})

test('open maps accept new keys', () => {
  expect(mergeStrict(defaults, { counts: { B: 2 } }, 'config', ['config.counts']).counts).toEqual({ A: 1, B: 2 })
})

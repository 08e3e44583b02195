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

test('__proto__ is refused wherever it stands, and the message lists the known keys (issue 47)', () => {
  const hostile = (json: string) => JSON.parse(json) as unknown
  // Under an open map (counts), reading the default at __proto__ used to reach Object.prototype: "known keys: " empty.
  for (const [input, known] of [
    ['{"counts": {"__proto__": {"bogus": 1}}}', /known keys: A\)/],
    ['{"__proto__": {"bogus": 1}}', /known keys: seed, counts, search\)/],
    ['{"search": {"constructor": 1}}', /known keys: engine, topK\)/],
  ] as const) {
    let msg = ''
    try {
      mergeStrict(defaults, hostile(input), 'config', ['config.counts'])
    } catch (e) {
      msg = (e as Error).message
    }
    expect(msg).toMatch(/unknown config key/)
    expect(msg).toMatch(known)
    expect(msg).not.toMatch(/known keys: \)/)
  }
  // An open map with no defaults still says what it takes.
  expect(() => mergeStrict({ m: {} as Record<string, number> }, hostile('{"m": {"__proto__": {"x": 1}}}'), 'config', ['config.m'])).toThrow(/known keys: any name of config.m but __proto__/)
  expect(({} as Record<string, unknown>).bogus).toBeUndefined()
})

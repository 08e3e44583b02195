// world/config.test: presets and validation of WorldConfig (one-line ConfigErrors).
import { ConfigError } from '../infra/errors'
import { canonicalJson } from '../infra/hash'
import { getPath } from '../infra/fields'
import { DEFAULT_CONFIG, loadWorldConfig, presetConfig, resolveConfig, WORLD_PRESET_NAMES, WORLD_PRESETS } from './config'
import { WORLD_FIELDS } from './config-fields'

const total = (c: { entities: Record<string, number> }) => Object.values(c.entities).reduce((a, b) => a + b, 0)

test('presets have the advertised sizes', () => {
  expect(total(WORLD_PRESETS.tiny)).toBeGreaterThanOrEqual(90)
  expect(total(WORLD_PRESETS.tiny)).toBeLessThanOrEqual(120)
  expect(total(WORLD_PRESETS.small)).toBeGreaterThanOrEqual(550)
  expect(total(WORLD_PRESETS.paper)).toBeGreaterThanOrEqual(3500)
  expect(Object.keys(WORLD_PRESETS.paper.entities).length).toBeGreaterThanOrEqual(10)
  expect(WORLD_PRESETS.paper.verification).toEqual({ queriesPerEdge: 15, minHits: 5, topK: 5 })
})

test('seed override and defaults', () => {
  expect(loadWorldConfig({ preset: 'tiny', seed: 42 }).seed).toBe(42)
  expect(loadWorldConfig({}).entities).toEqual(WORLD_PRESETS.paper.entities)
  expect(() => loadWorldConfig({ seed: Number('x') })).toThrow(/--seed must be an integer in \[0, /)
  expect(() => presetConfig('huge')).toThrow(/unknown preset 'huge'/)
})

test('bad configs are ConfigErrors with one-line messages', () => {
  const bad: [unknown, RegExp][] = [
    [{ entities: { Dragon: 1 } }, /unknown entity type 'config.entities.Dragon'/],
    [{ entities: { Person: -1 } }, /non-negative integer, got -1/],
    [{ entities: { Person: 1.5 } }, /non-negative integer, got 1.5/],
    [{ entities: { Person: '3' } }, /must be a number/],
    [{ graph: { homonymRate: 2 } }, /^config\.graph\.homonymRate must be a number in \[0, 1\], got 2$/],
    [{ graph: { edgesPerEntity: -1 } }, /^config\.graph\.edgesPerEntity must be a number ≥ 0, got -1$/],
    [{ qa: { maxHops: 13 } }, /^config\.qa\.maxHops must be an integer in \[1, 12\], got 13$/],
    [{ write: { concurrency: 0 } }, /^config\.write\.concurrency must be an integer ≥ 1, got 0$/],
    [{ search: { engine: 'bing' } }, /^config\.search\.engine must be one of embedded, sqlite, meilisearch, dense, hybrid, got "bing"$/],
    [{ docs: { locales: ['xx_YY'] } }, /unknown faker locale "xx_YY"/],
    [{ nope: 1 }, /unknown config key 'config.nope'/],
    [{ entities: { Person: 0, City: 0 } }, /no entities/],
  ]
  for (const [input, msg] of bad) {
    const base = input && typeof input === 'object' && 'entities' in input && (input as { entities: object }).entities && Object.values((input as { entities: Record<string, unknown> }).entities).every((v) => v === 0) ? { ...WORLD_PRESETS.tiny, entities: {} } : WORLD_PRESETS.tiny
    let err: unknown
    try { resolveConfig(input, base) } catch (e) { err = e }
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as Error).message).toMatch(msg)
    expect((err as Error).message).not.toContain('\n')
  }
})

test('scale presets: the paper entity mix ×10 / ×100, bigger QA pools, the same bench quota', () => {
  const paper = presetConfig('paper')
  for (const [name, k, target] of [['paper-x10', 10, 100_000], ['paper-x100', 100, 250_000]] as const) {
    const c = presetConfig(name)
    for (const [t, n] of Object.entries(paper.entities)) expect([t, c.entities[t]]).toEqual([t, n * k])
    expect(c.graph).toEqual(paper.graph)
    expect(c.qa.target).toBe(target)
    expect(c.split).toEqual(paper.split)
  }
})

test('split.factDisjoint: off is absent from the canonical config (old manifests still match); on is kept; not a boolean is an error', () => {
  const plain = canonicalJson(resolveConfig({ entities: { Person: 3 } }))
  expect(plain).not.toContain('factDisjoint')
  expect(canonicalJson(resolveConfig({ entities: { Person: 3 }, split: { factDisjoint: false } }))).toBe(plain)
  expect(resolveConfig({ entities: { Person: 3 }, split: { factDisjoint: true } }).split.factDisjoint).toBe(true)
  expect(canonicalJson(resolveConfig({ entities: { Person: 3 }, split: { factDisjoint: true } }))).toContain('"factDisjoint":true')
  expect(() => resolveConfig({ entities: { Person: 3 }, split: { factDisjoint: 'yes' } })).toThrow(/config.split.factDisjoint must be true or false, got "yes"/)
  expect(() => resolveConfig({ entities: { Person: 3 }, split: { factDisjoin: true } })).toThrow(/unknown config key 'config.split.factDisjoin'.*factDisjoint/)
})

test('the field table names every key of WorldConfig once, with DEFAULT_CONFIG\'s value as its default; every preset passes it', () => {
  const leaves: string[] = []
  const walk = (o: unknown, at: string) => {
    if (at === 'entities' || typeof o !== 'object' || o === null || Array.isArray(o)) return void leaves.push(at)
    for (const [k, v] of Object.entries(o)) walk(v, at ? `${at}.${k}` : k)
  }
  walk(DEFAULT_CONFIG, '')
  const keys = WORLD_FIELDS.map((f) => f.key)
  expect(new Set(keys).size).toBe(keys.length)
  expect([...keys].sort()).toEqual([...leaves, 'search.embedder'].sort())
  for (const f of WORLD_FIELDS) expect([f.key, f.default]).toEqual([f.key, getPath(DEFAULT_CONFIG, f.key)])
  for (const name of WORLD_PRESET_NAMES) expect(canonicalJson(resolveConfig({}, presetConfig(name)))).toBe(canonicalJson(presetConfig(name)))
})

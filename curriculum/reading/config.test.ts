// curriculum/reading/config.test: the reading curriculum's config (defaults, strict keys named by their dotted path,
// ranges) and the pure parts of its run (the learning-rate schedule, the batch draw).
import { readReaderConfig, resolveReaderConfig } from './config'
import { drawBatch, phaseLr, phaseFingerprint } from './run'

const base = { worlds: { preset: 'tiny', train: [1, 2], valid: [3] }, init: { tokenizerWorlds: 2 }, phases: [{ name: 'copy', mix: { fact: 1 } }] }
const bad = (patch: Record<string, unknown>) => () => resolveReaderConfig({ ...base, ...patch })

test('defaults fill a minimal config; the shipped recipe resolves', () => {
  const c = resolveReaderConfig(base)
  expect(c.protocol).toBe('search-r1')
  expect(c.gym).toMatchObject({ leadSpace: true, accessByTitle: true })
  expect(c.phases[0]).toMatchObject({ steps: 1000, lr: 3e-3, warmup: 100, batch: 32, maxHops: 1, gate: { metric: 'fact', patience: 3 } })
  const r = readReaderConfig('curriculum/recipes/reader-v1.json')
  expect(r.phases.map((p) => p.name)).toEqual(['copy', 'grow', 'page', 'episode', 'turns', 'demos', 'hops'])
  expect(r.worlds.config).toBe('../../bench/perf/configs/world-small2x-1to2.json')
})

test('bad configs are refused in one line naming the key', () => {
  expect(bad({ seeed: 1 })).toThrow(/unknown config key 'reader config.seeed'/)
  expect(bad({ phases: [{ name: 'a', mix: { copy: 1 } }] })).toThrow(/phases\[0\]\.mix\.copy is not a drill kind/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 0 } }] })).toThrow(/gives no kind a weight > 0/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 1 }, warmup: 5000 }] })).toThrow(/warmup must be an integer in \[0, steps\)/)
  expect(bad({ phases: [{ name: 'A b', mix: { fact: 1 } }] })).toThrow(/folder-safe name/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 1 } }, { name: 'a', mix: { fact: 1 } }] })).toThrow(/phase names must differ/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 1 }, gate: { metric: 'nope' } }] })).toThrow(/'nope' is not a drill kind, e2e or e2e2/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 1 }, steps: 500, stopAt: 501 }] })).toThrow(/phases\[0\]\.stopAt must be an integer in \[0, steps\]/)
  expect(bad({ phases: [{ name: 'a', mix: { fact: 1 }, stopAt: 2.5 }] })).toThrow(/stopAt must be an integer/)
  expect(bad({ phases: [] })).toThrow(/at least one phase/)
  expect(bad({ worlds: { preset: 'tiny', train: [1], valid: [1] } })).toThrow(/a seed is listed twice/)
  expect(bad({ gym: { protocol: 'hermes' } })).toThrow(/may not set protocol/)
  expect(bad({ gym: { topK: 0 } })).toThrow(/topK must be an integer in \[1, 100\]/)
})

test('the schedule: linear warmup, then cosine to lr/10 at the planned steps', () => {
  const p = { lr: 1e-3, warmup: 10, steps: 110 }
  expect(phaseLr(p, 5)).toBeCloseTo(5e-4, 12)
  expect(phaseLr(p, 10)).toBeCloseTo(1e-3, 12)
  expect(phaseLr(p, 60)).toBeCloseTo(1e-3 * (0.1 + 0.45), 12)
  expect(phaseLr(p, 110)).toBeCloseTo(1e-4, 12)
})

test('a batch is a function of the seed, the phase and the step; kinds follow the weights; fingerprints chain', () => {
  const c = resolveReaderConfig({ ...base, phases: [{ name: 'a', mix: { fact: 3, page: 1 }, batch: 4000 }, { name: 'b', mix: { fact: 1 } }] })
  const eligible = new Map([['fact', [0, 1, 2]], ['page', [5, 6]]] as const)
  const b1 = drawBatch(0, c.phases[0], 7, eligible as never)
  expect(drawBatch(0, c.phases[0], 7, eligible as never)).toEqual(b1)
  expect(drawBatch(0, c.phases[0], 8, eligible as never)).not.toEqual(b1)
  const facts = b1.filter((x) => x.kind === 'fact').length
  expect(facts / b1.length).toBeGreaterThan(0.72)
  expect(facts / b1.length).toBeLessThan(0.78)
  expect(b1.every((x) => (x.kind === 'fact' ? [0, 1, 2] : [5, 6]).includes(x.i))).toBe(true)
  // A later phase's change leaves an earlier phase's fingerprint alone.
  const c2 = resolveReaderConfig({ ...base, phases: [{ name: 'a', mix: { fact: 3, page: 1 }, batch: 4000 }, { name: 'b', mix: { fact: 2 } }] })
  expect(phaseFingerprint(c2, 0)).toBe(phaseFingerprint(c, 0))
  expect(phaseFingerprint(c2, 1)).not.toBe(phaseFingerprint(c, 1))
})

// gym/wrappers/faults-boundary: fault rates at their edges — probability 1 always fails, 0 never does (over many
// seeded draws), each search fault band alone at 1 gives its own failure, the three search rates summing to exactly
// 1 are accepted and just over 1 refused, a rate outside [0, 1] refused.
import { Rng } from '../../infra/rng'
import { openFixtureWorld } from '../../tests/fixtures/gym-fixture-world'
import { resolveGymOptions } from '../make-env'
import { ToolFaultError } from '../tool-errors'
import { NO_FAULTS, withFaults } from './faults'

const world = openFixtureWorld()
const url = 'https://fixture.wiki/Marie_Alder'

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    const r = await p
    return Array.isArray(r) ? (r.length === 0 ? 'empty' : 'results') : r ? 'page' : 'none'
  } catch (e) {
    return e instanceof ToolFaultError ? `fault:${e.message}` : `error:${(e as Error).message}`
  }
}

describe('fault rates at 0 and 1', () => {
  it('rate 0 never fails, over 200 seeded calls of each tool', async () => {
    const w = withFaults(world, NO_FAULTS, new Rng(1))
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      seen.add(await outcome(w.search('Marie Alder', 5)))
      seen.add(await outcome(w.access(url)))
    }
    expect([...seen].sort()).toEqual(['page', 'results'])
  })
  it.each([
    ['searchTimeout', 'fault:the search service timed out'],
    ['searchRateLimit', 'fault:the search service is rate-limited (429)'],
    ['searchEmpty', 'empty'],
  ])('%s = 1 alone: every search gives that failure', async (key, want) => {
    const w = withFaults(world, { ...NO_FAULTS, [key]: 1 }, new Rng(2))
    const seen = new Set<string>()
    for (let i = 0; i < 100; i++) seen.add(await outcome(w.search('Marie Alder', 5)))
    expect([...seen]).toEqual([want])
    expect(await outcome(w.access(url))).toBe('page') // search faults leave access alone
  })
  it('accessFailure = 1: every access fails, searches are untouched', async () => {
    const w = withFaults(world, { ...NO_FAULTS, accessFailure: 1 }, new Rng(3))
    const seen = new Set<string>()
    for (let i = 0; i < 100; i++) seen.add(await outcome(w.access(url)))
    expect([...seen]).toEqual(['fault:the page could not be loaded'])
    expect(await outcome(w.search('Marie Alder', 5))).toBe('results')
  })
})

describe('fault option ranges', () => {
  const faults = (f: Record<string, number>) => ({ faults: { ...NO_FAULTS, ...f } })
  it('search rates summing to exactly 1 are accepted; just over 1 is refused', () => {
    expect(() => resolveGymOptions(faults({ searchTimeout: 0.5, searchRateLimit: 0.25, searchEmpty: 0.25 }))).not.toThrow()
    expect(() => resolveGymOptions(faults({ searchTimeout: 0.5, searchRateLimit: 0.25, searchEmpty: 0.2500001 }))).toThrow(/at most 1/)
  })
  it('each rate accepts 0 and 1 and refuses −0.01 and 1.01', () => {
    for (const k of ['searchTimeout', 'searchRateLimit', 'searchEmpty', 'accessFailure', 'latencyRate']) {
      expect(() => resolveGymOptions(faults({ [k]: 0 }))).not.toThrow()
      expect(() => resolveGymOptions(faults({ [k]: 1 }))).not.toThrow()
      expect(() => resolveGymOptions(faults({ [k]: -0.01 }))).toThrow(new RegExp(`faults.${k} must be a probability`))
      expect(() => resolveGymOptions(faults({ [k]: 1.01 }))).toThrow(new RegExp(`faults.${k} must be a probability`))
    }
  })
})

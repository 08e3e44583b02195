// Tests of the bench split on a fixture pool: exact quotas over the hop range, strictness switches, shortfall.
import { DEFAULT_CONFIG } from '../config'
import { generateQa } from '../qa/generate'
import { splitItemOf } from './split-item'
import { makeFixtureWorld } from '../../tests/fixtures/qa-fixture-world'
import { splitBench } from './split'

const view = makeFixtureWorld({ seed: 2, perType: 30, keptRate: 0.9, homonymRate: 0.1 })
const items = generateQa(view, { ...DEFAULT_CONFIG.qa, target: 1200 }, 3).qas.map(splitItemOf)
const base = { ...DEFAULT_CONFIG.split, bench: { simple: 48, parallel: 22, combo: 10 } }

describe('splitBench', () => {
  it('meets each type quota exactly, spreads Simple evenly over 1..12 and leaves no overlap when strict', () => {
    const { stats } = splitBench(items, base, 1)
    expect(stats.benchByType).toEqual({ simple: 48, parallel: 22, combo: 10 })
    expect(stats.benchByTypeHops.simple).toEqual(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [i + 1, 4])))
    expect(stats.overlap).toEqual({ question: 0, path: 0, subPath: 0, startEntity: 0 })
    expect(stats.train + stats.bench + stats.excluded).toBe(items.length)
    expect(stats.shortfall).toEqual({ simple: 0, parallel: 0, combo: 0 })
  })

  it('keeps training items that share a start entity when that criterion is off (and reports the overlap)', () => {
    const strict = splitBench(items, base, 1).stats
    const loose = splitBench(items, { ...base, disjoint: { question: true, path: true, startEntity: false } }, 1).stats
    expect(loose.excluded).toBeLessThan(strict.excluded)
    expect(loose.overlap.startEntity).toBeGreaterThan(0)
    expect(loose.overlap.path).toBe(0)
  })

  it('reports a shortfall instead of inventing questions', () => {
    const { stats } = splitBench(items, { ...base, bench: { simple: 0, parallel: 0, combo: 100000 } }, 1)
    expect(stats.benchByType.combo).toBe(items.filter((x) => x.type === 'combo').length)
    expect(stats.shortfall.combo).toBe(100000 - stats.benchByType.combo)
  })

  it('is a function of the seed', () => {
    const a = splitBench(items, base, 1)
    const b = splitBench(items, base, 1)
    const c = splitBench(items, base, 2)
    expect([...a.labels]).toEqual([...b.labels])
    expect([...a.labels]).not.toEqual([...c.labels])
  })

  it('factDisjoint: the same bench, every training item sharing an edge with it excluded, the cost counted (absent when off)', () => {
    const off = splitBench(items, base, 1)
    const on = splitBench(items, { ...base, factDisjoint: true }, 1)
    const benchIds = (r: typeof on) => [...r.labels].filter(([, l]) => l === 'bench').map(([id]) => id)
    expect(benchIds(on)).toEqual(benchIds(off))
    expect(on.stats.benchByType).toEqual({ simple: 48, parallel: 22, combo: 10 })
    const benchEdges = new Set(items.filter((x) => on.labels.get(x.id) === 'bench').flatMap((x) => x.path))
    const train = items.filter((x) => on.labels.get(x.id) === 'train')
    expect(train.length).toBeGreaterThan(0)
    expect(train.some((x) => x.path.some((e) => benchEdges.has(e)))).toBe(false)
    expect(on.stats.factDisjoint).toEqual({ excluded: off.stats.train - on.stats.train, trainBefore: off.stats.train, benchFacts: benchEdges.size })
    expect(on.stats.factDisjoint!.excluded).toBeGreaterThan(0)
    expect(off.stats).not.toHaveProperty('factDisjoint')
  })
})

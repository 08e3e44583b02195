// world/split-subpath: the path rule of the bench split in both directions on hand-made items — a training item whose
// path is a sub-path (one chain) of a bench item is dropped, and so is a training item one of whose chains is a bench
// path. Question and start-entity rules are switched off so that only the path rule can exclude anything.
import { DEFAULT_CONFIG } from '../config'
import { splitBench, type SplitItem } from './split'

const ONLY_PATH = { question: false, path: true, startEntity: false }
const item = (id: string, type: SplitItem['type'], subPaths: string[][], starts: string[]): SplitItem => ({
  id, type, hops: subPaths.flat().length, question: `question ${id}?`, path: subPaths.flat(), subPaths, starts,
})
const cfg = (simple: number, parallel: number, disjoint = ONLY_PATH) => ({
  ...DEFAULT_CONFIG.split, bench: { simple, parallel, combo: 0 }, minHops: 1, maxHops: 12, disjoint,
})

describe('split: sub-path exclusion', () => {
  it('a bench Parallel question excludes training items that walk one of its chains', () => {
    const items = [
      item('par', 'parallel', [['e1', 'e2'], ['e3']], ['A', 'B']), // the only Parallel: it becomes the bench
      item('chainA', 'simple', [['e1', 'e2']], ['A2']), // equals the bench's first chain
      item('chainB', 'simple', [['e3']], ['B2']), // equals the bench's second chain
      item('prefix', 'simple', [['e1']], ['A3']), // a prefix of a chain is not the chain: kept
      item('other', 'simple', [['e9', 'e8']], ['Z']),
    ]
    const { labels, stats } = splitBench(items, cfg(0, 1), 1)
    expect(Object.fromEntries(labels)).toEqual({ par: 'bench', chainA: 'excluded', chainB: 'excluded', prefix: 'train', other: 'train' })
    expect(stats.excludedBy).toEqual({ question: 0, path: 2, startEntity: 0 })
    expect(stats.overlap.subPath).toBe(0)
    // With the path rule off the same items are kept, and the overlap is reported.
    const loose = splitBench(items, cfg(0, 1, { question: false, path: false, startEntity: false }), 1)
    expect(loose.labels.get('chainA')).toBe('train')
    expect(loose.labels.get('chainB')).toBe('train')
    expect(loose.stats.overlap.subPath).toBe(2)
  })

  it('a bench Simple path excludes training Parallel questions that contain it as one chain', () => {
    const items = [
      item('simple', 'simple', [['e3']], ['C']), // the only Simple: it becomes the bench
      item('parHas', 'parallel', [['e4'], ['e3']], ['D', 'C2']), // its second chain is the bench path
      item('parNot', 'parallel', [['e4'], ['e5']], ['D2', 'E']),
    ]
    const { labels, stats } = splitBench(items, cfg(1, 0), 1)
    expect(Object.fromEntries(labels)).toEqual({ simple: 'bench', parHas: 'excluded', parNot: 'train' })
    expect(stats.excludedBy.path).toBe(1)
    expect(stats.overlap.subPath).toBe(0)
  })
})

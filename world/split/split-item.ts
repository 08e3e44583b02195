// world/split/split-item: what the split needs to know of a stored QA — its question, full path, the independent
// sub-paths and the start entities named in it — read from the QA's meta.
import type { Qa } from '../types'
import type { SplitItem } from './split'
import type { ComboMeta, ParallelMeta, SimpleMeta } from '../qa/spec'
import { isBlurred } from '../qa/blur-pool'

export function splitItemOf(qa: Qa): SplitItem {
  let subPaths: string[][]
  let starts: string[]
  if (qa.type === 'simple') {
    const m = qa.meta as unknown as SimpleMeta
    subPaths = [m.chain.edges]
    starts = [m.chain.start]
  } else if (qa.type === 'parallel') {
    const m = qa.meta as unknown as ParallelMeta
    subPaths = [m.a.edges, m.b.edges]
    starts = [m.a.start, m.b.start]
  } else {
    const m = qa.meta as unknown as ComboMeta
    if (m.kind === 'compare-chain') {
      subPaths = [m.part1.a.edges, m.part1.b.edges, m.part2.edges]
      starts = [m.part1.a.start, m.part1.b.start]
    } else {
      subPaths = [m.part1.chain.edges, m.part2.edges]
      starts = [m.part1.chain.start]
    }
  }
  const item: SplitItem = { id: qa.id, type: qa.type, hops: qa.hops, question: qa.question, path: qa.path, subPaths, starts }
  return isBlurred(qa) ? { ...item, blurred: true } : item
}

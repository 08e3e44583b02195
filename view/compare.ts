// view/compare: runs A and B over their shared questions — bench compare's own paired table (compareRuns over the
// indexed summaries, B against A as baseline) and the per-question wins, losses and ties on F1, filterable by type
// and hops. Knows nothing of HTTP or the page.
import { compareRuns, type TrajectoryRecord } from '../bench'
import type { Indexed } from './records'
import type { RunFolder } from './runs'
import type { PairedComparison, PairedQuestion } from './types'

export interface PairFilters {
  type?: string
  hops?: number
  result?: 'win' | 'loss' | 'tie' | 'changed'
}

/** What bench compare reads of a record, rebuilt from an index entry (no full record is read). */
function asRecord(t: Indexed): TrajectoryRecord {
  return {
    id: t.id,
    type: t.type,
    hops: t.hops,
    question: t.question,
    status: t.status,
    f1: t.f1,
    em: t.em,
    prediction: t.prediction,
    ...(t.judge !== undefined ? { judge: { correct: t.judge === 1 } } : {}),
    ...(t.judgeError ? { judgeError: 'judge failed' } : {}),
  } as unknown as TrajectoryRecord
}

const cache = new Map<string, { key: string; table: PairedComparison['table']; paired: number; unpaired: number; ids: string[] }>()

export async function pairedComparison(a: RunFolder, b: RunFolder, f: PairFilters, offset: number, limit: number, opts = { resamples: 2000, seed: 0 }): Promise<PairedComparison> {
  const [sa, sb] = await Promise.all([a.summaries(), b.summaries()])
  const key = `${a.info().indexing.bytes}:${b.info().indexing.bytes}:${sa.size}:${sb.size}`
  let c = cache.get(`${a.name}\u0000${b.name}`)
  if (!c || c.key !== key) {
    const cmp = compareRuns(
      [
        { dir: a.dir, name: a.name, records: new Map([...sa].map(([id, t]) => [id, asRecord(t)])) },
        { dir: b.dir, name: b.name, records: new Map([...sb].map(([id, t]) => [id, asRecord(t)])) },
      ],
      opts,
    )
    // The questions bench compare paired: scored in both (not lost to the endpoint).
    const ids = [...sa.keys()].filter((id) => sb.has(id) && sa.get(id)!.status !== 'infra_error' && sb.get(id)!.status !== 'infra_error').sort()
    c = {
      key,
      paired: cmp.paired[b.name],
      unpaired: cmp.unpaired[b.name],
      ids,
      table: cmp.rows.map((r) => ({ group: r.group, metric: r.metric, n: r.diff.n, aMean: r.baselineMean, bMean: r.runMean, diff: r.diff.mean, lo: r.diff.lo, hi: r.diff.hi, wins: r.diff.wins, losses: r.diff.losses, ties: r.diff.ties, pPermutation: r.diff.pPermutation, pSign: r.diff.pSign })),
    }
    cache.set(`${a.name}\u0000${b.name}`, c)
  }
  const counts = { win: 0, loss: 0, tie: 0 }
  const items: PairedQuestion[] = []
  let total = 0
  for (const id of c.ids) {
    const x = sa.get(id)!
    const y = sb.get(id)!
    if ((f.type && x.type !== f.type) || (f.hops !== undefined && x.hops !== f.hops)) continue
    const result = y.f1 > x.f1 ? 'win' : y.f1 < x.f1 ? 'loss' : 'tie'
    counts[result]++
    if (f.result && (f.result === 'changed' ? result === 'tie' : f.result !== result)) continue
    if (total >= offset && items.length < limit)
      items.push({
        id,
        type: x.type,
        hops: x.hops,
        question: x.question,
        a: { f1: x.f1, em: x.em, prediction: x.prediction, status: x.status },
        b: { f1: y.f1, em: y.em, prediction: y.prediction, status: y.status },
        result,
      })
    total++
  }
  return { a: a.name, b: b.name, table: c.table, paired: c.paired, unpaired: c.unpaired, counts, questions: { items, total, offset, limit } }
}

// world/split/split-stage: build stage 'split' — holds out SearchGymBench, drops conflicting training items and stores
// overlap statistics, in one transaction (a killed run leaves nothing and reruns from its seed). When an oracle
// check ran before it (table qa_check), the split draws only from questions that passed: those it failed stay
// 'dropped', so the bench is exactly its quota after the last stage.
import type { Db } from '../../infra/store'
import { tx } from '../../infra/store'
import type { Stage } from '../stage'
import { initQaTables, initSplitTables, readQaForSplit, readSplitStats, setSplitLabels, writeSplitStats, type StoredSplit } from '../qa/store'
import { splitBench } from './split'
import { splitItemOf } from './split-item'

export const splitStage: Stage = {
  name: 'split',
  init(db: Db) {
    initQaTables(db)
    initSplitTables(db)
  },
  async run(ctx) {
    const failed = checkFailures(ctx.db)
    const qas = readQaForSplit(ctx.db).filter((q) => !failed.has(q.id))
    const { labels, stats } = splitBench(qas.map(splitItemOf), ctx.config.split, ctx.config.seed)
    const all: Map<string, StoredSplit> = new Map(labels)
    for (const id of failed) all.set(id, 'dropped')
    const generation = readSplitStats(ctx.db)?.generation
    tx(ctx.db, () => {
      setSplitLabels(ctx.db, all)
      writeSplitStats(ctx.db, { ...stats, ...(failed.size > 0 ? { checkDropped: failed.size } : {}), ...(generation !== undefined ? { generation } : {}) })
    })
    ctx.log(formatSplitLine(stats))
  },
  hashRows(db, emit) {
    for (const r of db.prepare('SELECT id, split FROM qa ORDER BY seq').raw().iterate()) emit(r)
    for (const r of db.prepare("SELECT key, value_json FROM split_stats WHERE key != 'generation' ORDER BY key").raw().iterate()) emit(r)
  },
}

/** Ids of the questions an earlier oracle check could not solve (none when no check ran before the split). */
export function checkFailures(db: Db): Set<string> {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'qa_check'").get() === undefined) return new Set()
  return new Set((db.prepare('SELECT id FROM qa_check WHERE ok = 0').pluck().all() as string[]))
}

export function formatSplitLine(s: ReturnType<typeof splitBench>['stats']): string {
  const bt = s.benchByType
  return (
    `split: bench ${s.bench} (${bt.simple} simple, ${bt.parallel} parallel, ${bt.combo} combo; hops ${Object.keys(s.benchByHops).join(',')}), ` +
    `train ${s.train}, excluded ${s.excluded} (question ${s.excludedBy.question}, path ${s.excludedBy.path}, start entity ${s.excludedBy.startEntity}); ` +
    `overlap bench/train: question ${s.overlap.question}, path ${s.overlap.path}, sub-path ${s.overlap.subPath}, start entity ${s.overlap.startEntity}` +
    (s.factDisjoint
      ? `; fact-disjoint: ${s.factDisjoint.excluded} of ${s.factDisjoint.trainBefore} training questions share an edge with the bench (${s.factDisjoint.benchFacts} edges) and are excluded`
      : '')
  )
}

// world/split/split-stage: build stage 'split' — holds out SearchGymBench, drops conflicting training items and stores
// overlap statistics, in one transaction (a killed run leaves nothing and reruns from its seed).
import type { Db } from '../../infra/store'
import { tx } from '../../infra/store'
import type { Stage } from '../stage'
import { initQaTables, initSplitTables, readQaForSplit, readSplitStats, setSplitLabels, writeSplitStats } from '../qa/store'
import { splitBench } from './split'
import { splitItemOf } from './split-item'

export const splitStage: Stage = {
  name: 'split',
  init(db: Db) {
    initQaTables(db)
    initSplitTables(db)
  },
  async run(ctx) {
    const qas = readQaForSplit(ctx.db)
    const { labels, stats } = splitBench(qas.map(splitItemOf), ctx.config.split, ctx.config.seed)
    const generation = readSplitStats(ctx.db)?.generation
    tx(ctx.db, () => {
      setSplitLabels(ctx.db, labels)
      writeSplitStats(ctx.db, { ...stats, ...(generation !== undefined ? { generation } : {}) })
    })
    ctx.log(formatSplitLine(stats))
  },
  hashRows(db, emit) {
    for (const r of db.prepare('SELECT id, split FROM qa ORDER BY seq').raw().iterate()) emit(r)
    for (const r of db.prepare("SELECT key, value_json FROM split_stats WHERE key != 'generation' ORDER BY key").raw().iterate()) emit(r)
  },
}

export function formatSplitLine(s: ReturnType<typeof splitBench>['stats']): string {
  const bt = s.benchByType
  return (
    `split: bench ${s.bench} (${bt.simple} simple, ${bt.parallel} parallel, ${bt.combo} combo; hops ${Object.keys(s.benchByHops).join(',')}), ` +
    `train ${s.train}, excluded ${s.excluded} (question ${s.excludedBy.question}, path ${s.excludedBy.path}, start entity ${s.excludedBy.startEntity}); ` +
    `overlap bench/train: question ${s.overlap.question}, path ${s.overlap.path}, sub-path ${s.overlap.subPath}, start entity ${s.overlap.startEntity}`
  )
}

// world/qa/stages: build stages 'qa' (sample the QA pool on G*) and 'split' (hold out SearchGymBench, drop
// conflicting training items, store overlap statistics). Each writes in one transaction: a killed run leaves
// nothing and reruns from its seed, so both are resumable under the pipeline's stage status.
import { canonicalJson } from '../../infra/hash'
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import type { Stage } from '../stage'
import { splitBench } from '../split/split'
import { generateQa } from './generate'
import { loadQaView } from './load'
import { splitItemOf } from '../split/split-item'
import { clearQa, initQaTables, initSplitTables, insertQa, readQaForSplit, readSplitStats, setSplitLabels, writeSplitStats } from './store'

export const qaStage: Stage = {
  name: 'qa',
  init(db: Db) {
    initQaTables(db)
  },
  async run(ctx) {
    const view = loadQaView(ctx.db)
    const target = Math.ceil(ctx.config.qa.target * (1 + ctx.config.qa.headroom))
    const bar = progress('qa: sample', target, { quiet: ctx.quiet })
    const { qas, stats } = generateQa(view, ctx.config.qa, ctx.config.seed, (n) => bar.tick(n))
    bar.done()
    tx(ctx.db, () => {
      clearQa(ctx.db)
      insertQa(ctx.db, qas)
      initSplitTables(ctx.db)
      ctx.db.exec('DELETE FROM split_stats')
      ctx.db.prepare('INSERT OR REPLACE INTO split_stats (key, value_json) VALUES (?, ?)').run('generation', canonicalJson(stats))
    })
    ctx.log(`qa: ${qas.length} questions (${Object.entries(stats.produced).map(([t, n]) => `${n} ${t}`).join(', ')}) on ${view.kept.size}/${view.edges.length} verified edges`)
  },
  hashRows(db, emit) {
    const stmt = db.prepare('SELECT id, type, hops, question, answer, aliases_json, path_json, docs_json, evidence_json, meta_json FROM qa ORDER BY seq')
    for (const r of stmt.raw().iterate()) emit(r)
  },
}

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

// world/qa/qa-stage: build stage 'qa' — samples the QA pool on G*. Writes in one transaction: a killed run leaves
// nothing and reruns from its seed, so it is resumable under the build's stage status. (The split is world/split.)
import { canonicalJson } from '../../infra/hash'
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import type { Stage } from '../stage'
import { generateQa } from './generate'
import { loadQaView } from './load'
import { clearQa, initQaTables, initSplitTables, insertQa } from './store'

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

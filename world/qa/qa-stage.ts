// world/qa/qa-stage: build stage 'qa' — samples the QA pool on G*. Writes in one transaction: a killed run leaves
// nothing and reruns from its seed, so it is resumable under the build's stage status. (The split is world/split.)
// When the next stage takes early input (StageContext.ahead), the questions go to it as they are drawn, and the event
// loop gets a turn every batch (its threads' replies are read while the pool is drawn).
import { canonicalJson } from '../../infra/hash'
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import type { Stage } from '../stage'
import { qaDraws } from './generate'
import { docText, loadQaView } from './load'
import { clearQa, initQaTables, initSplitTables, insertQa } from './store'
import type { Qa } from '../types'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BLUR_REPORT_FILE, blurPool, type BlurStats } from './blur-pool'
import { releaseStageSearchIndex, stageSearchIndex } from '../indexing/search-handle'

/** Questions handed to StageContext.ahead at a time. */
const AHEAD_BATCH = 64

export const qaStage: Stage = {
  name: 'qa',
  init(db: Db) {
    initQaTables(db)
  },
  async run(ctx) {
    const view = loadQaView(ctx.db)
    const target = Math.ceil(ctx.config.qa.target * (1 + ctx.config.qa.headroom))
    const bar = progress('qa: sample', target, { quiet: ctx.quiet })
    // Questions go to the next stage's warm work (the oracle check's threads) in batches as they are drawn.
    let batch: Qa[] = []
    const blur = ctx.config.qa.blur
    // With blur on, questions change after the draw (their starts described): they go ahead only once final.
    const ahead = blur ? undefined : ctx.ahead
    const kept = ahead
      ? (qa: Qa) => {
          batch.push(qa)
          if (batch.length >= AHEAD_BATCH) {
            ahead(batch)
            batch = []
          }
        }
      : undefined
    const draws = qaDraws(view, ctx.config.qa, ctx.config.seed, (n) => bar.tick(n), kept)
    let step = draws.next()
    // With a taker of early questions, the event loop gets a turn every batch: its threads' replies are read (and they
    // are sent their next questions) while the pool is still being drawn.
    for (let n = 1; !step.done; n++) {
      if (ahead && n % AHEAD_BATCH === 0) await new Promise<void>((resolve) => setImmediate(resolve))
      step = draws.next()
    }
    const { stats } = step.value
    let qas = step.value.qas
    if (ahead && batch.length > 0) ahead(batch)
    bar.done()
    let blurStats: BlurStats | undefined
    if (blur) {
      const index = await stageSearchIndex(ctx)
      try {
        const r = await blurPool(view, qas, blur, ctx.config.seed, index, ctx.config.verification.topK, ctx.config.qa.maxHops, (u) => docText(ctx.db, u))
        qas = r.qas
        blurStats = r.stats
        // The blur's counts beside the world (not hashed: they follow from the questions, which are).
        writeFileSync(join(ctx.dir, BLUR_REPORT_FILE), JSON.stringify(r.stats, null, 2) + '\n')
        ctx.log(
          `qa: blurred ${r.stats.blurred} of ${r.stats.drawn} drawn starts (no unique cues ${r.stats.noDescription}, no place ${r.stats.noPlace}, unresolved by search ${r.stats.unresolved}; ${r.stats.hits}/${r.stats.queries} cue queries hit top-${ctx.config.verification.topK})`,
        )
      } finally {
        await releaseStageSearchIndex(ctx)
      }
      if (ctx.ahead) for (let i = 0; i < qas.length; i += AHEAD_BATCH) ctx.ahead(qas.slice(i, i + AHEAD_BATCH))
    }
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

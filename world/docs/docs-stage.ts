// world/docs/docs-stage: build stage 'docs' — writes one document per entity (docs, doc_facts) from the stored
// graph, in one transaction (a killed run leaves nothing; a rerun rewrites every document).
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import { generateDocs } from './docs'
import type { Stage } from '../stage'
import { clearDocs, initDocTables, insertDocs, readEdges, readEntities } from '../store/store'
import { passPoint } from '../../infra/run-points'

export const docsStage: Stage = {
  name: 'docs',
  init(db: Db) {
    initDocTables(db)
  },
  async run(ctx) {
    const entities = readEntities(ctx.db)
    const edges = readEdges(ctx.db)
    const gen = progress('docs: write', entities.length, { quiet: ctx.quiet })
    const docs = generateDocs(entities, edges, ctx.config, (done) => gen.update(done))
    gen.done()
    const bar = progress('docs: store', docs.length, { quiet: ctx.quiet })
    const half = Math.floor(docs.length / 2)
    tx(ctx.db, () => {
      clearDocs(ctx.db)
      insertDocs(ctx.db, docs.slice(0, half), () => bar.tick())
      passPoint('docs')
      insertDocs(ctx.db, docs.slice(half), () => bar.tick())
    })
    bar.done()
    ctx.log(`docs: ${docs.length} documents`)
  },
  hashRows(db, emit) {
    for (const r of db.prepare('SELECT url, entity_id, title, text FROM docs ORDER BY url').raw().iterate()) emit(r)
    for (const r of db.prepare('SELECT url, seq, kind, ref, sentence FROM doc_facts ORDER BY url, seq').raw().iterate()) emit(r)
  },
}

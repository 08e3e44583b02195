// world/graph/graph-stage: build stage 'graph' — generates the knowledge graph and writes entities, attributes
// and edges in one transaction (a killed run leaves nothing; a rerun starts over from the seed).
import { progress } from '../../infra/progress'
import { tx, type Db } from '../../infra/store'
import { generateWorld } from './graph'
import { RELATIONS } from '../schema'
import type { Stage } from '../stage'
import { clearGraph, initGraphTables, insertEdges, insertEntities } from '../store/store'
import { passPoint } from '../../infra/run-points'

export const graphStage: Stage = {
  name: 'graph',
  init(db: Db) {
    initGraphTables(db)
  },
  async run(ctx) {
    const gen = progress('graph: relations', RELATIONS.length, { quiet: ctx.quiet })
    const world = await generateWorld(ctx.config, (step, done) => (step === 'relations' ? gen.update(done) : undefined))
    gen.done()
    ctx.log(`graph: ${world.entities.length} entities, ${world.edges.length} edges`)
    const bar = progress('graph: write', world.entities.length + world.edges.length, { quiet: ctx.quiet })
    tx(ctx.db, () => {
      clearGraph(ctx.db)
      insertEntities(ctx.db, world.entities, () => bar.tick())
      passPoint('graph')
      insertEdges(ctx.db, world.edges, () => bar.tick())
    })
    bar.done()
  },
  hashRows(db, emit) {
    for (const r of db.prepare('SELECT id, type, name, url FROM entities ORDER BY id').raw().iterate()) emit(r)
    for (const r of db.prepare('SELECT entity_id, name, value FROM attributes ORDER BY entity_id, name').raw().iterate()) emit(r)
    for (const r of db.prepare('SELECT id, relation, source, target FROM edges ORDER BY id').raw().iterate()) emit(r)
  },
}

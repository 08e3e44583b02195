// world/verify/verify-stage: build stage 'verify' — retrievability verification of every edge with the world's
// own engine and top-K (world/verify), then the report file. Resumable: finished chunks are kept. Big worlds on
// the embedded/SQLite engines search on every core (a SearchPool of workers, each with its own copy of the index).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ENTITY_TYPES, RELATIONS } from '../schema'
import type { Stage, StageContext } from '../stage'
import { initVerifyTables, verificationHashRows, verifyEdges } from './verify'
import { initLookupTables, lookupHashRows, verifyLookups } from './verify-lookups'
import { formatVerifyReport, verificationReport } from './verify-report'
import { releaseStageSearchIndex, stageSearchIndex } from '../indexing/search-handle'
import { passPoint } from '../../infra/run-points'
import { workerCount } from '../../infra/workers'
import { POOLABLE_ENGINES, SearchPool } from '../indexing/search-pool'
import type { SearchIndex } from '../search/types'
import type { EngineName } from '../search/engine-names'

/** Below this many pending edges verification searches in the build's own thread (a worker's start costs more). */
const MIN_POOLED_EDGES = 5000

/** The index verification searches with: a worker pool for big worlds on a poolable engine, else the stage's own. */
async function verifySearch(ctx: StageContext): Promise<{ index: SearchIndex; close: () => Promise<void> }> {
  const engine = ctx.config.search.engine as EngineName
  const pendingEdges = (ctx.db.prepare('SELECT COUNT(*) AS n FROM edges e LEFT JOIN edge_verification v ON v.edge_id = e.id WHERE v.edge_id IS NULL').get() as { n: number }).n
  const n = workerCount()
  if (n > 1 && POOLABLE_ENGINES.includes(engine) && pendingEdges >= MIN_POOLED_EDGES) {
    const pool = await SearchPool.start(ctx.dir, engine, n)
    ctx.log(`verify: ${pendingEdges} edges over ${pool.size} search workers`)
    return { index: pool, close: () => pool.close() }
  }
  return { index: await stageSearchIndex(ctx), close: async () => undefined }
}

/** File name of the verification report in the world folder. */
export const VERIFY_REPORT_FILE = 'verification-report.md'

export function writeVerifyReport(ctx: Pick<StageContext, 'db' | 'dir'>): string {
  const path = join(ctx.dir, VERIFY_REPORT_FILE)
  writeFileSync(path, formatVerifyReport(verificationReport(ctx.db, 200)) + '\n')
  return path
}

export const verifyStage: Stage = {
  name: 'verify',
  init(db) {
    initVerifyTables(db)
    initLookupTables(db)
  },
  async run(ctx) {
    const { index, close } = await verifySearch(ctx)
    try {
      const v = ctx.config.verification
      const run = await verifyEdges(ctx.db, index, {
        schema: { relations: RELATIONS, types: ENTITY_TYPES },
        seed: ctx.config.seed,
        queriesPerEdge: v.queriesPerEdge,
        minHits: v.minHits,
        topK: v.topK,
        quiet: ctx.quiet,
        log: ctx.log,
        // Chunks of 250 edges: a killed build keeps every finished chunk (a tiny world has two).
        chunk: 250,
        // A run point inside the last chunk's transaction, the earlier chunks committed (a kill here must resume).
        onChunkWritten: ({ edgesLeft }) => {
          if (edgesLeft === 0) passPoint('verify')
        },
      })
      const lookups = await verifyLookups(ctx.db, index, ENTITY_TYPES, v.topK)
      ctx.log(`verify: ${lookups.kept} of ${lookups.candidates} attribute-value lookups found by search (top-${v.topK})`)
      const kept = (ctx.db.prepare('SELECT COUNT(*) AS n FROM edge_verification WHERE kept = 1').get() as { n: number }).n
      const path = writeVerifyReport(ctx)
      ctx.log(`verify: ${kept} of ${run.total} edges kept (engine ${index.engine}, top-${v.topK}, >= ${v.minHits} of ${v.queriesPerEdge}); report ${path}`)
    } finally {
      await close()
      await releaseStageSearchIndex(ctx)
    }
  },
  hashRows(db, emit) {
    verificationHashRows(db, emit)
    lookupHashRows(db, emit)
  },
}

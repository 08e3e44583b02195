// agent/world-check-stage: the last build stage of a world — the oracle policy runs through the real env over every
// served question (train and bench); a question it cannot solve is relabelled 'dropped' (reported, never served), so a
// finished world's oracle score is exactly 1. Lives in agent/ because it needs the oracle; CHECKED_WORLD_STAGES is the
// world's own stage list with this stage last — the list the CLI builds with.
import { tx, type Db } from '../infra/store'
import { openSearchIndex, readQa, WORLD_STAGES, worldReader, type Stage, type StageContext } from '../world'
import { gymWorldFromIndex } from '../gym'
import { checkWithOracle } from './policy/oracle-check'
import { worldOracleKnowledge } from './policy/oracle-knowledge'

function init(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS qa_check (id TEXT PRIMARY KEY, ok INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;`)
}

async function run(ctx: StageContext): Promise<void> {
  const qas = readQa(ctx.db, ['train', 'bench'])
  const index = await openSearchIndex(ctx.dir)
  const world = gymWorldFromIndex('check', index, qas)
  let report
  try {
    report = await checkWithOracle(world, worldOracleKnowledge(worldReader(ctx.db)), qas, { quiet: ctx.quiet })
  } finally {
    await world.close()
  }
  const failed = new Map(report.failures.map((f) => [f.qaId, f.failure ?? `F1 ${f.f1}`]))
  tx(ctx.db, () => {
    ctx.db.exec('DELETE FROM qa_check')
    const ins = ctx.db.prepare('INSERT INTO qa_check (id, ok, reason) VALUES (?, ?, ?)')
    const drop = ctx.db.prepare("UPDATE qa SET split = 'dropped' WHERE id = ?")
    for (const q of qas) {
      const why = failed.get(q.id)
      ins.run(q.id, why === undefined ? 1 : 0, why ?? '')
      if (why !== undefined) drop.run(q.id)
    }
  })
  ctx.log(
    `check: the oracle solved ${report.solved}/${report.total} questions through the env (mean F1 ${report.meanF1.toFixed(4)}); ` +
      `dropped ${report.failures.length}` +
      (report.failures.length ? ` (${report.failures.filter((f) => f.split === 'bench').length} from the bench): ` + report.failures.slice(0, 5).map((f) => `${f.qaId} ${f.failure ?? ''}`).join('; ') : ''),
  )
}

export const oracleCheckStage: Stage = {
  name: 'check',
  init,
  run,
  hashRows(db, emit) {
    for (const r of db.prepare('SELECT id, ok, reason FROM qa_check ORDER BY id').raw().iterate()) emit(r)
  },
}

/** The world's stages with the oracle check last: what `searchgym world build` runs (and what a library caller passes
 * to buildWorld to get the same content hash as the CLI). */
export const CHECKED_WORLD_STAGES: readonly Stage[] = Object.freeze([...WORLD_STAGES, oracleCheckStage])

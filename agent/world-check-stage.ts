// agent/world-check-stage: the oracle-check build stage of a world — the oracle policy runs through the real env over
// every question of the pool (sharded over worker threads); a question it cannot solve is relabelled 'dropped'
// (reported by cause, never served). It runs before the split, which then draws the bench only from questions that
// passed: a finished world's oracle score is exactly 1 and its bench exactly the configured quota. Its worker threads
// start warm, as the qa stage begins (Stage.warm): they open the index and knowledge while the pool is drawn, and check
// its first questions as they are drawn. Lives in agent/
// because it needs the oracle; CHECKED_WORLD_STAGES is the world's own stage list with this stage before the split —
// the list the CLI builds with.
import { tx, type Db } from '../infra/store'
import { readQa, readQaIds, WORLD_STAGES, type Stage, type StageContext, type StoredSplit } from '../world'
import { checkWorldFolder, WarmCheck } from './oracle/oracle-check'

function init(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS qa_check (id TEXT PRIMARY KEY, ok INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;`)
}

/** The whole pool — every stored split (the record's type makes it name each one; the row update below relies on
 *  it): before the split every question is still unlabelled ('train'); after an earlier check its failures are
 *  'dropped' and are checked again (a repaired world can win them back). */
const POOL = Object.keys({ train: 1, bench: 1, excluded: 1, dropped: 1 } satisfies Record<StoredSplit, 1>) as StoredSplit[]

/** Thread settings of the check stage (undefined: checkWorkers' default — SEARCHGYM_THREADS, else the cores; the
 *  build's own thread checks too). */
interface CheckThreads {
  workers?: number
  thisThread?: boolean
}

async function warm(ctx: StageContext, { workers }: CheckThreads): Promise<WarmCheck | undefined> {
  // Started as the qa stage begins: the workers open the index and the knowledge while it draws (the pool's size is
  // known from the config: the qa target with its headroom).
  return WarmCheck.start(ctx.dir, { questions: Math.ceil(ctx.config.qa.target * (1 + ctx.config.qa.headroom)), workers })
}

async function run(ctx: StageContext, { workers, thisThread }: CheckThreads): Promise<void> {
  const warmed = ctx.warm instanceof WarmCheck ? ctx.warm : undefined
  // The pool the warm threads were handed as the qa stage drew it, when it is the stored pool (same ids in the same
  // order) — not read again; otherwise read, and the threads are released (a cold check).
  const drawn = warmed?.pool(readQaIds(ctx.db, POOL))
  const qas = drawn ?? readQa(ctx.db, POOL)
  const report = await checkWorldFolder(ctx.dir, qas, { quiet: ctx.quiet, warm: warmed, workers, thisThread })
  const failed = new Map(report.failures.map((f) => [f.qaId, `${f.cause}: ${f.failure ?? `F1 ${f.f1}`}`]))
  tx(ctx.db, () => {
    ctx.db.exec('DELETE FROM qa_check')
    const ins = ctx.db.prepare('INSERT INTO qa_check (id, ok, reason) VALUES (?, ?, ?)')
    const drop = ctx.db.prepare("UPDATE qa SET split = 'dropped' WHERE id = ?")
    // The pool is every question (POOL names every stored split): an earlier check's drops are undone at once, then
    // this check's failures dropped.
    ctx.db.exec("UPDATE qa SET split = 'train' WHERE split = 'dropped'")
    for (const q of qas) {
      const why = failed.get(q.id)
      ins.run(q.id, why === undefined ? 1 : 0, why ?? '')
      if (why !== undefined) drop.run(q.id)
    }
  })
  const causes = Object.entries(report.byCause).map(([c, n]) => `${c} ${n}`).join(', ')
  ctx.log(
    `check: the oracle solved ${report.solved}/${report.total} questions through the env (mean F1 ${report.meanF1.toFixed(4)}, ${report.workers} worker${report.workers === 1 ? '' : 's'}` +
      `${report.early ? `, ${report.early} sent to them as the qa stage drew them` : ''}); ` +
      `dropped ${report.failures.length}` +
      (report.failures.length ? ` (${causes}): ` + report.failures.slice(0, 5).map((f) => `${f.qaId} ${f.failure ?? ''}`).join('; ') : ''),
  )
}

/** The check stage with fixed thread settings (tests: the warm path on a small world); same rows for any. */
export function oracleCheckStageWith(o: CheckThreads = {}): Stage {
  return {
    name: 'check',
    init,
    run: (ctx) => run(ctx, o),
    warm: (ctx) => warm(ctx, o),
    hashRows(db, emit) {
      for (const r of db.prepare('SELECT id, ok, reason FROM qa_check ORDER BY id').raw().iterate()) emit(r)
    },
  }
}

export const oracleCheckStage: Stage = oracleCheckStageWith()

/** The world's stages with the oracle check just before the split: what `searchgym world build` runs (and what a
 * library caller passes to buildWorld to get the same content hash as the CLI). */
export const CHECKED_WORLD_STAGES: readonly Stage[] = Object.freeze(withCheckBeforeSplit(WORLD_STAGES))

function withCheckBeforeSplit(stages: readonly Stage[]): Stage[] {
  const i = stages.findIndex((s) => s.name === 'split')
  return i < 0 ? [...stages, oracleCheckStage] : [...stages.slice(0, i), oracleCheckStage, ...stages.slice(i)]
}

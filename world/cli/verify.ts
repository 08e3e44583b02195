// world/cli/verify: `searchgym world verify DIR` — finishes (or with --fresh redoes) the retrievability
// verification of a world with its own engine, updates the content hash, prints and writes the report.
import { lockDir } from '../../infra/lock'
import { handler, type Command } from '../../infra/cli-util'
import { setStageStatus } from '../store/store'
import { openWorld } from '../store/open'
import { contentHash } from '../build/build'
import { indexStage } from '../indexing/index-stage'
import { VERIFY_REPORT_FILE, verifyStage, writeVerifyReport } from '../verify/verify-stage'
import { clearVerification, initVerifyTables, verificationComplete } from '../verify/verify'
import { formatVerifyReport, verificationReport } from '../verify/verify-report'
import { setManifest } from '../store/store'
import { tx } from '../../infra/store'
import type { Stage, StageContext } from '../stage'
import { SearchHandle } from '../indexing/search-handle'
import { deepCheck } from '../store/integrity'
import { WorldError } from '../../infra/errors'

interface Args { dir: string; fresh: boolean; meiliUrl?: string; quiet?: boolean; json: boolean; failed: number; deep: boolean }

/** `world verify` over the stage list the world was built with (its content hash covers every stage it ran). */
export function verifyCommand(stages: readonly Stage[]): Command {
  return {
    command: 'verify <dir>',
    describe: 'verify every edge by search (15 queries, d_v in top-K for >= 5), report pass rates and failures',
    builder: (y) =>
      y
        .positional('dir', { type: 'string', demandOption: true, describe: 'world folder (written by world build --out)' })
        .option('fresh', { type: 'boolean', default: false, describe: 'forget stored results and verify every edge again' })
        .option('meili-url', { type: 'string', describe: 'Meilisearch URL for a meilisearch world (default: the config, else a local server)' })
        .option('failed', { type: 'number', default: 20, describe: 'failed edges to print (all are in the report file, up to 200)' })
        .option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' })
        .option('deep', {
          type: 'boolean',
          default: false,
          describe: 'check the file instead: SQLite integrity_check and the content hash recomputed from the rows; prints each problem, exit 1 if any (read-only)',
        })
        .option('quiet', { type: 'boolean', describe: 'no progress output (also SEARCHGYM_QUIET=1)' })
        .example('searchgym world verify worlds/paper', 're-check every edge by search (stored results reused)')
        .example('searchgym world verify worlds/paper --fresh --json', 'verify everything again, report as JSON'),
    handler: handler(async (raw: object) => {
      const a = raw as Args
      if (a.deep) return deepVerify(a.dir, stages, a.json)
      const lock = lockDir(a.dir, 'world verify')
      const w = openWorld(a.dir, { readonly: false, allowIncomplete: true })
      const search = new SearchHandle()
      try {
        const config = a.meiliUrl ? { ...w.config, search: { ...w.config.search, meiliUrl: a.meiliUrl } } : w.config
        const quiet = a.quiet ?? process.env.SEARCHGYM_QUIET === '1'
        const log = (m: string) => (quiet ? undefined : process.stderr.write(`${m}\n`))
        const ctx: StageContext = { db: w.db, config, dir: a.dir, search, quiet, log }
        initVerifyTables(w.db)
        if (a.fresh) clearVerification(w.db)
        if (!verificationComplete(w.db) || w.stages.verify !== 'done') {
          for (const stage of [indexStage, verifyStage]) {
            stage.init(w.db)
            setStageStatus(w.db, stage.name, 'running')
            await stage.run(ctx)
            setStageStatus(w.db, stage.name, 'done')
          }
          // The content hash covers verification: a finished world gets its hash recomputed.
          if (w.complete) tx(w.db, () => setManifest(w.db, 'content_hash', contentHash(w.db, stages)))
        }
        writeVerifyReport(ctx)
        const report = verificationReport(w.db, a.failed)
        process.stdout.write((a.json ? JSON.stringify(report) : formatVerifyReport(report)) + '\n')
        if (!a.json) process.stdout.write(`\n(report with up to 200 failed edges: ${a.dir}/${VERIFY_REPORT_FILE})\n`)
      } finally {
        await search.release().catch((e: unknown) => process.stderr.write(`search index: close failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`))
        w.close()
        lock.release()
      }
    }),
  }
}

/** `world verify --deep`: read-only; one line per problem on stdout, then a one-line error (exit 1) if there was any. */
function deepVerify(dir: string, stages: readonly Stage[], json: boolean): void {
  const w = openWorld(dir, { allowIncomplete: true })
  try {
    const r = deepCheck(w.db, w.complete ? w.hash : null, (db) => contentHash(db, stages))
    if (json) process.stdout.write(JSON.stringify({ dir, ok: r.problems.length === 0, ...r }) + '\n')
    else if (r.problems.length === 0) process.stdout.write(`ok: SQLite integrity_check passes and the rows hash to the manifest's ${r.manifestHash}\n`)
    else for (const p of r.problems) process.stdout.write(`${p}\n`)
    if (r.problems.length > 0) throw new WorldError('world.corrupt', `${dir}: ${r.problems.length} problem(s): ${r.problems[0].slice(0, 200)}`)
  } finally {
    w.close()
  }
}

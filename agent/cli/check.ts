// agent/cli/check: `searchgym gym check DIR` — the oracle through the real env over every QA of a world; prints
// per-type counts and each question it cannot solve with why; exits 1 when any fails. Lives in agent/ (it needs the
// oracle); the root CLI mounts it under the `gym` group (gymCommands([checkCommand])).
import { writeFileSync } from 'node:fs'
import type { ArgumentsCamelCase } from 'yargs'
import { handler, type Command } from '../../infra/cli-util'
import { GymError } from '../../infra/errors'
import { openGymWorld } from '../../gym'
import { openWorld } from '../../world'
import { checkWithOracle, checkWorldFolder } from '../oracle/oracle-check'
import { worldOracleKnowledge } from '../oracle/oracle-knowledge'

interface CheckArgs {
  dir: string
  split: 'train' | 'bench' | 'all'
  limit?: number
  concurrency: number
  json?: string
  workers?: number
  pages: 'all' | 'needed'
}

export const checkCommand: Command = {
  command: 'check <dir>',
  describe: 'run the oracle policy through the real env over every QA of a world and list questions it cannot solve',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: 'world folder' })
      .option('split', { choices: ['train', 'bench', 'all'], default: 'all', describe: 'which questions to check' })
      .option('limit', { type: 'number', describe: 'check only the first N questions' })
      .option('concurrency', { type: 'number', default: 8, describe: 'questions checked at once (in-process)' })
      .option('json', { type: 'string', describe: 'write the full report (every failure) to this JSON file' })
      .option('workers', { type: 'number', describe: 'worker threads over question shards (default: SEARCHGYM_WORKERS, else the cores up to 8; 1 = in-process with --concurrency)' })
      .option('pages', { choices: ['all', 'needed'], default: 'needed', describe: 'how the oracle reads a paged document: only the pages a hop needs (page 1, then on until the fact is read) or all of them when it opens one' }),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as CheckArgs
    if (a.limit !== undefined && (!Number.isInteger(a.limit) || a.limit < 1)) throw new GymError('cli.bad_limit', '--limit must be a positive integer')
    const gymWorld = await openGymWorld(a.dir)
    const w = openWorld(a.dir)
    try {
      let qas = gymWorld.listQa(a.split === 'all' ? undefined : a.split)
      if (a.limit !== undefined) qas = qas.slice(0, a.limit)
      if (qas.length === 0) throw new GymError('check.no_qa', `world ${a.dir} has no QA${a.split === 'all' ? '' : ` in split ${a.split}`}`)
      if (a.workers !== undefined && (!Number.isInteger(a.workers) || a.workers < 1)) throw new GymError('cli.bad_workers', '--workers must be a positive integer')
      const r =
        a.workers === 1
          ? await checkWithOracle(gymWorld, worldOracleKnowledge(w), qas, { concurrency: a.concurrency, pages: a.pages })
          : await checkWorldFolder(a.dir, qas, { workers: a.workers, pages: a.pages })
      const out = process.stdout
      out.write(`oracle check of ${a.dir}: ${r.solved}/${r.total} solved (${((100 * r.solved) / r.total).toFixed(2)}%), mean F1 ${r.meanF1.toFixed(4)}\n`)
      for (const [t, c] of Object.entries(r.byType).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        out.write(`  ${t}: ${c.solved}/${c.total}\n`)
      out.write(`  oracle turns: p50 ${r.turns.p50}, max ${r.turns.max}; ${r.turns.overPaperBudget} questions need more than 16 turns at one call per turn\n`)
      if (r.failures.length > 0) out.write(`  dropped by cause: ${Object.entries(r.byCause).map(([c, n]) => `${c} ${n}`).join(', ')}\n`)
      for (const f of r.failures) out.write(`FAIL ${f.qaId} (${f.type}, ${f.hops} hops, ${f.split}, ${f.cause}): ${f.failure ?? `F1 ${f.f1}`}\n`)
      if (a.json) writeFileSync(a.json, JSON.stringify(r, null, 2) + '\n')
      if (r.failures.length > 0) process.exitCode = 1
    } finally {
      w.close()
      await gymWorld.close()
    }
  }),
}

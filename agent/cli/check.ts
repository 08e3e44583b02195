// agent/cli/check: `searchgym gym check DIR` — the oracle through the real env over every QA of a world; prints
// per-type counts and each question it cannot solve with why; exits 1 when any fails. Lives in agent/ (it needs the
// oracle); the root CLI mounts it under the `gym` group (gymCommands([checkCommand])).
import { writeFileSync } from 'node:fs'
import type { ArgumentsCamelCase } from 'yargs'
import { handler, renamedFlags, type Command } from '../../infra/cli-util'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { GymError } from '../../infra/errors'
import { openGymWorld } from '../../gym'
import { checkWorldDir, engineProfile, limitsWith, openWorld } from '../../world'
import { CHECKED_WORLD_STAGES } from '../world-check-stage'
import { checkWithOracle, checkWorldFolder } from '../oracle/oracle-check'
import { worldOracleKnowledge } from '../oracle/oracle-knowledge'
import { profileCheck, type ProfileReport } from '../oracle/profile-check'
import { formatUnitVerifyReport, verifyEdgesCheck } from './verify-edges'
import { GYM_CHECK_FIELDS, refuseCheckConflicts, type GymCheckConfig } from './check-fields'

export const checkCommand: Command = {
  command: 'check <dir>',
  describe: 'run the oracle policy through the real env over every QA of a world and list questions it cannot solve',
  builder: (y) =>
    fieldOptions(
      renamedFlags(y, { unit: 'retrieve-unit', workers: 'set threads=N' })
        .positional('dir', { type: 'string', demandOption: true, describe: 'world folder' })
        .example('searchgym gym check worlds/paper --split bench', 'the oracle solves every bench question through the env')
        .example('searchgym gym check worlds/paper --limit 40 --json check.json', '40 questions, the report as JSON')
        .example('$0 gym check worlds/tiny --format verl --set toolCalls=4 --set obs=4096', 'the oracle under verl with 4 tool calls and 4,096 characters of tool output')
        .example('$0 gym check worlds/tiny --retrieve-unit passage --verify-edges', "the world's edge verification re-run through pages and through passages"),
      GYM_CHECK_FIELDS,
    ),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const dir = (raw as unknown as { dir: string }).dir
    // Every knob typed and bounded by the table (named as given), and the knobs of another check refused, before the
    // world opens.
    const { config: c, name } = fieldArgs<GymCheckConfig>(GYM_CHECK_FIELDS, raw as Record<string, unknown>)
    refuseCheckConflicts(c, name)
    const profile = c.format !== undefined ? engineProfile(c.format) : undefined
    // The world's rows against its hash before the oracle plays it (an edited question is refused, not checked).
    checkWorldDir(dir, CHECKED_WORLD_STAGES)
    const gymWorld = await openGymWorld(dir)
    const w = openWorld(dir)
    try {
      if (c.verifyEdges) {
        const r = await verifyEdgesCheck(gymWorld, w.db, { unit: c.retrieveUnit, edges: c.edges, quiet: c.quiet })
        process.stdout.write(formatUnitVerifyReport(dir, r))
        if (c.json) writeFileSync(c.json, JSON.stringify(r, null, 2) + '\n')
        if (r.page && r.page.mismatches.length > 0) process.exitCode = 1
        return
      }
      let qas = gymWorld.listQa(c.split === 'all' ? undefined : c.split)
      if (c.limit !== undefined) qas = qas.slice(0, c.limit)
      if (qas.length === 0) throw new GymError('check.no_qa', `world ${dir} has no QA${c.split === 'all' ? '' : ` in split ${c.split}`}`)
      if (profile) {
        const r = await profileCheck(gymWorld, worldOracleKnowledge(w), qas, profile, limitsWith(profile.stock, c), { unit: c.retrieveUnit })
        process.stdout.write(formatProfileReport(dir, r))
        if (c.json) writeFileSync(c.json, JSON.stringify(r, null, 2) + '\n')
        return
      }
      const r =
        c.threads === 1
          ? await checkWithOracle(gymWorld, worldOracleKnowledge(w), qas, { concurrency: c.concurrency, pages: c.pages })
          : await checkWorldFolder(dir, qas, { workers: c.threads, pages: c.pages })
      const out = process.stdout
      out.write(`oracle check of ${dir}: ${r.solved}/${r.total} solved (${((100 * r.solved) / r.total).toFixed(2)}%), mean F1 ${r.meanF1.toFixed(4)}\n`)
      for (const [t, n] of Object.entries(r.byType).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        out.write(`  ${t}: ${n.solved}/${n.total}\n`)
      out.write(`  oracle turns: p50 ${r.turns.p50}, max ${r.turns.max}; ${r.turns.overPaperBudget} questions need more than 16 turns at one call per turn\n`)
      if (r.failures.length > 0) out.write(`  dropped by cause: ${Object.entries(r.byCause).map(([cause, n]) => `${cause} ${n}`).join(', ')}\n`)
      for (const f of r.failures) out.write(`FAIL ${f.qaId} (${f.type}, ${f.hops} hops, ${f.split}, ${f.cause}): ${f.failure ?? `F1 ${f.f1}`}\n`)
      if (c.json) writeFileSync(c.json, JSON.stringify(r, null, 2) + '\n')
      if (r.failures.length > 0) process.exitCode = 1
    } finally {
      w.close()
      await gymWorld.close()
    }
  }),
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`)

/** The profile report as `gym check --format NAME` prints it. */
export function formatProfileReport(dir: string, r: ProfileReport): string {
  const l = r.limits
  const lines = [
    `oracle under ${r.profile} limits${r.unit === 'passage' ? ' through passages' : ''} (toolCalls ${l.toolCalls}, topk ${l.topk}, obs ${l.obs}, docChars ${l.docChars}, context ${l.context}, access ${l.access}) on ${dir}: ${r.solved}/${r.total} solvable (${pct(r.solved, r.total)})`,
  ]
  for (const [name, m] of [['type', r.byType], ['hops', r.byHops]] as const)
    lines.push(`  by ${name}: ${Object.entries(m).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, c]) => `${k} ${c.solved}/${c.total} (${pct(c.solved, c.total)})`).join(', ')}`)
  if (r.solved < r.total) lines.push(`  not solvable by cause: ${Object.entries(r.byCause).map(([c, n]) => `${c} ${n}`).join(', ')}`)
  lines.push(`  oracle tool calls of the solvable: p50 ${r.calls.p50}, p95 ${r.calls.p95}, max ${r.calls.max}`)
  return lines.join('\n') + '\n'
}

// agent/cli/check: `searchgym gym check DIR` — the oracle through the real env over every QA of a world; prints
// per-type counts and each question it cannot solve with why; exits 1 when any fails. Lives in agent/ (it needs the
// oracle); the root CLI mounts it under the `gym` group (gymCommands([checkCommand])).
import { writeFileSync } from 'node:fs'
import type { ArgumentsCamelCase } from 'yargs'
import { handler, renamedFlags, type Command } from '../../infra/cli-util'
import { GymError } from '../../infra/errors'
import { openGymWorld } from '../../gym'
import { checkWorldDir, openWorld } from '../../world'
import { CHECKED_WORLD_STAGES } from '../world-check-stage'
import { checkWithOracle, checkWorldFolder } from '../oracle/oracle-check'
import { worldOracleKnowledge } from '../oracle/oracle-knowledge'
import { engineProfile, engineProfileNames, limitsWith, RETRIEVE_UNITS, type RetrieveUnit } from '../../world'
import { profileCheck, type ProfileReport } from '../oracle/profile-check'
import { formatUnitVerifyReport, verifyEdgesCheck } from './verify-edges'

interface CheckArgs {
  dir: string
  split: 'train' | 'bench' | 'all'
  limit?: number
  concurrency: number
  json?: string
  threads?: number
  pages: 'all' | 'needed'
  profile?: string
  set?: string[]
  retrieveUnit: RetrieveUnit
  verifyEdges?: boolean
  edges?: number
  quiet?: boolean
}

export const checkCommand: Command = {
  command: 'check <dir>',
  describe: 'run the oracle policy through the real env over every QA of a world and list questions it cannot solve',
  builder: (y) =>
    renamedFlags(y, { unit: 'retrieve-unit', workers: 'threads' })
      .positional('dir', { type: 'string', demandOption: true, describe: 'world folder' })
      .option('split', { choices: ['train', 'bench', 'all'], default: 'all', describe: 'which questions to check' })
      .option('limit', { type: 'number', describe: 'check only the first N questions' })
      .option('concurrency', { type: 'number', default: 8, describe: 'questions checked at once (in-process)' })
      .option('json', { type: 'string', describe: 'write the full report (every failure) to this JSON file' })
      .option('threads', { type: 'number', describe: 'worker threads over question shards (default: SEARCHGYM_THREADS, else the cores up to 8; 1 = in-process with --concurrency)' })
      .option('profile', {
        choices: engineProfileNames(),
        describe: "run the oracle through an outside engine's stock limits (turns, observation cut, context, topk; world/qa/engines) and report the fraction solvable by type and hops",
      })
      .option('set', { type: 'string', array: true, describe: 'with --profile: override a limit, key=value (toolCalls, topk, obs, docChars, context, access); repeatable' })
      .option('retrieve-unit', { choices: [...RETRIEVE_UNITS], default: 'page', describe: 'with --profile or --verify-edges: what /retrieve serves (as gym serve --retrieve-unit): whole pages or ~100-word passages' })
      .option('verify-edges', {
        type: 'boolean',
        describe: "re-run the world's edge verification (the build's 15 queries per edge, its top-K and keep rule) through the engine's pages, and with --retrieve-unit passage through passages too; reports edges kept per unit and per-query latency (informational: which questions are served through passages is decided by the oracle check, --profile NAME --retrieve-unit passage)",
      })
      .option('edges', { type: 'number', describe: 'with --verify-edges: only the first N edges by id' })
      .option('quiet', { type: 'boolean', describe: 'with --verify-edges: no progress lines' })
      .example('$0 gym check worlds/tiny --retrieve-unit passage --verify-edges', "the world's edge verification re-run through pages and through passages")
      .example('$0 gym check worlds/tiny --profile verl --set toolCalls=4 --set obs=4096', 'the oracle under verl with 4 tool calls and 4,096 characters of tool output')
      .option('pages', { choices: ['all', 'needed'], default: 'needed', describe: 'how the oracle reads a paged document: only the pages a hop needs (page 1, then on until the fact is read) or all of them when it opens one' })
      .example('searchgym gym check worlds/paper --split bench', 'the oracle solves every bench question through the env')
      .example('searchgym gym check worlds/paper --limit 40 --json check.json', '40 questions, the report as JSON'),
  handler: handler(async (raw: ArgumentsCamelCase) => {
    const a = raw as unknown as CheckArgs
    if (a.limit !== undefined && (!Number.isInteger(a.limit) || a.limit < 1)) throw new GymError('cli.bad_limit', '--limit must be a positive integer')
    if (a.retrieveUnit === 'passage' && !a.profile && !a.verifyEdges) throw new GymError('cli.bad_flag', '--retrieve-unit needs --profile NAME or --verify-edges')
    if (a.verifyEdges && a.profile) throw new GymError('cli.bad_flag', '--verify-edges and --profile are separate checks: give one')
    if (a.edges !== undefined && !a.verifyEdges) throw new GymError('cli.bad_flag', '--edges needs --verify-edges')
    if (a.edges !== undefined && (!Number.isInteger(a.edges) || a.edges < 1)) throw new GymError('cli.bad_flag', '--edges must be a positive integer')
    if (a.set?.length && !a.profile) throw new GymError('cli.bad_flag', '--set needs --profile NAME')
    let limits
    if (a.profile) {
      try {
        limits = limitsWith(engineProfile(a.profile).stock, a.set ?? [])
      } catch (e) {
        throw new GymError('cli.bad_flag', (e as Error).message)
      }
    }
    // The world's rows against its hash before the oracle plays it (an edited question is refused, not checked).
    checkWorldDir(a.dir, CHECKED_WORLD_STAGES)
    const gymWorld = await openGymWorld(a.dir)
    const w = openWorld(a.dir)
    try {
      if (a.verifyEdges) {
        const r = await verifyEdgesCheck(gymWorld, w.db, { unit: a.retrieveUnit, edges: a.edges, quiet: a.quiet })
        process.stdout.write(formatUnitVerifyReport(a.dir, r))
        if (a.json) writeFileSync(a.json, JSON.stringify(r, null, 2) + '\n')
        if (r.page && r.page.mismatches.length > 0) process.exitCode = 1
        return
      }
      let qas = gymWorld.listQa(a.split === 'all' ? undefined : a.split)
      if (a.limit !== undefined) qas = qas.slice(0, a.limit)
      if (qas.length === 0) throw new GymError('check.no_qa', `world ${a.dir} has no QA${a.split === 'all' ? '' : ` in split ${a.split}`}`)
      if (a.profile && limits) {
        const r = await profileCheck(gymWorld, worldOracleKnowledge(w), qas, engineProfile(a.profile), limits, { unit: a.retrieveUnit })
        process.stdout.write(formatProfileReport(a.dir, r))
        if (a.json) writeFileSync(a.json, JSON.stringify(r, null, 2) + '\n')
        return
      }
      if (a.threads !== undefined && (!Number.isInteger(a.threads) || a.threads < 1)) throw new GymError('cli.bad_threads', '--threads must be a positive integer')
      const r =
        a.threads === 1
          ? await checkWithOracle(gymWorld, worldOracleKnowledge(w), qas, { concurrency: a.concurrency, pages: a.pages })
          : await checkWorldFolder(a.dir, qas, { workers: a.threads, pages: a.pages })
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

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`)

/** The profile report as `gym check --profile` prints it. */
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

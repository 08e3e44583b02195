// bench/cli/run: `searchgym bench run` — the run's identity as flags (world, --bench, out), its knobs from the field
// table (bench/run-fields: --config FILE, --set KEY=VALUE, a few everyday flags, the old ones as aliases) → RunArgs →
// a BenchRunConfig (bench/run-config, with flag names in its errors) → runBench (thin).
export { parseGymOptions } from '../run-fields'
import { resolve } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { scoreAnswer } from '../../gym'
import { fieldArgs, fieldOptions } from '../../infra/field-args'
import { fieldOf, type Namer } from '../../infra/fields'
import { BENCH_RUN_FIELDS } from '../run-fields'
import { benchRunConfig, benchVia, type BenchKnobs } from '../run-config'
import { openBenchWorlds } from '../gym-world'
import { worldArgs } from '../../curriculum'
import { makeJudge, policyFactory, type ClientTuning } from '../policies'
import { ci } from '../report'
import { checkRunNumbers, runBench } from '../run'
import { canonicalBench, canonicalWorldDir, checkHash, CANONICAL_BENCHES } from '../canonical'
import { ceilingLine } from '../ceiling'
import { type BenchRunConfig, type BenchWorld } from '../types'

/** `bench run`'s arguments: the knobs (bench/run-config) and the run's identity — its world(s), a canonical benchmark,
 *  its folder — and quiet. */
export interface RunArgs extends BenchKnobs {
  world: string | string[]
  worlds?: string
  out: string
  quiet: boolean
  retryErrors: boolean
  bench?: string
}

/** How a message names a knob: the command line passes fieldArgs' namer (`maxTurns (--set)`, as it was given); a
 *  library caller of configFromArgs / runFromArgs gets the old flag's spelling. */
export const flagNamer: Namer = (key) => {
  const f = fieldOf(BENCH_RUN_FIELDS, key)
  return `--${f?.flag ?? f?.aliases?.[0] ?? key}`
}

/** The run's config (bench/run-config), its knobs named by their flags unless `n` says otherwise. */
export function configFromArgs(a: RunArgs, worldId: string, worlds: readonly string[] = typeof a.world === 'string' ? [a.world] : a.world, n: Namer = flagNamer): BenchRunConfig {
  return benchRunConfig(a, worldId, worlds, n)
}

/** The cause of questions lost to the endpoint, in words a user acts on: connection refused, 401, timeout, … —
 * the most frequent one among `errors` (the lost questions' recorded errors), with how many share it. */
export function lostCause(errors: readonly string[], c: { baseURL: string; apiKeyEnv: string; timeoutMs: number }): string {
  const counts = new Map<string, number>()
  for (const e of errors) {
    const cause = causeOf(e, c)
    counts.set(cause, (counts.get(cause) ?? 0) + 1)
  }
  const [top, many] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['unknown endpoint failure', 0]
  return counts.size > 1 ? `${top} (${many} of them; ${counts.size - 1} other cause${counts.size > 2 ? 's' : ''} in trajectories.jsonl)` : top
}

function causeOf(e: string, c: { baseURL: string; apiKeyEnv: string; timeoutMs: number }): string {
  const at = c.baseURL ? ` at ${c.baseURL}` : ''
  if (/ECONNREFUSED/.test(e)) return `connection refused${at} (is the server running?)`
  if (/ENOTFOUND|EAI_AGAIN/.test(e)) return `host not found${at}`
  if (/ECONNRESET|EPIPE|socket hang up/.test(e)) return `connection reset by the server${at}`
  if (/\b401\b/.test(e)) return `401 Unauthorized${at} (check the key in $${c.apiKeyEnv})`
  if (/\b403\b/.test(e)) return `403 Forbidden${at} (check the key in $${c.apiKeyEnv})`
  if (/\b404\b/.test(e)) return `404 Not Found${at} (check --base-url, usually ending in /v1, and --model)`
  if (/\(timeout\)|timed out|ETIMEDOUT/i.test(e)) return `timeout${at} (no answer within timeoutMs ${c.timeoutMs})`
  if (/\(rate_limit\)|\b429\b/.test(e)) return `rate limited (429)${at}`
  if (/\(server\)|\b5\d\d\b/.test(e)) return `server errors${at}`
  if (/\(network\)|Connection error/i.test(e)) return `network error${at}`
  return e.replace(/^chat request to \S+ \(model [^)]*\) /, '')
}

export async function runFromArgs(a: RunArgs, tuning: ClientTuning = {}, n: Namer = flagNamer): Promise<void> {
  // The numbers first: before a canonical world is built or any world opened.
  checkRunNumbers(a)
  benchVia(a.via, n)
  const canonical = a.bench !== undefined ? canonicalBench(a.bench) : undefined
  if (canonical) {
    // A canonical run scores the whole pinned bench split under its pinned budgets: nothing that changes what is measured.
    if (a.split !== 'bench') throw new BenchError('bench.args', `--bench ${canonical.name} scores the bench split; leave out ${n('split')}`)
    if (a.gym?.budgets?.maxTurns !== undefined)
      throw new BenchError('bench.args', `--bench ${canonical.name} plays under its pinned budget (${canonical.budgets.maxTurns} turns); leave out ${n('gym.budgets.maxTurns')}, or run the world folder without --bench for another turn limit`)
    if (a.qaIds !== undefined || a.gym !== undefined) throw new BenchError('bench.args', `--bench ${canonical.name} takes neither ${n('qaIds')} nor ${n('gym')} (they change what is measured)`)
    if (Array.isArray(a.world) || a.worlds !== undefined) throw new BenchError('bench.args', `--bench ${canonical.name} scores one world; give at most one world folder`)
    const given = typeof a.world === 'string' && a.world !== '' ? a.world : undefined
    a = { ...a, world: await canonicalWorldDir(canonical, given, { quiet: a.quiet, log: (l) => process.stderr.write(l + '\n') }) }
  }
  if ((a.world === undefined || a.world === '') && a.worlds === undefined) throw new BenchError('bench.args', 'give a world folder: searchgym bench run worlds/NAME --policy … --out runs/NAME (or --bench searchgymbench-v1)')
  const worlds = (await worldArgs(a.world, a.worlds)).map((w) => resolve(w))
  const world = await openBenchWorlds(worlds)
  try {
    if (canonical) checkHash(canonical, world.dir, world.id)
    // A canonical run plays under the benchmark's pinned budgets, whatever the policy (the oracle's too: its score is
    // then the ceiling the pin promises, 100 %).
    const config: BenchRunConfig = {
      ...configFromArgs(a, world.id, worlds, n),
      ...(canonical ? { gym: { budgets: { ...canonical.budgets } }, benchmark: { name: canonical.name, version: canonical.version, hash: canonical.hash, budgets: { ...canonical.budgets } } } : {}),
    }
    const mcp = config.via === 'mcp' ? await viaMcp(config, world) : undefined
    const res = await runBench(resolve(a.out), config, {
      world,
      ...(mcp ? { makeEnv: mcp.makeEnv } : {}),
      policyFor: policyFactory(config, world, process.env, tuning),
      scorer: scoreAnswer,
      judge: makeJudge(config, process.env, tuning),
      retryErrors: a.retryErrors,
      quiet: a.quiet,
    }).finally(() => mcp?.close())
    const s = res.summary
    const lines = [
      ...(config.benchmark ? [`benchmark ${config.benchmark.name} (version ${config.benchmark.version}), world hash ${config.benchmark.hash}${config.limit !== null ? ` — a sample of ${s.questions} (--limit), not the whole benchmark` : ''}`] : []),
      `bench run ${config.policy}${config.model ? ` (${config.model})` : ''} on ${s.questions} questions → ${res.outDir}`,
      `  ran ${res.ran}, resumed ${res.skipped}${res.repairedTornLine ? ' (cut a torn last line)' : ''}`,
      `  F1 ${ci(s.overall.f1)}  EM ${ci(s.overall.em)}${s.overall.judge ? `  judge ${ci(s.overall.judge)}` : ''}${s.floor ? `  floor F1 ${(100 * s.floor.f1).toFixed(1)} EM ${(100 * s.floor.em).toFixed(1)} (a constant answer per relation)` : ''}`,
      `  tools/question ${s.tools.toolCallsPerQuestion.toFixed(2)}, format valid ${(100 * s.tools.formatValidRate).toFixed(1)}%, endpoint retries ${s.endpoint.retries}, lost ${s.endpoint.failedQuestions}`,
      `  ${ceilingLine(res.ceiling)}`,
    ]
    process.stdout.write(lines.join('\n') + '\n')
    // A run that lost questions to the endpoint is not a result: scripts must see it (exit 1, the cause in one line).
    const lost = res.lostErrors.length
    if (lost > 0) {
      const cause = lostCause(res.lostErrors, config)
      if (a.allowLost) process.stderr.write(`searchgym: warning: ${lost} of ${s.questions} questions lost to the endpoint: ${cause}; kept (allowLost)\n`)
      else
        throw new BenchError(
          'bench.lost',
          `${lost} of ${s.questions} questions lost to the endpoint: ${cause}; rerun with ${n === flagNamer ? '--retry-errors' : '--set retryErrors=true'} once it is fixed, or pass ${n === flagNamer ? '--allow-lost' : '--set allowLost=true'} to accept the partial run`,
        )
    }
  } finally {
    await world.close()
  }
}

/** --via mcp: each episode through `searchgym gym mcp --http` (this very CLI as a child, one per world folder for the
 *  run), the run's env options as its --options. */
async function viaMcp(config: BenchRunConfig, world: BenchWorld) {
  const home = world.home?.bind(world)
  if (!home) throw new BenchError('bench.args', '--via mcp needs world folders (gym mcp serves a folder)')
  const { mcpEnvs } = await import('../mcp-env')
  return mcpEnvs({ cli: { command: process.execPath, args: [...process.execArgv, process.argv[1]] }, home, options: config.gym, maxSessions: config.concurrency })
}

export function runCommand(tuning: ClientTuning = {}): Command {
  return {
    command: 'run [world]',
    describe: 'evaluate a policy on a world split; resumable (rerun the same command to continue)',
    builder: (y: Argv) =>
      fieldOptions(
        y
          .positional('world', { type: 'string', describe: 'world folder (written by world build --out); also --world DIR, as before' })
          .option('world', { type: 'string', describe: 'world folder (the positional argument, as a flag); repeat for a pool of worlds (question ids WORLD/ID)' })
          .option('worlds', { type: 'string', describe: 'JSON file: a list of world folders, or a recipe {preset, config, seeds, cache} built on demand' })
          .option('bench', { type: 'string', describe: `a canonical benchmark: ${Object.keys(CANONICAL_BENCHES).join(', ')} — its world (the argument, else worlds/NAME, built once with the pinned seed) must have the pinned content hash` })
          .option('out', { type: 'string', demandOption: true, describe: 'run directory, e.g. runs/NAME' })
          .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines (also SEARCHGYM_QUIET=1)' })
          .example('searchgym bench run --bench searchgymbench-v1 --model M --base-url http://127.0.0.1:8001/v1 --out runs/m-v1', 'the canonical benchmark (world built once, hash checked)')
          .example('searchgym bench run worlds/paper --policy oracle --limit 20 --out runs/oracle', 'the gold path on 20 questions (a stratified sample)')
          .example('searchgym bench run worlds/paper --policy oracle --limit 20 --set via=mcp --out runs/oracle-mcp', "the same episodes played through the gym's MCP server")
          .example('searchgym bench run worlds/paper --model M --base-url http://127.0.0.1:8001/v1 --set protocol=hermes --out runs/m', 'a model behind an OpenAI-compatible endpoint, tool calls as <tool_call> tags'),
        BENCH_RUN_FIELDS,
      ),
    handler: handler((argv: Record<string, unknown>) => {
      // Every knob checked (types, choices, bounds; named as given) before any world is opened.
      const { config, name } = fieldArgs<Omit<RunArgs, 'world' | 'worlds' | 'bench' | 'out' | 'quiet'>>(BENCH_RUN_FIELDS, argv)
      const a = argv as Pick<RunArgs, 'world' | 'worlds' | 'bench' | 'out' | 'quiet'>
      return runFromArgs({ ...config, world: a.world, worlds: a.worlds, bench: a.bench, out: a.out, quiet: a.quiet }, tuning, name)
    }),
  }
}

// bench/cli/run: `searchgym bench run` — parse flags into a BenchRunConfig and call runBench (thin).
import { resolve } from 'node:path'
import { handler, type Argv, type Command } from '../../infra/cli-util'
import { BenchError } from '../../infra/errors'
import { ORACLE_GYM_OPTIONS, readPriceTable } from '../../agent'
import { scoreAnswer } from '../../gym'
import { readJsonFile } from '../../infra/config'
import { openBenchWorlds } from '../gym-world'
import { worldArgs } from '../../curriculum'
import { makeJudge, policyFactory, type ClientTuning } from '../policies'
import { ci } from '../report'
import { checkRunNumbers, runBench } from '../run'
import { canonicalBench, canonicalWorldDir, checkHash, CANONICAL_BENCHES } from '../canonical'
import { LIMIT_MODES, type LimitMode } from '../sample'
import { ceilingLine } from '../ceiling'
import { type BenchRunConfig, type BenchWorld, type PolicyKind } from '../types'
import { CHAT_PROTOCOLS, type GymOptionsJson, type ProtocolName } from '../../gym'
import { resolveGymOptions } from '../../gym'

export interface RunArgs {
  world: string | string[]
  worlds?: string
  split: string
  policy: PolicyKind
  model?: string
  baseUrl?: string
  apiKeyEnv: string
  limit?: number
  limitMode?: string
  concurrency: number
  protocol: string
  out: string
  seed: number
  timeoutMs: number
  maxRetries: number
  temperature?: number
  maxTokens?: number
  maxTurns?: number
  ragDocs: number
  prices?: string
  judgeModel?: string
  judgeBaseUrl?: string
  judgeApiKeyEnv: string
  gymOptions?: string
  bootstrap: number
  retryErrors: boolean
  quiet: boolean
  adapter?: string
  backend?: string
  qaIds?: string
  allowLost?: boolean
  bench?: string
  via?: string
}

/** Where `bench run` plays each episode: the gym's env in process, or through the gym's MCP server (`gym mcp`). */
export const VIA = ['env', 'mcp'] as const

/** --via: env (default) or mcp; anything else is one line before any work. */
export function benchVia(v: string | undefined): (typeof VIA)[number] {
  const via = v ?? 'env'
  if (!(VIA as readonly string[]).includes(via)) throw new BenchError('bench.args', `--via must be one of ${VIA.join(', ')}, got '${via}'`)
  return via as (typeof VIA)[number]
}

/** --gym-options: inline JSON or a JSON file (env budgets, faults, reward, topK, access); the gym validates keys. */
export function parseGymOptions(v: string): GymOptionsJson {
  const raw = v.trim().startsWith('{') ? parseJson(v) : readJsonFile(v, 'gym options file')
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BenchError('bench.args', '--gym-options must be a JSON object, e.g. \'{"budgets": {"maxTurns": 8}}\'')
  // The run's protocol is --protocol (the policy must speak it too); a protocol here would be silently overridden.
  if (Object.prototype.hasOwnProperty.call(raw, 'protocol'))
    throw new BenchError('bench.args', '--gym-options may not set protocol: use --protocol openai|hermes (the policy and the env must agree)')
  // Keys, names and ranges are checked by runBench's one resolveGymOptions, before the run folder exists.
  return raw as GymOptionsJson
}

function parseJson(v: string): unknown {
  try {
    return JSON.parse(v)
  } catch (e) {
    throw new BenchError('bench.args', `--gym-options is not valid JSON: ${(e as Error).message}`)
  }
}


/** --protocol: the gym's protocol names; the bench's old names are refused with the new one. */
export function benchProtocol(p: string, policy?: PolicyKind): ProtocolName {
  if (p === 'tools') throw new BenchError('bench.args', "--protocol tools is now --protocol openai (the gym's name for native tool_calls)")
  if (p === 'text') throw new BenchError('bench.args', "--protocol text is now --protocol hermes (the gym's name for <tool_call> tags in the text)")
  if (p === 'search-r1') {
    if (policy === 'engine') return 'search-r1'
    throw new BenchError('bench.args', '--protocol search-r1 is spoken only by --policy engine (a local model); use openai or hermes')
  }
  if (!(CHAT_PROTOCOLS as readonly string[]).includes(p)) throw new BenchError('bench.args', `--protocol must be one of ${CHAT_PROTOCOLS.join(', ')}, got '${p}'`)
  return p as ProtocolName
}

/** --max-turns N is the env's one turn limit, budgets.maxTurns (the gym's default 16, the oracle's 1000, unless set). */
export function turnLimited(gym: GymOptionsJson | null, maxTurns: number | undefined, fromFlag = true): GymOptionsJson | null {
  if (maxTurns === undefined) return gym
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new BenchError('bench.args', `--max-turns must be a positive integer, got ${maxTurns}`)
  const set = gym?.budgets?.maxTurns
  if (fromFlag && set !== undefined && set !== maxTurns)
    throw new BenchError('bench.args', `--max-turns ${maxTurns} and --gym-options budgets.maxTurns ${set} are the same turn limit: give one`)
  return { ...gym, budgets: { ...gym?.budgets, maxTurns } }
}

export function configFromArgs(a: RunArgs, worldId: string, worlds: readonly string[] = typeof a.world === 'string' ? [a.world] : a.world): BenchRunConfig {
  const needsModel = a.policy !== 'oracle'
  const engine = a.policy === 'engine'
  const protocol = benchProtocol(a.protocol, a.policy)
  if (engine && a.protocol === 'openai') throw new BenchError('bench.args', '--policy engine speaks a text protocol: use --protocol hermes or search-r1')
  if (!engine && (a.adapter !== undefined || a.backend !== undefined)) throw new BenchError('bench.args', '--adapter and --backend are options of --policy engine')
  checkRunNumbers(a)
  if (a.judgeModel && !a.judgeBaseUrl && !a.baseUrl) throw new BenchError('bench.args', '--judge-model needs --judge-base-url (or --base-url to reuse)')
  // The oracle writes the gym's hermes (text) protocol; it proves solvability, so the turn budget is lifted (as the gym's
  // oracle check does) unless --gym-options says otherwise.
  const oracle = a.policy === 'oracle'
  return {
    world: resolve(worlds[0]),
    ...(worlds.length > 1 ? { worlds: worlds.map((w) => resolve(w)) } : {}),
    worldId,
    split: a.split,
    policy: a.policy,
    model: needsModel ? (a.model ?? '') : '',
    baseURL: needsModel && !engine ? (a.baseUrl ?? '') : '',
    apiKeyEnv: a.apiKeyEnv,
    protocol: oracle ? 'hermes' : protocol,
    limit: a.limit ?? null,
    ...(a.limit !== undefined ? { limitMode: limitMode(a.limitMode) } : {}),
    concurrency: a.concurrency,
    seed: a.seed,
    timeoutMs: a.timeoutMs,
    maxRetries: a.maxRetries,
    temperature: a.temperature ?? null,
    maxTokens: a.maxTokens ?? null,
    ragDocs: a.ragDocs,
    prices: a.prices ? readPriceTable(a.prices) : null,
    judge: a.judgeModel ? { model: a.judgeModel, baseURL: a.judgeBaseUrl ?? a.baseUrl ?? '', apiKeyEnv: a.judgeApiKeyEnv } : null,
    gym: a.gymOptions ? turnLimited(parseGymOptions(a.gymOptions), a.maxTurns) : turnLimited(oracle ? ORACLE_GYM_OPTIONS : null, a.maxTurns, false),
    bootstrap: a.bootstrap,
    ...(engine ? { model: resolve(a.model ?? ''), adapter: a.adapter ? resolve(a.adapter) : undefined, backend: a.backend ?? 'auto' } : {}),
    ...(a.qaIds !== undefined ? { qaIds: readQaIds(a.qaIds) } : {}),
    ...(benchVia(a.via) === 'mcp' ? { via: 'mcp' as const } : {}),
  }
}

function limitMode(m: string | undefined): LimitMode {
  const v = m ?? 'stratified'
  if (!(LIMIT_MODES as readonly string[]).includes(v)) throw new BenchError('bench.args', `--limit-mode must be one of ${LIMIT_MODES.join(', ')}, got '${v}'`)
  return v as LimitMode
}

/** --qa-ids FILE: a JSON array of question ids (e.g. `train sft`'s heldout.json). */
/** A --qa-ids file: a JSON array of question ids (train sft's heldout.json), or an experiment's evaluation list
 *  (OUT/eval/SET.json: {set, worlds, split, ids}). */
export function readQaIds(file: string): string[] {
  const raw = readJsonFile(file, '--qa-ids file')
  const v = raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'ids' in raw ? (raw as { ids: unknown }).ids : raw
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string'))
    throw new BenchError('bench.args', `--qa-ids ${file} must hold a non-empty JSON array of question ids (or an experiment's eval/SET.json, {"ids": [...]})`)
  return v as string[]
}

/** The cause of questions lost to the endpoint, in words a user acts on: connection refused, 401, timeout, … —
 * the most frequent one among `errors` (the lost questions' recorded errors), with how many share it. */
export function lostCause(errors: readonly string[], c: { baseURL: string; apiKeyEnv: string; timeoutMs: number }): string {
  const counts = new Map<string, number>()
  for (const e of errors) {
    const cause = causeOf(e, c)
    counts.set(cause, (counts.get(cause) ?? 0) + 1)
  }
  const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['unknown endpoint failure', 0]
  return counts.size > 1 ? `${top} (${n} of them; ${counts.size - 1} other cause${counts.size > 2 ? 's' : ''} in trajectories.jsonl)` : top
}

function causeOf(e: string, c: { baseURL: string; apiKeyEnv: string; timeoutMs: number }): string {
  const at = c.baseURL ? ` at ${c.baseURL}` : ''
  if (/ECONNREFUSED/.test(e)) return `connection refused${at} (is the server running?)`
  if (/ENOTFOUND|EAI_AGAIN/.test(e)) return `host not found${at}`
  if (/ECONNRESET|EPIPE|socket hang up/.test(e)) return `connection reset by the server${at}`
  if (/\b401\b/.test(e)) return `401 Unauthorized${at} (check the key in $${c.apiKeyEnv})`
  if (/\b403\b/.test(e)) return `403 Forbidden${at} (check the key in $${c.apiKeyEnv})`
  if (/\b404\b/.test(e)) return `404 Not Found${at} (check --base-url, usually ending in /v1, and --model)`
  if (/\(timeout\)|timed out|ETIMEDOUT/i.test(e)) return `timeout${at} (no answer within --timeout-ms ${c.timeoutMs})`
  if (/\(rate_limit\)|\b429\b/.test(e)) return `rate limited (429)${at}`
  if (/\(server\)|\b5\d\d\b/.test(e)) return `server errors${at}`
  if (/\(network\)|Connection error/i.test(e)) return `network error${at}`
  return e.replace(/^chat request to \S+ \(model [^)]*\) /, '')
}

export async function runFromArgs(a: RunArgs, tuning: ClientTuning = {}): Promise<void> {
  // The numbers first: before a canonical world is built or any world opened.
  checkRunNumbers(a)
  benchVia(a.via)
  const canonical = a.bench !== undefined ? canonicalBench(a.bench) : undefined
  if (canonical) {
    // A canonical run scores the whole pinned bench split under its pinned budgets: nothing that changes what is measured.
    if (a.split !== 'bench') throw new BenchError('bench.args', `--bench ${canonical.name} scores the bench split; leave out --split`)
    if (a.qaIds !== undefined || a.gymOptions !== undefined) throw new BenchError('bench.args', `--bench ${canonical.name} takes neither --qa-ids nor --gym-options (they change what is measured)`)
    if (a.maxTurns !== undefined)
      throw new BenchError('bench.args', `--bench ${canonical.name} plays under its pinned budget (${canonical.budgets.maxTurns} turns); leave out --max-turns, or run the world folder without --bench for another turn limit`)
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
      ...configFromArgs(a, world.id, worlds),
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
      if (a.allowLost) process.stderr.write(`searchgym: warning: ${lost} of ${s.questions} questions lost to the endpoint: ${cause}; kept (--allow-lost)\n`)
      else
        throw new BenchError(
          'bench.lost',
          `${lost} of ${s.questions} questions lost to the endpoint: ${cause}; rerun with --retry-errors once it is fixed, or pass --allow-lost to accept the partial run`,
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
      y
        .describe({
          policy: 'openai: a model behind --base-url with the gym tools; oracle: the gold path (an upper bound); closed-book: no tools; one-shot-rag: top documents in one prompt; engine: a local model folder (+ --adapter) in process',
          quiet: 'no progress lines (also SEARCHGYM_QUIET=1)',
        })
        .positional('world', { type: 'string', describe: 'world folder (written by world build --out); also --world DIR, as before' })
        .option('world', { type: 'string', describe: 'world folder (the positional argument, as a flag); repeat for a pool of worlds (question ids WORLD/ID)' })
        .option('worlds', { type: 'string', describe: 'JSON file: a list of world folders, or a recipe {preset, config, seeds, cache} built on demand' })
        .option('bench', { type: 'string', describe: `a canonical benchmark: ${Object.keys(CANONICAL_BENCHES).join(', ')} — its world (the argument, else worlds/NAME, built once with the pinned seed) must have the pinned content hash` })
        .option('split', { choices: ['bench', 'train'] as const, default: 'bench' as const, describe: 'which questions: the held-out SearchGymBench or the training split' })
        .option('policy', { choices: ['openai', 'oracle', 'closed-book', 'one-shot-rag', 'engine'] as const, default: 'openai' as const })
        .option('model', { type: 'string', describe: 'model name sent to the endpoint (--policy engine: the local model folder)' })
        .option('base-url', { type: 'string', describe: 'OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (required by --policy openai, closed-book, one-shot-rag)' })
        .option('api-key-env', { type: 'string', default: 'OPENAI_API_KEY', describe: 'environment variable holding the API key' })
        .option('limit', { type: 'number', describe: 'only N questions: a seeded (--seed) sample stratified over type × hops, every type present from N ≥ 3' })
        .option('limit-mode', { choices: ['stratified', 'first'] as const, default: 'stratified' as const, describe: 'how --limit picks: stratified sample, or the first N of the split' })
        .option('concurrency', { type: 'number', default: 8, describe: 'questions in flight' })
        .option('protocol', { type: 'string', default: 'openai', describe: 'gym protocol: openai (native tool_calls), hermes (<tool_call> tags in the text), search-r1 (--policy engine only)' })
        .option('out', { type: 'string', demandOption: true, describe: 'run directory, e.g. runs/NAME' })
        .option('seed', { type: 'number', default: 0, describe: 'seed of retry jitter and bootstrap' })
        .option('timeout-ms', { type: 'number', default: 120000, describe: 'per-request timeout' })
        .option('max-retries', { type: 'number', default: 5, describe: 'retries on 429/5xx/network/timeout' })
        .option('temperature', { type: 'number', describe: 'sampling temperature sent to the endpoint (default: the endpoint\'s)' })
        .option('max-tokens', { type: 'number', describe: 'max_tokens per model turn (default: the endpoint\'s; model serve: 1024)' })
        .option('max-turns', { type: 'number', describe: 'turn limit of an episode: the env\'s budgets.maxTurns (default 16; --policy oracle 1000; --bench: the benchmark\'s pinned 32)' })
        .option('rag-docs', { type: 'number', default: 3, describe: 'one-shot-rag: documents opened and put in context' })
        .option('prices', { type: 'string', describe: 'JSON price table {"model": {"input": usdPerMTok, "output": usdPerMTok}}' })
        .option('judge-model', { type: 'string', describe: 'LLM-as-judge model (optional)' })
        .option('judge-base-url', { type: 'string', describe: 'judge endpoint (default: --base-url)' })
        .option('judge-api-key-env', { type: 'string', default: 'OPENAI_API_KEY', describe: 'environment variable holding the judge\'s API key' })
        .option('gym-options', { type: 'string', describe: 'env options as JSON or a JSON file: budgets, faults, reward, topK, access' })
        .option('bootstrap', { type: 'number', default: 1000, describe: 'bootstrap resamples for CIs' })
        .option('retry-errors', { type: 'boolean', default: false, describe: 're-run questions lost to endpoint failures' })
        .option('allow-lost', { type: 'boolean', default: false, describe: 'exit 0 even when questions were lost to the endpoint (default: exit 1 naming the cause)' })
        .option('quiet', { type: 'boolean', default: false })
        .option('adapter', { type: 'string', describe: '--policy engine: PEFT adapter folder on the local --model folder' })
        .option('backend', { type: 'string', describe: '--policy engine: engine backend auto | native | ts | cuda (default auto)' })
        .option('via', { type: 'string', default: 'env', describe: "where each episode is played: env (the gym's env in process) or mcp (through the gym's MCP server, `gym mcp --http` started for the run, an MCP session per question, scored by it)" })
        .option('qa-ids', { type: 'string', describe: 'JSON file with an array of question ids of the split to run (e.g. train sft heldout.json)' })
        .group(['policy', 'model', 'base-url', 'api-key-env', 'protocol', 'temperature', 'max-tokens', 'timeout-ms', 'max-retries', 'concurrency'], 'Policy and endpoint:')
        .group(['world', 'bench', 'split', 'limit', 'limit-mode', 'qa-ids', 'gym-options', 'max-turns', 'rag-docs', 'via'], 'Questions and env:')
        .group(['out', 'seed', 'bootstrap', 'retry-errors', 'allow-lost', 'quiet', 'prices'], 'Run:')
        .group(['judge-model', 'judge-base-url', 'judge-api-key-env'], 'LLM judge (optional):')
        .group(['adapter', 'backend'], 'Local model (--policy engine):')
        .example('searchgym bench run --bench searchgymbench-v1 --model M --base-url http://127.0.0.1:8001/v1 --out runs/m-v1', 'the canonical benchmark (world built once, hash checked)')
        .example('searchgym bench run worlds/paper --policy oracle --limit 20 --out runs/oracle', 'the gold path on 20 questions (a stratified sample)')
        .example('searchgym bench run worlds/paper --policy oracle --limit 20 --via mcp --out runs/oracle-mcp', 'the same episodes played through the gym\'s MCP server')
        .example('searchgym bench run worlds/paper --model M --base-url http://127.0.0.1:8001/v1 --out runs/m', 'a model behind an OpenAI-compatible endpoint'),
    handler: handler((a: unknown) => runFromArgs(a as RunArgs, tuning)),
  }
}

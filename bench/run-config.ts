// bench/run-config: a bench run's config resolved once — its knobs (bench/run-fields' table: keys, defaults, types,
// bounds) and the run's worlds → the BenchRunConfig runBench takes, with the checks across knobs (policy × protocol,
// the engine's own keys, the judge's endpoint, the oracle's lifted budgets, the question ids file). `bench run`
// (bench/cli/run) and an experiment's benches (bench/experiment/run) both resolve through it. Knows no command line:
// errors name keys through the caller's Namer (the command passes one that names its flags).
import { resolve } from 'node:path'
import { ORACLE_GYM_OPTIONS, readPriceTable } from '../agent'
import { CHAT_PROTOCOLS, type GymOptionsJson, type ProtocolName } from '../gym'
import { readJsonFile } from '../infra/config'
import { BenchError } from '../infra/errors'
import { keyNamer, resolveFields, type Namer } from '../infra/fields'
import { BENCH_RUN_FIELDS, checkBenchGym } from './run-fields'
import { checkRunNumbers } from './run'
import { LIMIT_MODES, type LimitMode } from './sample'
import type { BenchRunConfig, PolicyKind } from './types'

/** A bench run's knobs: BENCH_RUN_FIELDS' keys (the run's identity — its worlds and folder — is not among them). */
export interface BenchKnobs {
  split: string
  policy: PolicyKind
  model?: string
  baseUrl?: string
  apiKeyEnv: string
  limit?: number
  limitMode?: string
  concurrency: number
  protocol: string
  seed: number
  timeoutMs: number
  maxRetries: number
  temperature?: number
  maxTokens?: number
  ragDocs: number
  prices?: string
  judgeModel?: string
  judgeBaseUrl?: string
  judgeApiKeyEnv: string
  /** Env options (JSON shape; never protocol): the gym block of the run. */
  gym?: GymOptionsJson
  bootstrap: number
  retryErrors?: boolean
  adapter?: string
  backend?: string
  qaIds?: string
  allowLost?: boolean
  via?: string
}

/** The table's fields less the older keys (moved elsewhere: a library caller writes where the knob lives now). */
const KNOB_FIELDS = BENCH_RUN_FIELDS.filter((f) => !f.movedTo)

/** A JSON object of knobs over `base` (the caller's own defaults) over the table's: unknown keys, types, choices and
 *  bounds refused by key, one line each (`where` prefixes the key). */
export function benchKnobs(input: object, where: string, base: Partial<BenchKnobs> = {}): BenchKnobs {
  return resolveFields<BenchKnobs>(KNOB_FIELDS, input, where, base as Record<string, unknown>)
}

/** Where `bench run` plays each episode: the gym's env in process, or through the gym's MCP server (`gym mcp`). */
export const VIA = ['env', 'mcp'] as const

/** via: env (default) or mcp; anything else is one line before any work. */
export function benchVia(v: string | undefined, n: Namer = keyNamer()): (typeof VIA)[number] {
  const via = v ?? 'env'
  if (!(VIA as readonly string[]).includes(via)) throw new BenchError('bench.args', `${n('via')} must be one of ${VIA.join(', ')}, got '${via}'`)
  return via as (typeof VIA)[number]
}

/** protocol: the gym's protocol names; the bench's old names are refused with the new one. */
export function benchProtocol(p: string, policy: PolicyKind | undefined, n: Namer): ProtocolName {
  if (p === 'tools') throw new BenchError('bench.args', `${n('protocol')} tools is now openai (the gym's name for native tool_calls)`)
  if (p === 'text') throw new BenchError('bench.args', `${n('protocol')} text is now hermes (the gym's name for <tool_call> tags in the text)`)
  if (p === 'search-r1') {
    if (policy === 'engine') return 'search-r1'
    throw new BenchError('bench.args', `${n('protocol')} search-r1 is spoken only by ${n('policy')} engine (a local model); use openai or hermes`)
  }
  if (!(CHAT_PROTOCOLS as readonly string[]).includes(p)) throw new BenchError('bench.args', `${n('protocol')} must be one of ${CHAT_PROTOCOLS.join(', ')}, got '${p}'`)
  return p as ProtocolName
}

/** The oracle's gym: its budgets lifted (ORACLE_GYM_OPTIONS: it proves solvability, as the gym's oracle check does)
 *  but for a budget the run gives (gym.budgets.maxTurns; the command's --max-turns is its older spelling). */
function oracleGym(gym: GymOptionsJson | null): GymOptionsJson {
  return { ...gym, budgets: { ...ORACLE_GYM_OPTIONS.budgets, ...gym?.budgets } }
}

/** The knobs' cross-field checks (each names its keys through `n`), before any world is opened. */
function checkKnobs(a: BenchKnobs, n: Namer): ProtocolName {
  const engine = a.policy === 'engine'
  const protocol = benchProtocol(a.protocol, a.policy, n)
  if (engine && a.protocol === 'openai') throw new BenchError('bench.args', `${n('policy')} engine speaks a text protocol: use ${n('protocol')} hermes or search-r1`)
  if (!engine && (a.adapter !== undefined || a.backend !== undefined)) throw new BenchError('bench.args', `${n('adapter')} and ${n('backend')} are options of ${n('policy')} engine`)
  checkRunNumbers(a)
  if (a.judgeModel && !a.judgeBaseUrl && !a.baseUrl) throw new BenchError('bench.args', `${n('judgeModel')} needs ${n('judgeBaseUrl')} (or ${n('baseUrl')} to reuse)`)
  return protocol
}

/** The run's config: the knobs checked across fields, over its worlds (the first is `world`; a pool also `worlds`). */
export function benchRunConfig(a: BenchKnobs, worldId: string, worlds: readonly string[], n: Namer = keyNamer()): BenchRunConfig {
  const protocol = checkKnobs(a, n)
  const needsModel = a.policy !== 'oracle'
  const engine = a.policy === 'engine'
  // The oracle writes the gym's hermes (text) protocol; it proves solvability, so its budgets are lifted (oracleGym).
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
    ...(a.limit !== undefined ? { limitMode: limitMode(a.limitMode, n) } : {}),
    concurrency: a.concurrency,
    seed: a.seed,
    timeoutMs: a.timeoutMs,
    maxRetries: a.maxRetries,
    temperature: a.temperature ?? null,
    maxTokens: a.maxTokens ?? null,
    ragDocs: a.ragDocs,
    prices: a.prices ? readPriceTable(a.prices) : null,
    judge: a.judgeModel ? { model: a.judgeModel, baseURL: a.judgeBaseUrl ?? a.baseUrl ?? '', apiKeyEnv: a.judgeApiKeyEnv } : null,
    gym: oracle ? oracleGym(a.gym ? checkBenchGym(a.gym) : null) : a.gym ? checkBenchGym(a.gym) : null,
    bootstrap: a.bootstrap,
    ...(engine ? { model: resolve(a.model ?? ''), adapter: a.adapter ? resolve(a.adapter) : undefined, backend: a.backend ?? 'auto' } : {}),
    ...(a.qaIds !== undefined ? { qaIds: readQaIds(a.qaIds) } : {}),
    ...(benchVia(a.via, n) === 'mcp' ? { via: 'mcp' as const } : {}),
  }
}

function limitMode(m: string | undefined, n: Namer): LimitMode {
  const v = m ?? 'stratified'
  if (!(LIMIT_MODES as readonly string[]).includes(v)) throw new BenchError('bench.args', `${n('limitMode')} must be one of ${LIMIT_MODES.join(', ')}, got '${v}'`)
  return v as LimitMode
}

/** A --qa-ids file: a JSON array of question ids (train sft's heldout.json), or an experiment's evaluation list
 *  (OUT/eval/SET.json: {set, worlds, split, ids}). */
export function readQaIds(file: string): string[] {
  const raw = readJsonFile(file, '--qa-ids file')
  const v = raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'ids' in raw ? (raw as { ids: unknown }).ids : raw
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string'))
    throw new BenchError('bench.args', `--qa-ids ${file} must hold a non-empty JSON array of question ids (or an experiment's eval/SET.json, {"ids": [...]})`)
  return v as string[]
}

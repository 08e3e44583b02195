// bench/run-fields: a bench run's knobs as one field table (infra/fields) — key, type, default, help, bounds, the
// flag of the few everyday ones and the old flags kept as aliases. Keys are BenchKnobs' names (bench/run-config), so
// the table resolves straight into what benchRunConfig takes (`bench run`'s flags and files, an experiment's benches);
// the numbers' bounds are RUN_NUMBER_BOUNDS' (bench/run), once. The run's identity (world, worlds, --bench, out) and
// quiet are the command's own flags, not config.
import { readJsonFile } from '../infra/config'
import { BenchError } from '../infra/errors'
import type { Field, FieldTable } from '../infra/fields'
import { checkGivenBudgets, refuseGymProtocol, type BudgetKeyMap, type BudgetsJson, type GymOptionsJson } from '../gym'
import { LIMIT_MODES } from './sample'
import { RUN_NUMBER_BOUNDS } from './run'

/** Gym options as command-line text: inline JSON, or a JSON file's name (the gym validates the keys, once, in runBench). */
export function gymOptionsText(v: string, name = '--gym-options'): unknown {
  if (!v.trim().startsWith('{')) return readJsonFile(v, 'gym options file')
  try {
    return JSON.parse(v)
  } catch (e) {
    throw new BenchError('bench.args', `${name} is not valid JSON: ${(e as Error).message}`)
  }
}

/** A gym block of a bench run: an object without protocol (refuseGymProtocol: the run's protocol is its own key, the
 *  policy must speak it too); `name` spells the gym key as given. */
export function checkBenchGym(raw: unknown, name = '--gym-options', protocol = '--protocol'): GymOptionsJson {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BenchError('bench.args', `${name} must be a JSON object, e.g. '{"budgets": {"maxTurns": 8}}'`)
  refuseGymProtocol(raw, (k) => (k === 'gym' ? name : protocol))
  checkGivenBudgets((raw as GymOptionsJson).budgets, 'gym.budgets', BenchError)
  return raw as GymOptionsJson
}

/** --gym-options (`bench run`, `bench funnel`): inline JSON or a JSON file, checked by checkBenchGym. */
export function parseGymOptions(v: string): GymOptionsJson {
  return checkBenchGym(gymOptionsText(v))
}

/** Type and bounds of one of RUN_NUMBER_BOUNDS' numbers, for its field. */
function bounded(k: keyof typeof RUN_NUMBER_BOUNDS): Pick<Field, 'type' | 'min' | 'max'> {
  const b = RUN_NUMBER_BOUNDS[k]
  return { type: b.int ? 'int' : 'number', min: b.lo, max: b.hi }
}

export const POLICIES = ['openai', 'oracle', 'closed-book', 'one-shot-rag', 'engine'] as const

export const BENCH_RUN_FIELDS: FieldTable = [
  { key: 'policy', type: 'enum', choices: POLICIES, default: 'openai', flag: 'policy', help: 'openai: a model behind --base-url with the gym tools; oracle: the gold path (an upper bound); closed-book: no tools; one-shot-rag: top documents in one prompt; engine: a local model folder (+ --adapter) in process' },
  { key: 'model', type: 'string', optional: true, flag: 'model', help: 'model name sent to the endpoint (policy engine: the local model folder)' },
  { key: 'baseUrl', type: 'string', optional: true, flag: 'base-url', help: 'OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (required by policy openai, closed-book, one-shot-rag)' },
  { key: 'adapter', type: 'string', optional: true, flag: 'adapter', help: 'policy engine: PEFT adapter folder on the local model folder' },
  { key: 'limit', ...bounded('limit'), optional: true, flag: 'limit', help: 'only N questions: a seeded (seed) sample stratified over type × hops, every type present from N ≥ 3' },
  { key: 'apiKeyEnv', type: 'string', default: 'OPENAI_API_KEY', aliases: ['api-key-env'], help: 'environment variable holding the API key' },
  { key: 'protocol', type: 'string', default: 'openai', aliases: ['protocol'], help: 'gym protocol: openai (native tool_calls), hermes (<tool_call> tags in the text), search-r1 (policy engine only)' },
  { key: 'backend', type: 'string', optional: true, aliases: ['backend'], help: 'policy engine: engine backend auto | native | ts | cuda (unset: auto)' },
  { key: 'temperature', ...bounded('temperature'), optional: true, aliases: ['temperature'], help: "sampling temperature sent to the endpoint (unset: the endpoint's)" },
  { key: 'maxTokens', ...bounded('maxTokens'), optional: true, aliases: ['max-tokens'], help: "max_tokens per model turn (unset: the endpoint's; model serve: 1024)" },
  { key: 'timeoutMs', ...bounded('timeoutMs'), default: 120000, aliases: ['timeout-ms'], help: 'per-request timeout' },
  { key: 'maxRetries', ...bounded('maxRetries'), default: 5, aliases: ['max-retries'], help: 'retries on 429/5xx/network/timeout' },
  { key: 'concurrency', ...bounded('concurrency'), default: 8, aliases: ['concurrency'], help: 'questions in flight' },
  { key: 'split', type: 'enum', choices: ['bench', 'train'], default: 'bench', aliases: ['split'], help: 'which questions: the held-out SearchGymBench or the training split' },
  { key: 'limitMode', type: 'enum', choices: LIMIT_MODES, default: 'stratified', aliases: ['limit-mode'], help: 'how limit picks: a stratified sample, or the first N of the split' },
  { key: 'qaIds', type: 'string', optional: true, aliases: ['qa-ids'], help: "JSON file of question ids of the split to run (train sft's heldout.json, an experiment's eval/SET.json)" },
  { key: 'gym', type: 'json', optional: true, aliases: ['gym-options'], parse: (t, name) => gymOptionsText(t, name), check: (v, _fail, name) => checkBenchGym(v, name, 'the protocol key'), help: "env options (a JSON object, or on the command line a JSON file): budgets (the episode limits: maxTurns — unset 16, policy oracle 1000, --bench the benchmark's pinned 32 —, turnsPerHop, maxResponseTokens, maxContextTokens), faults, reward, topK, access; not protocol; one key: --set gym.budgets.maxTurns=8" },
  { key: 'maxTurns', type: 'int', min: 1, max: 1000, optional: true, aliases: ['max-turns'], movedTo: 'gym.budgets.maxTurns', help: "turn limit of an episode (unset: 16; policy oracle 1000; --bench: the benchmark's pinned 32)" },
  { key: 'ragDocs', ...bounded('ragDocs'), default: 3, aliases: ['rag-docs'], help: 'one-shot-rag: documents opened and put in context' },
  { key: 'via', type: 'enum', choices: ['env', 'mcp'], default: 'env', aliases: ['via'], help: "where each episode is played: env (the gym's env in process) or mcp (through the gym's MCP server, `gym mcp --http` started for the run)" },
  { key: 'seed', ...bounded('seed'), default: 0, aliases: ['seed'], help: 'seed of the limit sample, retry jitter and bootstrap' },
  { key: 'bootstrap', ...bounded('bootstrap'), default: 1000, aliases: ['bootstrap'], help: 'bootstrap resamples for CIs' },
  { key: 'retryErrors', type: 'bool', default: false, aliases: ['retry-errors'], help: 're-run questions lost to endpoint failures' },
  { key: 'allowLost', type: 'bool', default: false, aliases: ['allow-lost'], help: 'exit 0 even when questions were lost to the endpoint (unset: exit 1 naming the cause)' },
  { key: 'prices', type: 'string', optional: true, aliases: ['prices'], help: 'JSON price table file {"model": {"input": usdPerMTok, "output": usdPerMTok}}' },
  { key: 'judgeModel', type: 'string', optional: true, aliases: ['judge-model'], help: 'LLM-as-judge model (optional)' },
  { key: 'judgeBaseUrl', type: 'string', optional: true, aliases: ['judge-base-url'], help: 'judge endpoint (unset: baseUrl)' },
  { key: 'judgeApiKeyEnv', type: 'string', default: 'OPENAI_API_KEY', aliases: ['judge-api-key-env'], help: "environment variable holding the judge's API key" },
]

/** The table's older keys of an episode limit and the gym.budgets field each now is (maxTurns → maxTurns): what a
 *  block that is a bench config (an experiment's eval block) moves the same way. */
export const BENCH_MOVED_BUDGET_KEYS: BudgetKeyMap = Object.fromEntries(
  BENCH_RUN_FIELDS.filter((f) => f.movedTo?.startsWith('gym.budgets.')).map((f) => [f.key, f.movedTo!.slice('gym.budgets.'.length) as keyof BudgetsJson]),
)

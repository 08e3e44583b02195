// world/qa/engine-profiles: the stock limits of three outside RL engines as read from their code (Search-R1 a14dc3a,
// verl b178a3c, AReaL/ASearcher 813e804; file:line on every number), the launch settings that carry a set of limits, and
// batch sizes that neither assert nor drop validation rows. Data and arithmetic only: the oracle run through these
// limits (agent/oracle/profile-check) and the export that writes the settings (world/qa/export-trainers) use it.

export const ENGINE_PROFILE_NAMES = ['search-r1', 'verl', 'asearcher'] as const
export type EngineProfileName = (typeof ENGINE_PROFILE_NAMES)[number]

/** The limits that decide whether a question can be solved inside an engine's rollout. */
export interface EngineLimits {
  /** Tool calls one episode may make (the engine's turn limit less the answer turn where it counts that one). */
  toolCalls: number
  /** Documents per search. */
  topk: number
  /** Cut of one tool observation: its unit, size and which side is kept. */
  obs: number
  /** Per-document cut in characters before the documents are joined (0: none). */
  docChars: number
  /** Tokens the whole episode may hold (prompt + turns + observations, as the engine counts them). */
  context: number
  /** Whether the model is offered an access tool. */
  access: boolean
}

export interface EngineProfile {
  name: EngineProfileName
  /** How `obs` counts and where a longer observation is cut. */
  obsUnit: 'tokens' | 'chars'
  obsKeep: 'head' | 'middle'
  stock: EngineLimits
  /** Where each stock number comes from (file:line at the version read). */
  sources: Record<keyof EngineLimits, string>
  /** How the observation is rendered from the documents (the engine's own format string). */
  render: string
}

export const ENGINE_PROFILES: Record<EngineProfileName, EngineProfile> = {
  'search-r1': {
    name: 'search-r1',
    obsUnit: 'tokens',
    obsKeep: 'head',
    stock: { toolCalls: 2, topk: 3, obs: 500, docChars: 0, context: 4096, access: false },
    sources: {
      toolCalls: 'train_grpo.sh:79 max_turns=2; search_r1/llm_agent/generation.py:234 one search per turn, then a final answer rollout (:270)',
      topk: 'train_grpo.sh:81 retriever.topk=3',
      obs: 'train_grpo.sh:39 data.max_obs_length=500; search_r1/llm_agent/generation.py:87-89 cuts the observation ids to it',
      docChars: 'search_r1/llm_agent/generation.py:460-467 whole document contents',
      context: 'train_grpo.sh:36 data.max_prompt_length=4096 (the rolling state; the formula at train_grpo.sh:27)',
      access: 'search_r1/llm_agent/generation.py: <search> and <answer> only',
    },
    render: 'search_r1/llm_agent/generation.py:460-467 "Doc {i}(Title: {title}) {text}\\n", wrapped in <information>…</information>',
  },
  verl: {
    name: 'verl',
    obsUnit: 'chars',
    obsKeep: 'middle',
    stock: { toolCalls: 1, topk: 3, obs: 256, docChars: 0, context: 3000, access: false },
    sources: {
      toolCalls:
        'examples/sglang_multiturn/config/search_multiturn_grpo.yaml:22 and search_r1_like/run_qwen2.5-3b_instruct_search_multiturn.sh:49 max_assistant_turns=2 (verl/experimental/agent_loop/tool_agent_loop.py:256: the answer turn counts)',
      topk: 'verl/tools/search_tool.py:178 config.get("topk", 3)',
      obs: 'verl/trainer/config/rollout/rollout.yaml:175,178 max_tool_response_length 256, middle; tool_agent_loop.py:445-452',
      docChars: 'verl/tools/utils/search_r1_like_utils.py:130-138 whole document contents',
      context: 'search_r1_like/run_qwen2.5-3b_instruct_search_multiturn.sh:26 data.max_response_length=3000 (tool_agent_loop.py:254,360: turns and tool outputs share it)',
      access: 'verl/tools/search_tool.py: a search tool only',
    },
    render: 'verl/tools/utils/search_r1_like_utils.py:130-138,222-223 "Doc {i} (Title: {title})\\n{text}" joined by "\\n\\n", queries by "\\n---\\n", as json.dumps({"result": …})',
  },
  asearcher: {
    name: 'asearcher',
    obsUnit: 'chars',
    obsKeep: 'head',
    stock: { toolCalls: 15, topk: 5, obs: 0, docChars: 5000, context: 8000 - 1024, access: false },
    sources: {
      toolCalls:
        'ASearcher/configs/asearcher_local.yaml:153 max_turns: 32; ASearcher/train/asearcher.py:97 counts agent.num_turns, which is every generated turn (search_agent.py:84-85 llm_gen_count): a tool call takes its turn and the summary turn after its result (:102-117, stops at </think>), the answer one more -> 15 tool calls',
      topk: 'ASearcher/configs/asearcher_local.yaml:157 topk: 5',
      obs: 'ASearcher/train/search_agent.py:153 no cut of the joined observation',
      docChars: 'ASearcher/train/search_agent.py:153 doc[:5000]',
      context:
        'ASearcher/configs/asearcher_local.yaml:43 actor.mb_spec.max_tokens_per_mb 8000 -> asearcher.py:383 max_tokens; asearcher.py:109 stops when input + max_new_tokens (yaml:30, 1024) >= it',
      access: 'ASearcher/train/asearcher.py:70 search_only=True (the local config does not change it)',
    },
    render: 'ASearcher/train/search_agent.py:153 "[Doc {i}]({url}):\\n" + doc[:5000], joined by "\\n\\n" in <information>…</information>',
  },
}

export function engineProfile(name: string): EngineProfile {
  const p = (ENGINE_PROFILES as Record<string, EngineProfile | undefined>)[name]
  if (!p || !Object.hasOwn(ENGINE_PROFILES, name)) throw new Error(`unknown engine profile '${name}' (known: ${ENGINE_PROFILE_NAMES.join(', ')})`)
  return p
}

const LIMIT_KEYS = ['toolCalls', 'topk', 'obs', 'docChars', 'context', 'access'] as const

/** Stock limits with `key=value` overrides (`--set toolCalls=8 --set obs=2048`); a bad key or value throws. */
export function limitsWith(base: EngineLimits, sets: string[]): EngineLimits {
  const out = { ...base }
  for (const s of sets) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(s)
    if (!m || !(LIMIT_KEYS as readonly string[]).includes(m[1])) throw new Error(`--set wants key=value with a key among ${LIMIT_KEYS.join(', ')}; got '${s}'`)
    const key = m[1] as (typeof LIMIT_KEYS)[number]
    if (key === 'access') {
      if (m[2] !== 'true' && m[2] !== 'false') throw new Error(`--set access= wants true or false, got '${m[2]}'`)
      out.access = m[2] === 'true'
    } else {
      const n = Number(m[2])
      if (!Number.isInteger(n) || n < 0 || n > 10_000_000) throw new Error(`--set ${key}= wants an integer in [0, 10000000], got '${m[2]}'`)
      if ((key === 'topk' || key === 'toolCalls' || key === 'context') && n < 1) throw new Error(`--set ${key}= must be at least 1`)
      out[key] = n
    }
  }
  return out
}

/** Batch sizes for row counts: training batches never exceed the pool (drop_last would leave zero batches and the
 * trainer asserts), validation batches divide the bench exactly (Search-R1 drops the last partial one). */
export interface BatchSizes {
  train: number
  val: number
  miniBatch: number
  microBatch: number
}

/** Largest power of two ≤ min(cap, n) (n ≥ 1). */
const pow2Below = (n: number, cap: number) => {
  let b = 1
  while (b * 2 <= Math.min(n, cap)) b *= 2
  return b
}

/** The validation batch: the bench in one batch up to `cap` rows, else its largest divisor ≤ cap (drop_last drops 0). */
export function validationBatch(rows: number, cap = 1024): number {
  if (rows <= cap) return rows
  for (let d = cap; d >= 1; d--) if (rows % d === 0) return d
  return 1
}

export function batchSizes(profile: EngineProfileName, trainRows: number, benchRows: number): BatchSizes {
  if (trainRows < 1) throw new Error('no training rows to export')
  // The engines' stock training batches: Search-R1 train_grpo.sh:34 512, verl run script :23 512, ASearcher yaml:108 128.
  const stock = profile === 'asearcher' ? 128 : 512
  const train = pow2Below(trainRows, stock)
  const miniBatch = Math.max(1, Math.min(256, train / 2 >= 1 ? train / 2 : 1))
  return { train, val: validationBatch(Math.max(1, benchRows)), miniBatch, microBatch: Math.min(8, miniBatch) }
}

/** The trainer flags that carry limits and batch sizes (added to the launch snippet). */
export function launchFlags(profile: EngineProfileName, l: EngineLimits, b: BatchSizes): string[] {
  if (profile === 'search-r1') {
    // train_grpo.sh:27: max_prompt_length = max_start_length + max_response_length * (max_turns - 1) + max_obs_length * max_turns
    return [
      `data.train_batch_size=${b.train}`,
      `data.val_batch_size=${b.val}`,
      `actor_rollout_ref.actor.ppo_mini_batch_size=${b.miniBatch}`,
      `actor_rollout_ref.actor.ppo_micro_batch_size=${b.microBatch}`,
      `max_turns=${l.toolCalls}`,
      `data.max_obs_length=${l.obs}`,
      `data.max_prompt_length=${l.context}`,
      `retriever.topk=${l.topk}`,
    ]
  }
  if (profile === 'verl')
    return [
      `data.train_batch_size=${b.train}`,
      `data.val_batch_size=${b.val}`,
      `actor_rollout_ref.actor.ppo_mini_batch_size=${b.miniBatch}`,
      `actor_rollout_ref.rollout.multi_turn.max_assistant_turns=${l.toolCalls + 1}`,
      `actor_rollout_ref.rollout.multi_turn.max_tool_response_length=${l.obs}`,
      `data.max_response_length=${l.context}`,
      // run_qwen2.5-3b_instruct_search_multiturn.sh:43 max_model_len=15000 must hold prompt (4,096, :25) + response.
      `actor_rollout_ref.rollout.max_model_len=${Math.max(15000, l.context + 4096)}`,
    ]
  return [
    `train_dataset.batch_size=${b.train}`,
    // Two generated turns per tool call (the call, then the summary turn after its result) and the answer's.
    `max_turns=${2 * l.toolCalls + 2}`,
    `topk=${l.topk}`,
    `actor.mb_spec.max_tokens_per_mb=${l.context + 1024}`,
  ]
}

/** What the export learns from running the oracle through an engine's limits (agent/oracle/profile-check, handed in by
 * the root CLI): the limits to ship and which questions are solvable under them. */
export interface ExportTuning {
  profile: EngineProfileName
  /** The /retrieve unit the launch script serves and the check read through. */
  unit: 'page' | 'passage'
  stock: { limits: EngineLimits; solved: number; total: number }
  shipped: { limits: EngineLimits; solved: number; total: number }
  /** Ids of the questions solvable under the shipped limits. */
  solvable: Set<string>
}

/** Runs the oracle for an export: (world folder, profile, every question to export) → tuning. */
export type ExportTuner = (dir: string, profile: EngineProfileName, qas: import('../types').Qa[], unit?: 'page' | 'passage') => Promise<ExportTuning>

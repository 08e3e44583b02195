// world/qa/engines/verl: verl (b178a3c) as an engine profile — its stock limits (file:line on every number), its
// observation (json.dumps({"result": …}) of "Doc i (Title: …)" blocks, cut to max_tool_response_length characters in
// the middle), its tool-agent prompt and rows (tools_kwargs.search.create_kwargs, data_source `searchR1_*`), its tool
// configs (search_tool_config.yaml; the whole gym as a verl tool: searchgym_verl_tool.py, launch-verl-gym.sh), its
// launch flags and scripts (resume_mode / resume_from_path between phases).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../../types'
import { I32, I64, S, STRUCT, writeParquet } from '../parquet'
import { verlGymToolConfig, verlGymToolPy } from '../verl-gym-tool'
import { curriculumHead, curriculumPhases, inlineFlags, serveLine, serveUnitFlag, snippetFlags, snippetHead } from './launch'
import { observationText, type EngineProfile, type WorldIdentity } from './profile'
import { accepted, GROUND_TRUTH, PROMPT, REWARD_MODEL } from './rows'
import { SEARCH_R1_DATA_SOURCE } from './search-r1'

/** verl's default reward routes `searchR1_<dataset>` names to its Search-R1-style exact match. */
export const VERL_DATA_SOURCE = `searchR1_${SEARCH_R1_DATA_SOURCE}`

/** verl's tool-agent conversation: the search tool is offered by the chat template (hermes tool calls). */
export function verlPrompt(question: string): { role: string; content: string }[] {
  return [
    { role: 'system', content: 'You are a careful research assistant who checks facts with the search tool before answering.' },
    {
      role: 'user',
      content:
        'Find the answer to the question below about a made-up world by calling the search tool as often as you need; think between <think> and </think> before each call. ' +
        `When you are sure, reply with just the answer in the answer tags, for instance <answer> Port Ellery </answer>. Question: ${question}`,
    },
  ]
}

/** verl's multi-turn tool agent: agent_name, tools_kwargs.search.create_kwargs, a data_source its reward accepts. */
export async function writeVerlParquet(path: string, qas: Qa[], split: string, id: WorldIdentity): Promise<void> {
  await writeParquet(
    path,
    [
      { name: 'data_source', data: qas.map(() => VERL_DATA_SOURCE) },
      { name: 'agent_name', data: qas.map(() => 'tool_agent') },
      { name: 'prompt', data: qas.map((q) => verlPrompt(q.question)) },
      { name: 'ability', data: qas.map(() => 'fact-reasoning') },
      { name: 'reward_model', data: qas.map((q) => ({ style: 'rule', ground_truth: { target: accepted(q) } })) },
      {
        name: 'extra_info',
        data: qas.map((q, i) => ({
          index: BigInt(i),
          need_tools_kwargs: true,
          question: q.question,
          split,
          tools_kwargs: { search: { create_kwargs: { ground_truth: { target: accepted(q) }, question: q.question, data_source: VERL_DATA_SOURCE, qa_id: q.id } } },
          qa_id: q.id,
          world: id.world,
          world_hash: id.hash,
          type: q.type,
          hops: q.hops,
        })),
      },
    ],
    [
      S('data_source'),
      S('agent_name'),
      ...PROMPT,
      S('ability'),
      ...REWARD_MODEL,
      STRUCT('extra_info', 10),
      I64('index'),
      { name: 'need_tools_kwargs', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
      S('question'),
      S('split'),
      STRUCT('tools_kwargs', 1),
      STRUCT('search', 1),
      STRUCT('create_kwargs', 4),
      ...GROUND_TRUTH,
      S('question'),
      S('data_source'),
      S('qa_id'),
      S('qa_id'),
      S('world'),
      S('world_hash'),
      S('type'),
      I32('hops'),
    ],
  )
}

/** The verl tool config: verl's SearchTool posting to the gym server's /retrieve. */
export function verlToolConfig(retrieveUrl: string, topk = 3): string {
  return `# verl tool config for a SearchGym.ts world (written by searchgym world export --format verl).
# verl's SearchTool posts {"queries", "topk", "return_scores": true} to retrieval_service_url; serve the world with
#   npx searchgym gym serve WORLD --host 127.0.0.1 --port 8000
# Tool calls are parsed as hermes: launch with actor_rollout_ref.rollout.multi_turn.format=hermes (see launch-verl.sh).
tools:
  - class_name: verl.tools.search_tool.SearchTool
    config:
      retrieval_service_url: ${retrieveUrl}
      num_workers: 120
      rate_limit: 120
      timeout: 30
      topk: ${topk}
      type: native
    tool_schema:
      type: function
      function:
        name: search
        description: Search the world's encyclopedia; returns the best matching articles for each query.
        parameters:
          type: object
          properties:
            query_list:
              type: array
              item:
                type: string
              description: One or more complete search queries.
          required:
            - query_list
`
}

/** verl with the gym's own tools and reward (searchgym_verl_tool.py). */
function verlGymLaunch(outDir: string): string {
  return `#!/usr/bin/env bash
# verl with the whole gym (search + access on one env per trajectory, the gym's F1 as reward), written by searchgym
# world export --format verl; see docs/train-elsewhere.md. Limits and batch sizes: as in launch-verl.sh.
set -euo pipefail
WORLD=\${WORLD:?set WORLD to the world folder}
DATA=\${DATA:-${outDir}}
npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port 8000 &
export PYTHONPATH="$DATA\${PYTHONPATH:+:$PYTHONPATH}"
python3 -m verl.trainer.main_ppo \\
  --config-path="$PWD/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" data.return_raw_chat=True \\
  actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes \\
  actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/searchgym_tool_config.yaml" \\
  custom_reward_function.path="$DATA/searchgym_verl_tool.py" custom_reward_function.name=compute_score \\
  "$@"
`
}

/** Characters one character takes inside a JSON string. */
const esc = (c: string) => JSON.stringify(c).length - 2

export const verl: EngineProfile = {
  name: 'verl',
  title: 'verl',
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
  // search_r1_like/run_qwen2.5-3b_instruct_search_multiturn.sh:23 data.train_batch_size=512.
  stockTrainBatch: 512,
  ladder: {
    kind: 'turns-obs',
    turns: [2, 3, 4, 6, 8, 10, 12, 16, 24],
    obs: [256, 1024, 2048, 4096, 8192, 16384],
    // The turns' answers and the tool outputs (characters / 3 as tokens) share max_response_length.
    context: (l) => Math.max(verl.stock.context, Math.ceil(l.toolCalls * (l.obs / 3 + 200)) + 500),
  },
  // The system and user messages' contents, one after the other.
  prompt: (question) =>
    verlPrompt(question)
      .map((m) => m.content)
      .join('\n'),
  renderObservation(docs) {
    const o = observationText()
    const blocks: ReturnType<EngineProfile['renderObservation']>['blocks'] = []
    docs.forEach((d, i) => {
      const lines = d.contents.split('\n')
      if (i > 0) o.push('\n\n')
      const head = o.push(`Doc ${i + 1} (Title: ${lines[0]})\n`)
      const body = o.push(lines.slice(1).join('\n'))
      blocks.push({ url: d.url, title: lines[0], head, body })
    })
    return { text: o.text(), blocks }
  },
  cutObservation(text, l, count) {
    // search_r1_like_utils.py:223 json.dumps({"result": text}); tool_agent_loop.py:445-452 cuts that string's characters.
    const shown = 12 + [...text].reduce((a, c) => a + esc(c), 0) + 2
    if (!(l.obs > 0 && shown > l.obs)) return { kept: [[0, text.length]], tokens: count('x'.repeat(shown)) }
    const half = Math.floor(l.obs / 2)
    let h = half - 12
    let i = 0
    while (i < text.length && h - esc(text[i]) >= 0) h -= esc(text[i++])
    let t = half - 2
    let j = text.length
    while (j > i && t - esc(text[j - 1]) >= 0) t -= esc(text[--j])
    return {
      kept: [
        [0, i],
        [j, text.length],
      ],
      tokens: count('x'.repeat(2 * half + 17)),
    }
  },
  launchFlags: (l, b) => [
    `data.train_batch_size=${b.train}`,
    `data.val_batch_size=${b.val}`,
    `actor_rollout_ref.actor.ppo_mini_batch_size=${b.miniBatch}`,
    `actor_rollout_ref.rollout.multi_turn.max_assistant_turns=${l.toolCalls + 1}`,
    `actor_rollout_ref.rollout.multi_turn.max_tool_response_length=${l.obs}`,
    `data.max_response_length=${l.context}`,
    // run_qwen2.5-3b_instruct_search_multiturn.sh:43 max_model_len=15000 must hold prompt (4,096, :25) + response.
    `actor_rollout_ref.rollout.max_model_len=${Math.max(15000, l.context + 4096)}`,
  ],
  dataExt: 'parquet',
  writeRows: (path, qas, split, id) => writeVerlParquet(path, qas, split, id),
  writeExtras(outDir, limits) {
    writeFileSync(join(outDir, 'search_tool_config.yaml'), verlToolConfig('http://127.0.0.1:8000/retrieve', limits?.topk ?? 3))
    // The whole gym inside verl's agent loop: search + access on one env per trajectory, the gym's F1 as reward.
    writeFileSync(join(outDir, 'searchgym_verl_tool.py'), verlGymToolPy())
    writeFileSync(join(outDir, 'searchgym_tool_config.yaml'), verlGymToolConfig('http://127.0.0.1:8000'))
    writeFileSync(join(outDir, 'launch-verl-gym.sh'), verlGymLaunch(outDir), { mode: 0o755 })
    return { 'search_tool_config.yaml': 0, 'searchgym_verl_tool.py': 0, 'searchgym_tool_config.yaml': 0, 'launch-verl-gym.sh': 0 }
  },
  phaseData: () => [],
  launchSnippet: (outDir, flags, unit) => `${snippetHead('verl', outDir)}${serveLine(8000, serveUnitFlag(unit))}
# In a verl (b178a3c) checkout, its examples/sglang_multiturn/search_r1_like run script with these keys changed:
python3 -m verl.trainer.main_ppo \\
  --config-path="$PWD/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" data.return_raw_chat=True \\
  actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes \\
  actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/search_tool_config.yaml" \\
${snippetFlags(flags)}  "$@"
`,
  curriculumLaunch(c, outDir, flags) {
    const lines = [...curriculumHead('verl', c, outDir), serveLine(8000)]
    for (const p of curriculumPhases(c, 'parquet')) {
      // verl b178a3c verl/trainer/config/ppo_trainer.yaml:172-175 resume_mode / resume_from_path; :132 total_training_steps.
      const resume = p.i === 0 ? ' trainer.resume_mode=disable' : ` trainer.resume_mode=resume_path trainer.resume_from_path="$CKPT/global_step_${p.done}"`
      const steps = p.until !== undefined ? ` trainer.total_training_steps=${p.until}` : ''
      lines.push(
        p.comment,
        `python3 -m verl.trainer.main_ppo --config-path="$PWD/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo data.train_files="[${p.data.map((d) => `'${d}'`).join(',')}]" data.val_files="$DATA/test.parquet" data.return_raw_chat=True actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/search_tool_config.yaml" trainer.default_local_dir="$CKPT"${resume}${steps}${inlineFlags(flags)} "$@"`,
      )
    }
    return lines.join('\n') + '\n'
  },
}

// world/qa/engines/verl: verl (b178a3c) as an engine profile — its stock limits (file:line on every number), its
// observation (json.dumps({"result": …}) of "Doc i (Title: …)" blocks, cut to max_tool_response_length characters in
// the middle), its tool-agent prompt and rows (tools_kwargs.search.create_kwargs, data_source `searchR1_*`), its tool
// configs (search_tool_config.yaml; the whole gym as a verl tool: searchgym_verl_tool.py, launch-verl-gym.sh), its
// launch flags and scripts (a later phase resumes the one before: resume_mode / resume_from_path, the total_epochs
// arithmetic, phase 1's dataloader state moved aside; every key a GRPO run needs written out with its default's file:line).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../../types'
import { I32, I64, S, STRUCT, writeParquet } from '../parquet'
import { verlGymToolConfig, verlGymToolPy } from '../verl-gym-tool'
import { curriculumPhases, flagArray, hydraFiles, keyArray, launchPreamble, rerunMarker, serveUnitFlag, type LaunchPlan } from './launch'
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
#   searchgym gym serve WORLD --host 127.0.0.1 --port 8000 (launch-verl.sh does, on $PORT, with a copy of this file)
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

const HEADER = [
  'verl (b178a3c): run it where verl imports; VERL_DIR (default: the current folder) is its checkout, for the',
  'examples/sglang_multiturn/config it starts from. Limits and batch sizes: from engine-profile.json.',
]

/**
 * VERL_DIR made absolute and checked before the gym starts. The example config finds ppo_trainer through
 * `hydra.searchpath: [file://verl/trainer/config]` (examples/sglang_multiturn/config/search_multiturn_grpo.yaml:1-7), a
 * path Hydra resolves against the folder main_ppo runs in — so from any folder but verl's root the config is not found.
 * The scripts pass the search path as an absolute one (BASE below), built from this VERL_DIR.
 */
const verlSetup = (script: string) => `VD=\${VERL_DIR:-$PWD}
VERL_DIR=$(cd "$VD" 2>/dev/null && pwd) || { echo "${script}: VERL_DIR=$VD is not a folder" >&2; exit 2; }
if [ ! -f "$VERL_DIR/examples/sglang_multiturn/config/search_multiturn_grpo.yaml" ] || [ ! -f "$VERL_DIR/verl/trainer/config/ppo_trainer.yaml" ]; then
  echo "${script}: VERL_DIR=$VERL_DIR is not a verl checkout (no examples/sglang_multiturn/config/search_multiturn_grpo.yaml and verl/trainer/config/ppo_trainer.yaml under it): set VERL_DIR to verl's checkout" >&2
  exit 2
fi
`

/** The stock run's length: trainer.total_epochs 30 (verl/trainer/config/ppo_trainer.yaml:129). */
const STOCK_EPOCHS = 30
/** Batches per epoch (ray_trainer.py:348-354 drop_last=True) times the stock epochs. */
const stockSteps = (rows: number, batch: number) => Math.max(1, Math.floor(rows / batch)) * STOCK_EPOCHS

/** The GRPO keys (each with the default it overrides), the tool config for this run's port, and the limits. */
function verlArrays(plan: LaunchPlan, toolConfig: string): string {
  return (
    `# The tool config names the gym's address; a copy for this run's port (the exported one says 8000).
TOOL_CONFIG="$CKPT/${toolConfig}"
sed "s#http://127.0.0.1:8000#http://127.0.0.1:$PORT#" "$DATA/${toolConfig}" > "$TOOL_CONFIG"
` +
    keyArray('BASE', [
      ['--config-path="$VERL_DIR/examples/sglang_multiturn/config"', ''],
      ['--config-name=search_multiturn_grpo', 'ppo_trainer + multi-turn sglang (search_multiturn_grpo.yaml:9-23); it sets no estimator'],
      ['"hydra.searchpath=[\'file://$VERL_DIR/verl/trainer/config\']"', 'search_multiturn_grpo.yaml:1-3 names it relative to the current folder; absolute, any folder works'],
      ['data.val_files="$DATA/test.parquet"', ''],
      ['data.return_raw_chat=True', ''],
      ['actor_rollout_ref.model.path="$MODEL"', 'default ~/models/deepseek-llm-7b-chat, verl/trainer/config/model/hf_model.yaml:10'],
      ['actor_rollout_ref.rollout.multi_turn.enable=True', ''],
      ['actor_rollout_ref.rollout.multi_turn.format=hermes', 'default hermes rollout.yaml:199, qwen in search_multiturn_grpo.yaml:23'],
      ['actor_rollout_ref.rollout.multi_turn.tool_config_path="$TOOL_CONFIG"', ''],
      ['algorithm.adv_estimator=grpo', 'default gae (and a critic), verl/trainer/config/ppo_trainer.yaml:81'],
      ['actor_rollout_ref.rollout.n=5', 'the group: responses per prompt; default 1, verl/trainer/config/rollout/rollout.yaml:108; run_qwen2.5-3b_instruct_search_multiturn.sh:48'],
      ['actor_rollout_ref.actor.use_kl_loss=True', 'default false, verl/trainer/config/actor/actor.yaml:95'],
      ['actor_rollout_ref.actor.kl_loss_coef=0.001', 'actor.yaml:105'],
      ['actor_rollout_ref.actor.kl_loss_type=low_var_kl', 'actor.yaml:108'],
      ['algorithm.use_kl_in_reward=False', 'ppo_trainer.yaml:87'],
      ['trainer.default_local_dir="$CKPT"', 'default checkpoints/${project_name}/${experiment_name} in the current folder, ppo_trainer.yaml:196'],
    ]) +
    '# Limits and batches (engine-profile.json): max_assistant_turns (null, rollout.yaml:163; 2 in search_multiturn_grpo.yaml:22),\n' +
    '# max_tool_response_length (256, rollout.yaml:175), tool_response_truncate_side (middle, rollout.yaml:178), data.max_response_length\n' +
    '# (1024, search_multiturn_grpo.yaml:11), max_model_len (null, rollout.yaml:65), data.train_batch_size (256, search_multiturn_grpo.yaml:12).\n' +
    flagArray('LIMITS', plan.flags)
  )
}

/**
 * One run that ends at global step `until` and saves it: the step count is what ends fit() (is_last_step,
 * ray_trainer.py:1387,1710-1715) and the last step always saves when save_freq > 0 (:1645-1646). A resumed run starts
 * its epoch loop at global_steps // len(loader) (:1326, :1358): total_epochs = until (>= that start + the epochs this
 * run needs, for any loader length >= 1) keeps the epochs from ending the run first (the stock 30 would train 0 steps
 * after a resume at step 100 with 3 batches per epoch).
 */
const stepKeys = (until: number, steps: number) => [`trainer.total_training_steps=${until}`, `trainer.total_epochs=${until}`, `trainer.save_freq=${steps}`]

/** verl with the gym's own tools and reward (searchgym_verl_tool.py), with the same limits as launch-verl.sh. */
function verlGymLaunch(plan: LaunchPlan): string {
  const steps = stockSteps(plan.trainRows, plan.batches.train)
  const script = 'launch-verl-gym.sh'
  const header = ['verl with the whole gym (search + access on one env per trajectory, the gym\'s F1 as reward).', ...HEADER]
  return `${launchPreamble({ script, header, engine: 'verl-gym', serveArgs: serveUnitFlag(plan.unit), setup: verlSetup(script), worldHash: plan.worldHash })}export PYTHONPATH="$DATA\${PYTHONPATH:+:$PYTHONPATH}"
${verlArrays(plan, 'searchgym_tool_config.yaml')}# ${plan.trainRows} rows, ${Math.floor(plan.trainRows / plan.batches.train)} batches of ${plan.batches.train} per epoch, ${STOCK_EPOCHS} epochs (the stock count) = ${steps} steps.
# resume_mode auto (ppo_trainer.yaml:172): a rerun continues from the latest save under $CKPT. The reward is the gym's
# F1 (compute_score); reward_kwargs reach it as keyword arguments (verl/trainer/ppo/reward.py:92; gym_url, 8000 by default).
python3 -m verl.trainer.main_ppo "\${BASE[@]}" \\
  data.train_files="$DATA/train.parquet" ${stepKeys(steps, steps).join(' ')} \\
  custom_reward_function.path="$DATA/searchgym_verl_tool.py" custom_reward_function.name=compute_score \\
  +custom_reward_function.reward_kwargs.gym_url="http://127.0.0.1:$PORT" \\
  "\${LIMITS[@]}" "$@"
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
    'actor_rollout_ref.rollout.multi_turn.tool_response_truncate_side=middle',
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
    return { 'search_tool_config.yaml': 0, 'searchgym_verl_tool.py': 0, 'searchgym_tool_config.yaml': 0 }
  },
  phaseData: () => [],
  launchSnippet(plan) {
    const steps = stockSteps(plan.trainRows, plan.batches.train)
    const script = 'launch-verl.sh'
    return `${launchPreamble({ script, header: HEADER, engine: 'verl', serveArgs: serveUnitFlag(plan.unit), setup: verlSetup(script), worldHash: plan.worldHash })}${verlArrays(plan, 'search_tool_config.yaml')}# ${plan.trainRows} rows, ${Math.floor(plan.trainRows / plan.batches.train)} batches of ${plan.batches.train} per epoch, ${STOCK_EPOCHS} epochs (the stock count) = ${steps} steps.
# resume_mode auto (ppo_trainer.yaml:172): a rerun continues from the latest save under $CKPT.
python3 -m verl.trainer.main_ppo "\${BASE[@]}" \\
  data.train_files="$DATA/train.parquet" ${stepKeys(steps, steps).join(' ')} \\
  "\${LIMITS[@]}" "$@"
`
  },
  extraLaunches: (plan) => ({ 'launch-verl-gym.sh': verlGymLaunch(plan) }),
  curriculumLaunch(c, plan) {
    const name = `launch-verl-${c.name}.sh`
    const lines = [
      launchPreamble({
        script: name,
        header: [...HEADER, `Curriculum '${c.name}': phase k trains on stage files 1..k and resumes phase k-1's last save (weights and optimizer).`],
        engine: 'verl',
        serveArgs: serveUnitFlag(plan.unit),
        setup: verlSetup(name),
        worldHash: plan.worldHash,
      }).trimEnd(),
      verlArrays(plan, 'search_tool_config.yaml').trimEnd(),
      rerunMarker(name).trimEnd(),
      '# The newest save of this run: verl\'s own record (ray_trainer.py:991-995), 0 when there is none or it is not ours.',
      'saved_step() { if [ "$RESUMABLE" = 1 ] && [ -f "$CKPT/latest_checkpointed_iteration.txt" ]; then cat "$CKPT/latest_checkpointed_iteration.txt"; else echo 0; fi; }',
    ]
    for (const p of curriculumPhases(c, 'parquet', plan.phaseRows, (rows) => stockSteps(rows, plan.batches.train))) {
      const last = `$CKPT/global_step_${p.until}`
      lines.push(
        `${p.comment}; ${Math.floor(p.rows / plan.batches.train)} batches of ${plan.batches.train} per epoch; global steps ${p.done + 1}..${p.until}`,
        'S=$(saved_step)',
        `if [ "$S" -ge ${p.until} ]; then`,
        `  echo "${name}: phase ${p.i + 1} already trained (global step $S saved under $CKPT): skipped" >&2`,
        'else',
        // A save of this phase: continue from the newest (resume_mode auto: latest_checkpointed_iteration.txt, ray_trainer.py:1001-1011).
        `  if [ "$S" -gt ${p.done} ]; then`,
        '    RESUME=(trainer.resume_mode=auto)',
      )
      if (p.i === 0) {
        // ppo_trainer.yaml:172: auto would pick up an older run under $CKPT; nothing of ours saved yet: start fresh.
        lines.push('  else', '    RESUME=(trainer.resume_mode=disable)', '  fi')
      } else {
        // _load_checkpoint (ray_trainer.py:1047-1050) restores {path}/data.pt into THIS run's train loader: the
        // previous phase's sampler position on a different dataset. Moved aside, the loader starts fresh (:1052).
        const from = `$CKPT/global_step_${p.done}`
        lines.push(
          '  else',
          `    if [ -f "${from}/data.pt" ]; then mv "${from}/data.pt" "${from}/data.pt.phase${p.i}"; fi`,
          // ppo_trainer.yaml:172,175; the global step from the folder's name (ray_trainer.py:1028).
          `    RESUME=(trainer.resume_mode=resume_path "trainer.resume_from_path=${from}")`,
          '  fi',
        )
      }
      lines.push(
        `  python3 -m verl.trainer.main_ppo "\${BASE[@]}" data.train_files=${hydraFiles(p.data)} \\`,
        `    "\${RESUME[@]}" ${stepKeys(p.until, p.steps).join(' ')} \\`,
        `    "\${LIMITS[@]}" "$@"`,
        `  [ -d "${last}/actor" ] || { echo "${name}: phase ${p.i + 1} ended without its last save, ${last}/actor" >&2; exit 1; }`,
        '  RESUMABLE=1',
        'fi',
      )
    }
    return lines.join('\n') + '\n'
  },
}

// world/qa/engines/search-r1: Search-R1 (a14dc3a) as an engine profile — its stock limits (file:line on every number),
// its observation (<information> with "Doc i(Title: …)" lines, cut to max_obs_length tokens, head kept), its prompt,
// its rows (train/test.parquet, data_source from its fixed list, one `<answer> … </answer>` example in the prompt),
// its launch flags and scripts (no resume: a later phase starts from the actor the phase before saved; every key a GRPO
// run needs written out, with the file:line of the default it overrides).
import type { Qa } from '../../types'
import { I32, I64, S, STRLIST, STRUCT, writeParquet } from '../parquet'
import { curriculumPhases, flagArray, hydraFiles, keyArray, launchPreamble, rerunMarker, serveUnitFlag } from './launch'
import { observationText, type EngineProfile, type WorldIdentity } from './profile'
import { accepted, PROMPT, REWARD_MODEL } from './rows'

/** Search-R1's main_ppo accepts only nq, triviaqa, popqa, hotpotqa, 2wikimultihopqa, musique, bamboogle; hotpotqa is the
 * multi-hop one its exact-match reward handles like any other. */
export const SEARCH_R1_DATA_SOURCE = 'hotpotqa'

/** Search-R1's instruction, in this project's own words. Its reward takes the last `<answer>` match of prompt +
 * response and gives nothing unless there are at least two, so the prompt holds exactly one example pair. */
export function searchR1Prompt(question: string): string {
  return (
    'You are answering a question about a made-up world whose encyclopedia you can search. ' +
    'Each time new material arrives, first think it over between <think> and </think>. ' +
    'When something is missing, write a query as <search> your query </search>; the best matching articles are returned between <information> and </information>. ' +
    'Search as often as you need. Once you know the answer, reply with just the answer in the answer tags and nothing else, ' +
    `for instance <answer> Port Ellery </answer>. Question: ${question}\n`
  )
}

/** Search-R1 (and the veRL layout it is built on): one row per question. */
export async function writeSearchR1Parquet(path: string, qas: Qa[], split: string, id: WorldIdentity): Promise<void> {
  await writeParquet(
    path,
    [
      { name: 'id', data: qas.map((q) => q.id) },
      { name: 'question', data: qas.map((q) => q.question) },
      { name: 'golden_answers', data: qas.map(accepted) },
      { name: 'data_source', data: qas.map(() => SEARCH_R1_DATA_SOURCE) },
      { name: 'prompt', data: qas.map((q) => [{ role: 'user', content: searchR1Prompt(q.question) }]) },
      { name: 'ability', data: qas.map(() => 'fact-reasoning') },
      { name: 'reward_model', data: qas.map((q) => ({ style: 'rule', ground_truth: { target: accepted(q) } })) },
      {
        name: 'extra_info',
        data: qas.map((q, i) => ({ split, index: BigInt(i), qa_id: q.id, world: id.world, world_hash: id.hash, type: q.type, hops: q.hops })),
      },
    ],
    [
      S('id'),
      S('question'),
      ...STRLIST('golden_answers'),
      S('data_source'),
      ...PROMPT,
      S('ability'),
      ...REWARD_MODEL,
      STRUCT('extra_info', 7),
      S('split'),
      I64('index'),
      S('qa_id'),
      S('world'),
      S('world_hash'),
      S('type'),
      I32('hops'),
    ],
  )
}

export const searchR1: EngineProfile = {
  name: 'search-r1',
  title: 'Search-R1',
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
  // train_grpo.sh:34 data.train_batch_size=512.
  stockTrainBatch: 512,
  ladder: {
    kind: 'turns-obs',
    turns: [2, 3, 4, 6, 8, 10, 12, 16, 24],
    obs: [500, 1024, 2048, 4096],
    // train_grpo.sh:27: max_prompt_length = max_start_length + max_response_length * (max_turns - 1) + max_obs_length * max_turns
    context: (l) => 2048 + 500 * (l.toolCalls - 1) + l.obs * l.toolCalls,
  },
  prompt: searchR1Prompt,
  renderObservation(docs) {
    // generation.py:460-467 per doc, :446 joined; the observation is <information>{.strip()}</information>.
    const o = observationText()
    const blocks: ReturnType<EngineProfile['renderObservation']>['blocks'] = []
    o.push('\n\n<information>')
    docs.forEach((d, i) => {
      const lines = d.contents.split('\n')
      const head = o.push(`Doc ${i + 1}(Title: ${lines[0]}) `)
      const body = o.push(lines.slice(1).join('\n'))
      o.push(i === docs.length - 1 ? '' : '\n')
      blocks.push({ url: d.url, title: lines[0], head, body })
    })
    o.push('</information>\n\n')
    return { text: o.text(), blocks }
  },
  cutObservation(text, l, count, cutTokens) {
    // generation.py:87-89: the observation's token ids cut to max_obs_length, head kept.
    const n = l.obs > 0 ? cutTokens(text, l.obs) : text.length
    return { kept: [[0, n]], tokens: Math.min(count(text), l.obs > 0 ? l.obs : Infinity) }
  },
  launchFlags: (l, b) => [
    `data.train_batch_size=${b.train}`,
    `data.val_batch_size=${b.val}`,
    `actor_rollout_ref.actor.ppo_mini_batch_size=${b.miniBatch}`,
    `actor_rollout_ref.actor.ppo_micro_batch_size=${b.microBatch}`,
    `max_turns=${l.toolCalls}`,
    `data.max_obs_length=${l.obs}`,
    `data.max_prompt_length=${l.context}`,
    `retriever.topk=${l.topk}`,
  ],
  dataExt: 'parquet',
  writeRows: (path, qas, split, id) => writeSearchR1Parquet(path, qas, split, id),
  writeExtras: () => ({}),
  phaseData: () => [],
  launchSnippet(plan) {
    const phase = { model: '"$MODEL"', out: '"$CKPT"', steps: stockSteps(plan.trainRows, plan.batches.train) }
    return `${launchPreamble({ script: 'launch-search-r1.sh', header: HEADER, engine: 'search-r1', serveArgs: serveUnitFlag(plan.unit), worldHash: plan.worldHash })}${searchR1Arrays(plan.flags)}${phaseComment(plan.trainRows, plan.batches.train, phase.steps)}
python3 -m verl.trainer.main_ppo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" \\
  ${phaseKeys(phase).join(' ')} \\
  "\${GRPO[@]}" "\${LIMITS[@]}" "$@"
`
  },
  extraLaunches: () => ({}),
  curriculumLaunch(c, plan) {
    const name = `launch-search-r1-${c.name}.sh`
    const lines = [
      launchPreamble({
        script: name,
        header: [...HEADER, `Curriculum '${c.name}': phase k trains on stage files 1..k from the actor phase k-1 saved (Search-R1 has no resume).`],
        engine: 'search-r1',
        serveArgs: serveUnitFlag(plan.unit),
        worldHash: plan.worldHash,
      }).trimEnd(),
      searchR1Arrays(plan.flags).trimEnd(),
      rerunMarker(name).trimEnd(),
      '# Search-R1 has no resume (fit() starts at step 1, ray_trainer.py:662,673): a rerun skips the phases whose last actor is',
      '# saved and runs the one it was in again from that phase\'s start.',
    ]
    const phases = curriculumPhases(c, 'parquet', plan.phaseRows, (rows) => stockSteps(rows, plan.batches.train))
    for (const p of phases) {
      // Each phase counts its steps from 1 (ray_trainer.py:662,673) and saves into its own folder; phase k+1 loads
      // phase k's last actor, a Hugging Face folder (fsdp_workers.py:523-527).
      const model = p.i === 0 ? '"$MODEL"' : `"$CKPT/phase${p.i}/actor/global_step_${phases[p.i - 1].steps}"`
      const last = `$CKPT/phase${p.i + 1}/actor/global_step_${p.steps}`
      lines.push(
        `${p.comment}; ${Math.floor(p.rows / plan.batches.train)} batches of ${plan.batches.train} per epoch`,
        `if [ "$RESUMABLE" = 1 ] && [ -d "${last}" ]; then`,
        `  echo "${name}: phase ${p.i + 1} already trained (${last}): skipped" >&2`,
        'else',
        `  python3 -m verl.trainer.main_ppo data.train_files=${hydraFiles(p.data)} data.val_files="$DATA/test.parquet" \\`,
        `    ${phaseKeys({ model, out: `"$CKPT/phase${p.i + 1}"`, steps: p.steps }).join(' ')} \\`,
        `    "\${GRPO[@]}" "\${LIMITS[@]}" "$@"`,
        `  [ -d "${last}" ] || { echo "${name}: phase ${p.i + 1} ended without its last actor, ${last}" >&2; exit 1; }`,
        '  RESUMABLE=1',
        'fi',
      )
    }
    return lines.join('\n') + '\n'
  },
}

const HEADER = [
  'Search-R1 (a14dc3a): run it where its verl fork imports (its checkout, or pip install -e of it).',
  'Limits and batch sizes: from engine-profile.json (the oracle run through this engine\'s limits).',
]

/** The stock run's length: train_grpo.sh leaves trainer.total_epochs at 30 (verl/trainer/config/ppo_trainer.yaml:166). */
const STOCK_EPOCHS = 30
/** Batches per epoch (ray_trainer.py:389-393 drop_last=True) times the stock epochs. */
const stockSteps = (rows: number, batch: number) => Math.max(1, Math.floor(rows / batch)) * STOCK_EPOCHS

/**
 * One run of `steps` steps that saves its last actor at `out`/actor/global_step_<steps>. fit() counts from 1
 * (ray_trainer.py:673), saves when global_steps % save_freq == 0 (:831-834, no last-step save) and returns once
 * global_steps >= total_training_steps (:845-852): total_training_steps = steps + 1 trains steps 1..steps and
 * save_freq = steps saves the last. total_epochs = steps bounds the epoch loop (:695) above any loader length >= 1, so
 * the step count, not the epochs, ends the run even when the loader holds fewer batches than the export counted.
 */
function phaseKeys(p: { model: string; out: string; steps: number }): string[] {
  return [
    `actor_rollout_ref.model.path=${p.model}`,
    `trainer.default_local_dir=${p.out}`,
    `trainer.total_training_steps=${p.steps + 1}`,
    `trainer.save_freq=${p.steps}`,
    `trainer.total_epochs=${p.steps}`,
  ]
}

const phaseComment = (rows: number, batch: number, steps: number) =>
  `# ${rows} rows, ${Math.floor(rows / batch)} batches of ${batch} per epoch, ${STOCK_EPOCHS} epochs (the stock count) = ${steps} steps; the last actor is saved`

/** The GRPO keys (each with the default it overrides, verl/trainer/config/ppo_trainer.yaml of a14dc3a) and the limits. */
function searchR1Arrays(flags: string[]): string {
  return (
    keyArray('GRPO', [
      ['algorithm.adv_estimator=grpo', 'default gae (and a critic), ppo_trainer.yaml:155; train_grpo.sh:41'],
      ['actor_rollout_ref.rollout.n_agent=5', 'the group: each prompt repeated n_agent times (ray_trainer.py:702); default 1, ppo_trainer.yaml:91; train_grpo.sh:62'],
      ['actor_rollout_ref.actor.use_kl_loss=true', 'default False, ppo_trainer.yaml:36; train_grpo.sh:47'],
      ['actor_rollout_ref.actor.kl_loss_coef=0.001', 'ppo_trainer.yaml:37; train_grpo.sh:59'],
      ['actor_rollout_ref.actor.kl_loss_type=low_var_kl', 'ppo_trainer.yaml:38; train_grpo.sh:60'],
      ['actor_rollout_ref.actor.state_masking=true', 'retrieved text out of the loss; default False, ppo_trainer.yaml:33; train_grpo.sh:64'],
      ['trainer.default_hdfs_dir=null', 'default ~/experiments/gsm8k/ppo/..., a copy of every save (ppo_trainer.yaml:176); train_grpo.sh:68'],
      ['retriever.url="http://127.0.0.1:$PORT/retrieve"', 'the gym started above'],
    ]) +
    '# Limits and batches (engine-profile.json); the model path, steps and checkpoints per run below: actor_rollout_ref.model.path\n' +
    '# (default ~/models/deepseek-llm-7b-chat, ppo_trainer.yaml:21), trainer.default_local_dir (default checkpoints/... in the\n' +
    '# current folder, ppo_trainer.yaml:177), total_training_steps / save_freq / total_epochs (null / -1 / 30, ppo_trainer.yaml:167,173,166).\n' +
    flagArray('LIMITS', flags)
  )
}

// world/qa/engines/search-r1: Search-R1 (a14dc3a) as an engine profile — its stock limits (file:line on every number),
// its observation (<information> with "Doc i(Title: …)" lines, cut to max_obs_length tokens, head kept), its prompt,
// its rows (train/test.parquet, data_source from its fixed list, one `<answer> … </answer>` example in the prompt),
// its launch flags and scripts (no resume: a later phase starts from the actor the phase before saved).
import type { Qa } from '../../types'
import { I32, I64, S, STRLIST, STRUCT, writeParquet } from '../parquet'
import { curriculumHead, curriculumPhases, inlineFlags, serveLine, serveUnitFlag, snippetFlags, snippetHead } from './launch'
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
  launchSnippet: (outDir, flags, unit) => `${snippetHead('search-r1', outDir)}${serveLine(8000, serveUnitFlag(unit))}
# In a Search-R1 (a14dc3a) checkout, its train_grpo.sh / train_ppo.sh with these keys changed:
python3 -m verl.trainer.main_ppo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" \\
  retriever.url="http://127.0.0.1:8000/retrieve" \\
${snippetFlags(flags) || '  retriever.topk=3 max_turns=4 \\\n'}  "$@"
`,
  curriculumLaunch(c, outDir, flags) {
    const lines = [...curriculumHead('search-r1', c, outDir), serveLine(8000)]
    for (const p of curriculumPhases(c, 'parquet')) {
      // Search-R1 a14dc3a has no resume: phase k starts from the actor phase k-1 saved (ray_trainer.py:623-627,
      // default_local_dir/actor/global_step_N).
      const model = p.i === 0 ? '' : ` actor_rollout_ref.model.path="$CKPT/actor/global_step_${p.done}"`
      const steps = p.until !== undefined ? ` trainer.total_training_steps=${p.stage.steps}` : ''
      lines.push(
        p.comment,
        `python3 -m verl.trainer.main_ppo data.train_files="[${p.data.map((d) => `'${d}'`).join(',')}]" data.val_files="$DATA/test.parquet" retriever.url="http://127.0.0.1:8000/retrieve" trainer.default_local_dir="$CKPT"${model}${steps}${inlineFlags(flags)} "$@"`,
      )
    }
    return lines.join('\n') + '\n'
  },
}

// world/qa/export-trainers: a world's QA in the exact layouts three outside RL trainers read, each with the config /
// launch snippet it needs written next to the data — Search-R1 (a14dc3a: train/test.parquet, data_source from its
// fixed list, one `<answer> … </answer>` example in the prompt), verl (b178a3c: tool_agent rows with
// tools_kwargs.search.create_kwargs, data_source `searchR1_*`, search_tool_config.yaml) and AReaL/ASearcher (813e804:
// JSONL {id, question, answer}). The world's own identity (name, content hash, QA id) stays in extra_info / extra fields.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Qa } from '../types'
import { I32, I64, LIST, S, STRLIST, STRUCT, writeParquet, type SchemaElement } from './parquet'
import { batchSizes, launchFlags, type BatchSizes, type ExportTuning } from './engine-profiles'
import { verlGymToolPy, verlGymToolConfig } from './verl-gym-tool'
import { partitionByStages, phaseFile, stageFile, writeCurriculumLaunch, type ExportCurriculum } from './export-stages'

/** Who the rows come from: kept in every exported row (the trainers' data_source must be one of their own names). */
export interface WorldIdentity {
  world: string
  hash: string
}

/** Search-R1's main_ppo accepts only nq, triviaqa, popqa, hotpotqa, 2wikimultihopqa, musique, bamboogle; hotpotqa is the
 * multi-hop one its exact-match reward handles like any other. */
export const SEARCH_R1_DATA_SOURCE = 'hotpotqa'
/** verl's default reward routes `searchR1_<dataset>` names to its Search-R1-style exact match. */
export const VERL_DATA_SOURCE = `searchR1_${SEARCH_R1_DATA_SOURCE}`

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

/** Every accepted answer, the canonical one first. */
export const accepted = (q: Qa): string[] => [...new Set([q.answer, ...q.aliases])]

const GROUND_TRUTH: SchemaElement[] = [STRUCT('ground_truth', 1), ...STRLIST('target')]
const REWARD_MODEL: SchemaElement[] = [STRUCT('reward_model', 2), S('style'), ...GROUND_TRUTH]
const PROMPT: SchemaElement[] = [...LIST('prompt'), { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 }, S('role'), S('content')]

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

/** AReaL/ASearcher: `{id, question, answer}` per line; `answer` is the list of accepted answers (its F1/EM take the
 * best); ids never hold `@` (ASearcher cuts a sample id at the first one). */
export function asearcherRows(qas: Qa[], id: WorldIdentity): Record<string, unknown>[] {
  return qas.map((q) => ({ id: q.id.replaceAll('@', '_'), question: q.question, answer: accepted(q), world: id.world, world_hash: id.hash, type: q.type, hops: q.hops }))
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

const SERVE = (port: number, extra = '') => `npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port ${port}${extra} &`

/** Launch snippets; DATA is the export folder, WORLD the world folder. Trainer flags beyond the data/tool keys are the
 * trainers' own stock scripts' (model, batch sizes) and are left to them. */
export function launchSnippet(format: 'search-r1' | 'verl' | 'asearcher', outDir: string, flags: string[] = [], unit: 'page' | 'passage' = 'page'): string {
  const serveUnit = unit === 'passage' ? ' --retrieve-unit passage' : ''
  const extra = flags.map((f) => `  ${f} \\\n`).join('')
  const head = `#!/usr/bin/env bash
# Launch snippet written by searchgym world export --format ${format}; see docs/train-elsewhere.md.
# Limits and batch sizes below: from engine-profile.json (the oracle run through this engine's limits).
set -euo pipefail
WORLD=\${WORLD:?set WORLD to the world folder}
DATA=\${DATA:-${outDir}}
`
  if (format === 'search-r1')
    return `${head}${SERVE(8000, serveUnit)}
# In a Search-R1 (a14dc3a) checkout, its train_grpo.sh / train_ppo.sh with these keys changed:
python3 -m verl.trainer.main_ppo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" \\
  retriever.url="http://127.0.0.1:8000/retrieve" \\
${extra || '  retriever.topk=3 max_turns=4 \\\n'}  "$@"
`
  if (format === 'verl')
    return `${head}${SERVE(8000, serveUnit)}
# In a verl (b178a3c) checkout, its examples/sglang_multiturn/search_r1_like run script with these keys changed:
python3 -m verl.trainer.main_ppo \\
  --config-path="$PWD/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo \\
  data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" data.return_raw_chat=True \\
  actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes \\
  actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/search_tool_config.yaml" \\
${extra}  "$@"
`
  return `${head}export RAG_SERVER_ADDR_DIR=\${RAG_SERVER_ADDR_DIR:-$DATA/rag-addr}
npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port 8000${serveUnit} --address-file "$RAG_SERVER_ADDR_DIR" &
# In an ASearcher (813e804, AReaL 0.3.4) checkout, local knowledge-base training (search only unless its access branch
# is patched in; see docs/train-elsewhere.md):
python3 -m areal.launcher.local ASearcher/train/asearcher.py \\
  --config ASearcher/configs/asearcher_local.yaml \\
  train_dataset.path="$DATA/train.jsonl" search_client_type=async-search-access \\
${extra}  "$@"
`
}

/** Write the trainer's files into outDir; returns file name → row count (0 for configs). */
export async function exportForTrainer(
  format: 'search-r1' | 'verl' | 'asearcher',
  outDir: string,
  train: Qa[],
  bench: Qa[],
  id: WorldIdentity,
  writeJsonl: (path: string, rows: unknown[]) => Promise<void>,
  tuning?: ExportTuning,
  curriculum?: ExportCurriculum,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  let flags: string[] = []
  if (tuning) {
    // Below the 95 % target even with raised limits: export only the questions solvable under the shipped limits.
    const total = train.length + bench.length
    const target = tuning.shipped.solved >= 0.95 * tuning.shipped.total
    if (!target) {
      train = train.filter((q) => tuning.solvable.has(q.id))
      bench = bench.filter((q) => tuning.solvable.has(q.id))
    }
    const batches = batchSizes(format, train.length, bench.length)
    flags = launchFlags(format, tuning.shipped.limits, batches)
    writeFileSync(join(outDir, 'engine-profile.json'), JSON.stringify(profileRecord(tuning, batches, total, train.length, bench.length, target), null, 2) + '\n')
    out['engine-profile.json'] = 0
    if (!target) out[`questions left out (not solvable under the shipped ${format} limits)`] = total - train.length - bench.length
  }
  if (format === 'search-r1') {
    await writeSearchR1Parquet(join(outDir, 'train.parquet'), train, 'train', id)
    await writeSearchR1Parquet(join(outDir, 'test.parquet'), bench, 'test', id)
    Object.assign(out, { 'train.parquet': train.length, 'test.parquet': bench.length })
  } else if (format === 'verl') {
    await writeVerlParquet(join(outDir, 'train.parquet'), train, 'train', id)
    await writeVerlParquet(join(outDir, 'test.parquet'), bench, 'test', id)
    writeFileSync(join(outDir, 'search_tool_config.yaml'), verlToolConfig('http://127.0.0.1:8000/retrieve', tuning?.shipped.limits.topk ?? 3))
    // The whole gym inside verl's agent loop: search + access on one env per trajectory, the gym's F1 as reward.
    writeFileSync(join(outDir, 'searchgym_verl_tool.py'), verlGymToolPy())
    writeFileSync(join(outDir, 'searchgym_tool_config.yaml'), verlGymToolConfig('http://127.0.0.1:8000'))
    writeFileSync(join(outDir, 'launch-verl-gym.sh'), verlGymLaunch(outDir), { mode: 0o755 })
    Object.assign(out, { 'train.parquet': train.length, 'test.parquet': bench.length, 'search_tool_config.yaml': 0, 'searchgym_verl_tool.py': 0, 'searchgym_tool_config.yaml': 0, 'launch-verl-gym.sh': 0 })
  } else {
    await writeJsonl(join(outDir, 'train.jsonl'), asearcherRows(train, id))
    await writeJsonl(join(outDir, 'test.jsonl'), asearcherRows(bench, id))
    Object.assign(out, { 'train.jsonl': train.length, 'test.jsonl': bench.length })
  }
  if (curriculum) {
    // One file per stage (the training pool split by the stages' filters) and the phases' launch script; the mixed
    // pool is train.* above.
    const { byStage, unmatched } = partitionByStages(train, curriculum.stages)
    for (const [i, st] of curriculum.stages.entries()) {
      const file = stageFile(format, i, st.name)
      if (format === 'search-r1') await writeSearchR1Parquet(join(outDir, file), byStage[i], 'train', id)
      else if (format === 'verl') await writeVerlParquet(join(outDir, file), byStage[i], 'train', id)
      else {
        await writeJsonl(join(outDir, file), asearcherRows(byStage[i], id))
        await writeJsonl(join(outDir, phaseFile(i)), asearcherRows(byStage.slice(0, i + 1).flat(), id))
        out[phaseFile(i)] = byStage.slice(0, i + 1).flat().length
      }
      out[file] = byStage[i].length
    }
    if (unmatched.length > 0) out[`training questions in no stage of ${curriculum.name}`] = unmatched.length
    out[writeCurriculumLaunch(format, curriculum, outDir, flags)] = 0
  }
  const launch = `launch-${format}.sh`
  writeFileSync(join(outDir, launch), launchSnippet(format, outDir, flags, tuning?.unit), { mode: 0o755 })
  out[launch] = 0
  return out
}

/** engine-profile.json: the profile used, stock and shipped limits with the fraction solvable under each, the batch
 * sizes, and how many questions were left out (0 unless the shipped limits stay under 95 %). */
function profileRecord(t: ExportTuning, b: BatchSizes, total: number, trainRows: number, benchRows: number, target: boolean) {
  const frac = (x: { solved: number; total: number }) => Number((x.solved / Math.max(1, x.total)).toFixed(4))
  return {
    profile: t.profile,
    unit: t.unit,
    stock: { ...t.stock, fraction: frac(t.stock) },
    shipped: { ...t.shipped, fraction: frac(t.shipped) },
    target: 0.95,
    filtered: target ? 0 : total - trainRows - benchRows,
    rows: { train: trainRows, test: benchRows },
    batches: b,
  }
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

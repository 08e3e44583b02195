// world/qa/engines/asearcher: AReaL/ASearcher (813e804) as an engine profile — its stock limits (file:line on every
// number), its observation ("[Doc i](url):" blocks of doc[:5000] in <information>, no cut of the whole), its rows (JSONL
// {id, question, answer}; ids without `@`), its launch flags and scripts (one dataset path per phase: phase<k>.jsonl
// holds stage files 1..k; steps come from total_train_epochs only; phase k+1 starts from the model folder phase k's
// saver wrote, found by the script, with the base model's tokenizer; the gym publishes its address for ASearcher's client).
import type { Qa } from '../../types'
import { curriculumPhases, flagArray, keyArray, launchPreamble, serveUnitFlag, type LaunchPlan } from './launch'
import { observationText, type EngineProfile, type WorldIdentity } from './profile'
import { accepted } from './rows'
import { searchR1Prompt } from './search-r1'

/** AReaL/ASearcher: `{id, question, answer}` per line; `answer` is the list of accepted answers (its F1/EM take the
 * best); ids never hold `@` (ASearcher cuts a sample id at the first one). */
export function asearcherRows(qas: Qa[], id: WorldIdentity): Record<string, unknown>[] {
  return qas.map((q) => ({ id: q.id.replaceAll('@', '_'), question: q.question, answer: accepted(q), world: id.world, world_hash: id.hash, type: q.type, hops: q.hops }))
}

/** ASearcher's phase k data: stage files 1..k joined (its launcher takes one path). */
export const phaseFile = (i: number) => `phase${i + 1}.jsonl`

const HEADER = [
  'AReaL/ASearcher (813e804, AReaL 0.3.4): run it where areal imports; ASEARCHER_DIR (default: the current folder) is the',
  'AReaL folder of the ASearcher checkout (ASearcher/train/asearcher.py, ASearcher/configs/asearcher_local.yaml).',
  'Search only unless its access branch is patched in (docs/train-elsewhere.md). Limits and batch sizes: engine-profile.json.',
]

/** The gym publishes its address where ASearcher's search client looks for it (RAG_SERVER_ADDR_DIR). */
const ADDR = ' --address-file "$RAG_SERVER_ADDR_DIR"'
const ADDR_SETUP = 'export RAG_SERVER_ADDR_DIR=${RAG_SERVER_ADDR_DIR:-$CKPT/rag-addr}\n'

/** Trainer ranks of the stock allocation_mode sglang.d4p1t1+d4p1t1 (asearcher_local.yaml:15): each rank reads
 * rows // RANKS rows (asearcher.py:307-314) in batches of batch // RANKS (:328-336, drop_last). */
export const ASEARCHER_RANKS = 4
/** Steps per epoch as the loop counts them (asearcher.py:337-341,390-392; areal/api/io_struct.py:76-78). */
export const asearcherStepsPerEpoch = (rows: number, batch: number) => Math.floor(Math.floor(rows / ASEARCHER_RANKS) / Math.floor(batch / ASEARCHER_RANKS))
/** total_train_epochs of the stock config (asearcher_local.yaml:12). */
const STOCK_EPOCHS = 10

/** The GRPO-style keys of ASearcher's own recipe, each with the default it overrides, and the limits. */
function asearcherArrays(plan: LaunchPlan): string {
  return (
    keyArray('BASE', [
      ['--config "$ASEARCHER_DIR/ASearcher/configs/asearcher_local.yaml"', ''],
      ['search_client_type=async-search-access', 'the gym through RAG_SERVER_ADDR_DIR'],
      ['cluster.fileroot="$CKPT/areal"', 'default /tmp/areal/experiments, asearcher_local.yaml:5; the saver writes under it (areal/utils/saver.py:29-49)'],
      ['experiment_name=searchgym', 'default asearcher-7b-zero-local, asearcher_local.yaml:1'],
      ['gconfig.n_samples=16', 'asearcher_local.yaml:28'],
      ['n_trajs=16', 'the group: trajectories per question (asearcher.py:180); asearcher_local.yaml:154 (cli_args default 1)'],
      ['actor.group_size=16', 'rewards grouped per question; ${gconfig.n_samples} asearcher_local.yaml:56 (areal/api/cli_args.py:228 default 1)'],
      ['actor.group_reward_norm=False', 'ASearcher\'s recipe (cli_args.py:253); stated, not changed'],
      ['actor.group_adv_norm=False', 'asearcher_local.yaml:57'],
      ['actor.kl_ctl=0.0', 'asearcher_local.yaml:62 (cli_args.py:285 default 0.1); no reference model is built anyway (asearcher.py:350)'],
    ]) +
    '# Limits and batches (engine-profile.json): train_dataset.batch_size (128, asearcher_local.yaml:108), max_turns (32, :153),\n' +
    '# topk (5, :157), actor.mb_spec.max_tokens_per_mb (8000, :43).\n' +
    flagArray('LIMITS', plan.flags)
  )
}

const TRAIN = 'python3 -m areal.launcher.local "$ASEARCHER_DIR/ASearcher/train/asearcher.py" "${BASE[@]}"'

export const asearcher: EngineProfile = {
  name: 'asearcher',
  title: 'ASearcher',
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
  // ASearcher/configs/asearcher_local.yaml:108 train_dataset.batch_size=128.
  stockTrainBatch: 128,
  // The turn limit already allows 15 tool calls and nothing cuts the observation: only the context is raised, to the
  // max_tokens_per_mb of AReaL's larger configs less the 1,024 new tokens.
  ladder: { kind: 'context', contexts: [8000 - 1024, 15_000 - 1024, 32_768 - 1024] },
  // The check has always counted ASearcher's prompt as Search-R1's (a prompt of the same size; ASearcher's own is not exported).
  prompt: searchR1Prompt,
  renderObservation(docs, l) {
    const o = observationText()
    const blocks: ReturnType<EngineProfile['renderObservation']>['blocks'] = []
    o.push('<information>\n')
    docs.forEach((d, i) => {
      if (i > 0) o.push('\n\n')
      const head = o.push(`[Doc ${i + 1}](${d.url}):\n`)
      const body = o.push(l.docChars > 0 ? d.contents.slice(0, l.docChars) : d.contents)
      blocks.push({ url: d.url, title: d.contents.split('\n')[0], head, body })
    })
    o.push('\n</information>')
    return { text: o.text(), blocks }
  },
  // search_agent.py:153: no cut of the joined observation.
  cutObservation: (text, _l, count) => ({ kept: [[0, text.length]], tokens: count(text) }),
  launchFlags: (l, b) => [
    `train_dataset.batch_size=${b.train}`,
    // Two generated turns per tool call (the call, then the summary turn after its result) and the answer's.
    `max_turns=${2 * l.toolCalls + 2}`,
    `topk=${l.topk}`,
    `actor.mb_spec.max_tokens_per_mb=${l.context + 1024}`,
  ],
  dataExt: 'jsonl',
  writeRows: (path, qas, _split, id, io) => io.writeJsonl(path, asearcherRows(qas, id)),
  writeExtras: () => ({}),
  phaseData: (i, byStage) => [{ file: phaseFile(i), qas: byStage.slice(0, i + 1).flat() }],
  launchSnippet(plan) {
    const spe = asearcherStepsPerEpoch(plan.trainRows, plan.batches.train)
    return `${launchPreamble('launch-asearcher.sh', HEADER, 'asearcher', serveUnitFlag(plan.unit) + ADDR, ADDR_SETUP)}ASEARCHER_DIR=\${ASEARCHER_DIR:-$PWD}
${asearcherArrays(plan)}# ${plan.trainRows} rows: ${spe} steps per epoch on ${ASEARCHER_RANKS} trainer ranks x ${STOCK_EPOCHS} epochs (the stock count; the loop reads
# total_train_epochs only, asearcher.py:390-392) = ${spe * STOCK_EPOCHS} steps. The saver writes the model at each epoch's end.
${TRAIN} \\
  actor.path="$MODEL" train_dataset.path="$DATA/train.jsonl" total_train_epochs=${STOCK_EPOCHS} \\
  "\${LIMITS[@]}" "$@"
`
  },
  extraLaunches: () => ({}),
  curriculumLaunch(c, plan) {
    const name = `launch-asearcher-${c.name}.sh`
    const b = plan.batches.train
    if (b < ASEARCHER_RANKS)
      throw new Error(`ASearcher splits each batch over its ${ASEARCHER_RANKS} trainer ranks: curriculum '${c.name}' has a phase of ${Math.min(...plan.phaseRows)} questions, a batch of ${b}; export without --curriculum or from a larger world`)
    const lines = [
      launchPreamble(
        name,
        [...HEADER, `Curriculum '${c.name}': phase k trains on phase<k>.jsonl (stage files 1..k) from the model phase k-1's saver wrote (found below).`],
        'asearcher',
        serveUnitFlag(plan.unit) + ADDR,
        ADDR_SETUP,
      ).trimEnd(),
      'ASEARCHER_DIR=${ASEARCHER_DIR:-$PWD}',
      asearcherArrays(plan).trimEnd(),
    ]
    const phases = curriculumPhases(c, 'jsonl', plan.phaseRows, (rows) => asearcherStepsPerEpoch(rows, b) * STOCK_EPOCHS)
    for (const p of phases) {
      // total_train_steps is never read (cli_args.py:746-752 "for benchmarking purposes only"): the loop runs
      // total_train_epochs x steps per epoch from step 0 (asearcher.py:390-399); recover_start_step stays 0.
      const spe = asearcherStepsPerEpoch(p.rows, b)
      const epochs = Math.ceil(p.steps / spe)
      lines.push(`${p.comment}: ${spe} steps per epoch on ${ASEARCHER_RANKS} trainer ranks -> total_train_epochs=${epochs} (${epochs * spe} steps)`)
      if (p.i > 0) {
        // The saver's folders: {fileroot}/checkpoints/{user}/{experiment}/{trial}/default/epoch{e}epochstep{s}globalstep{g}
        // (areal/utils/saver.py:29-49), written at every epoch's end (:62-65, freq_epochs 1); the last one is the phase's model.
        lines.push(
          `PREV_MODEL=$(ls -d "$CKPT"/areal/checkpoints/*/searchgym/phase${p.i}/default/epoch*epochstep*globalstep* 2>/dev/null | awk -F'globalstep' '{print $NF "\\t" $0}' | sort -n | tail -1 | cut -f2-)`,
          `[ -n "$PREV_MODEL" ] || { echo "${name}: phase ${p.i} saved no model under $CKPT/areal/checkpoints" >&2; exit 1; }`,
          '# The saver writes no tokenizer (asearcher.py:460; areal/engine/fsdp_engine.py:123-124) and the actor loads one from',
          '# actor.path (areal/engine/base_hf_engine.py:129; tokenizer_path is ${actor.path}, asearcher_local.yaml:14): the base model\'s.',
          'if [ -d "$MODEL" ]; then',
          '  for f in tokenizer.json tokenizer_config.json special_tokens_map.json vocab.json merges.txt tokenizer.model added_tokens.json; do',
          '    if [ -f "$MODEL/$f" ]; then cp "$MODEL/$f" "$PREV_MODEL/"; fi',
          '  done',
          'else',
          '  python3 -c \'import sys; from transformers import AutoTokenizer as T; T.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])\' "$MODEL" "$PREV_MODEL"',
          'fi',
        )
      }
      lines.push(
        `${TRAIN} trial_name=phase${p.i + 1} \\`,
        `  actor.path=${p.i === 0 ? '"$MODEL"' : '"$PREV_MODEL"'} train_dataset.path="$DATA/${phaseFile(p.i)}" total_train_epochs=${epochs} \\`,
        `  "\${LIMITS[@]}" "$@"`,
      )
    }
    return lines.join('\n') + '\n'
  },
}

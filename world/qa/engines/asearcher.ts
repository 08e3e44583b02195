// world/qa/engines/asearcher: AReaL/ASearcher (813e804) as an engine profile — its stock limits (file:line on every
// number), its observation ("[Doc i](url):" blocks of doc[:5000] in <information>, no cut of the whole), its rows (JSONL
// {id, question, answer}; ids without `@`), its launch flags and scripts (one dataset path per phase: phase<k>.jsonl
// holds stage files 1..k; steps come from total_train_epochs only; phase k+1 starts from the model folder phase k's
// saver wrote, found by the script, with the base model's tokenizer; the gym publishes its address for ASearcher's
// client). AReaL 0.3.4's launcher exits 1 however its trainer ended, so each phase is judged by the saver's folder of
// its last step; the saves a resume and the next phase do not need are deleted; a rerun resumes a phase from its newest
// save (recover_start_step).
import type { Qa } from '../../types'
import { curriculumPhases, flagArray, keyArray, launchPreamble, rerunMarker, serveUnitFlag, type LaunchPlan } from './launch'
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
      ['actor.group_adv_norm=False', 'asearcher_local.yaml:57'],
      ['actor.kl_ctl=0.0', 'asearcher_local.yaml:62 (cli_args.py:285 default 0.1); no reference model is built anyway (asearcher.py:350)'],
    ]) +
    '# Limits and batches (engine-profile.json): train_dataset.batch_size (128, asearcher_local.yaml:108), max_turns (32, :153),\n' +
    '# topk (5, :157), actor.mb_spec.max_tokens_per_mb (8000, :43).\n' +
    flagArray('LIMITS', plan.flags)
  )
}

const TRAIN = 'python3 -m areal.launcher.local "$ASEARCHER_DIR/ASearcher/train/asearcher.py" "${BASE[@]}"'

/** Before the gym starts: ASEARCHER_DIR made absolute and checked, and the paths AReaL's launcher would break. */
function asearcherSetup(script: string): string {
  return [
    'AD=${ASEARCHER_DIR:-$PWD}',
    `ASEARCHER_DIR=$(cd "$AD" 2>/dev/null && pwd) || { echo "${script}: ASEARCHER_DIR=$AD is not a folder" >&2; exit 2; }`,
    'if [ ! -f "$ASEARCHER_DIR/ASearcher/configs/asearcher_local.yaml" ] || [ ! -f "$ASEARCHER_DIR/ASearcher/train/asearcher.py" ]; then',
    `  echo "${script}: ASEARCHER_DIR=$ASEARCHER_DIR is not the AReaL folder of an ASearcher checkout (no ASearcher/configs/asearcher_local.yaml and ASearcher/train/asearcher.py under it): set ASEARCHER_DIR=/path/to/ASearcher/AReaL" >&2`,
    '  exit 2',
    'fi',
    "# AReaL's launcher runs the trainer as one shell command, its arguments joined by spaces (areal/launcher/local.py:283,",
    '# run with shell=True, :119-126): a path with a space or a shell character would be split or run.',
    'for v in "$DATA" "$CKPT" "$MODEL" "$ASEARCHER_DIR"; do',
    '  case "$v" in',
    `    *[[:space:]\\'\\"\\\`\\$\\;\\&\\|\\<\\>\\(\\)\\\\]*) echo "${script}: '$v' holds a space or a shell character, which AReaL's launcher passes through a shell (areal/launcher/local.py:283): use a path without one" >&2; exit 2 ;;`,
    '  esac',
    'done',
    'export RAG_SERVER_ADDR_DIR=${RAG_SERVER_ADDR_DIR:-$CKPT/rag-addr}',
    '',
  ].join('\n')
}

/** The bash functions a script uses to find, judge and prune the saver's folders, and to give one a tokenizer. */
const SAVE_HELPERS = `# The saver's folders of a trial: {fileroot}/checkpoints/{user}/{experiment}/{trial}/default/epoch{e}epochstep{s}globalstep{g}
# (areal/utils/saver.py:29-49), one Hugging Face model each, written at every epoch's end, every 10 steps and every hour
# (saver freq_epochs 1, freq_steps 10, freq_secs 3600, asearcher_local.yaml:114-120; saver.py:62-65; the last step is
# always an epoch's end), oldest first.
saves() { ls -d $1/epoch*epochstep*globalstep* 2>/dev/null | awk -F'globalstep' '{print $NF "\\t" $0}' | sort -n | cut -f2- || true; }
# Keep what a resume and the next phase need: while a phase trains, its two newest saves (the newest may be half
# written); once it has ended, its last one only.
keep_newest() { saves "$1" | head -n -"$2" | while IFS= read -r d; do rm -rf -- "$d"; done || true; }
keep_only() { saves "$1" | { grep -v -x -F "$2" || true; } | while IFS= read -r d; do rm -rf -- "$d"; done; }
# The save of a run's last step, for any steps per epoch S: epoch{E-1}epochstep{s}globalstep{g} with g + 1 = E(s + 1)
# (then s = S - 1: the last step of the last epoch); with E = 1 that says nothing, and the name this export expects
# (S from 4 trainer ranks) is looked for. $1 trial folder, $2 E, $3 the expected name.
last_save() {
  local d n e s g
  for d in $(saves "$1"); do
    n=\${d##*/}; e=\${n#epoch}; e=\${e%%epochstep*}; s=\${n#*epochstep}; s=\${s%%globalstep*}; g=\${n##*globalstep}
    if [ "$2" = 1 ]; then
      if [ "$n" = "$3" ]; then echo "$d"; fi
    elif [ "$e" = $(($2 - 1)) ] && [ $((g + 1)) = $(($2 * (s + 1))) ]; then
      echo "$d"
    fi
  done | tail -1
}
# The last step's save, made in this run (after this script started: a folder of another run is not taken for one).
saved_last() { local d; d=$(last_save "$@"); if [ -n "$d" ] && [ -n "$(find "$d" -maxdepth 0 -newer "$MARK")" ]; then echo "$d"; fi; }
# The saver writes no tokenizer (asearcher.py:460; areal/engine/fsdp_engine.py:123-124) and the actor loads one from
# actor.path (areal/engine/base_hf_engine.py:129; tokenizer_path is \${actor.path}, asearcher_local.yaml:14): the base model's.
with_tokenizer() {
  if [ -d "$MODEL" ]; then
    for f in tokenizer.json tokenizer_config.json special_tokens_map.json vocab.json merges.txt tokenizer.model added_tokens.json; do
      if [ -f "$MODEL/$f" ]; then cp "$MODEL/$f" "$1/"; fi
    done
  else
    python3 -c 'import sys; from transformers import AutoTokenizer as T; T.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])' "$MODEL" "$1"
  fi
}
`

/** One run of AReaL's launcher for trial `trial`: skipped when a rerun finds its last step saved; resumed from its newest
 * save (recover_start_step, asearcher.py:299-304, :396-397) when a rerun finds one; judged by the saver's folder of its
 * last step, since the launcher's exit says nothing (areal/launcher/local.py:288-300); pruned to that folder. Sets
 * DONE<n> to the folder. */
function asearcherRun(o: { script: string; n: number; label: string; trial: string; data: string; epochs: number; spe: number; from: string }): string[] {
  const last = `epoch${o.epochs - 1}epochstep${o.spe - 1}globalstep${o.epochs * o.spe - 1}`
  const saves = `SAVES${o.n}`
  return [
    `${saves}="$CKPT/areal/checkpoints/*/searchgym/${o.trial}/default"`,
    `LAST${o.n}=${last}`,
    `DONE${o.n}=$(if [ "$RESUMABLE" = 1 ]; then last_save "$${saves}" ${o.epochs} "$LAST${o.n}"; fi)`,
    `if [ -n "$DONE${o.n}" ]; then`,
    `  echo "${o.script}: ${o.label} already trained ($DONE${o.n}): skipped" >&2`,
    'else',
    `  FROM=${o.from}`,
    '  RESUME=()',
    `  NEWEST=$(if [ "$RESUMABLE" = 1 ]; then saves "$${saves}" | tail -1; fi)`,
    '  if [ -n "$NEWEST" ]; then',
    '    NEXT=$(( ${NEWEST##*globalstep} + 1 ))',
    '    FROM=$NEWEST',
    '    with_tokenizer "$FROM"',
    '    RESUME=(+recover_start_step="$NEXT")',
    `    echo "${o.script}: ${o.label} resumes at step $NEXT from $NEWEST" >&2`,
    '  fi',
    `  ( while sleep "\${PRUNE_EVERY_S:-60}"; do keep_newest "$${saves}" 2; done ) </dev/null >/dev/null 2>&1 &`,
    '  PRUNER_PID=$!',
    '  RC=0',
    `  ${TRAIN} trial_name=${o.trial} \\`,
    `    actor.path="$FROM" train_dataset.path="${o.data}" total_train_epochs=${o.epochs} "\${RESUME[@]}" \\`,
    '    "${LIMITS[@]}" "$@" || RC=$?',
    '  kill "$PRUNER_PID" 2>/dev/null || true',
    '  PRUNER_PID=',
    `  DONE${o.n}=$(saved_last "$${saves}" ${o.epochs} "$LAST${o.n}")`,
    `  if [ -z "$DONE${o.n}" ]; then`,
    `    echo "${o.script}: ${o.label} did not finish: the launcher exited $RC and the saver wrote no model of its last step ($LAST${o.n}) under $${saves}" >&2`,
    '    exit 1',
    '  fi',
    `  keep_only "$${saves}" "$DONE${o.n}"`,
    `  if [ "$RC" != 0 ]; then echo "${o.script}: ${o.label} trained to its last step ($DONE${o.n}); the launcher's exit $RC is how AReaL 0.3.4 reports a trainer that has ended (areal/launcher/local.py:288-300)" >&2; fi`,
    '  RESUMABLE=1',
    'fi',
  ]
}

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
    const script = 'launch-asearcher.sh'
    const spe = asearcherStepsPerEpoch(plan.trainRows, plan.batches.train)
    return [
      launchPreamble({ script, header: HEADER, engine: 'asearcher', serveArgs: serveUnitFlag(plan.unit) + ADDR, setup: asearcherSetup(script), worldHash: plan.worldHash }).trimEnd(),
      asearcherArrays(plan).trimEnd(),
      SAVE_HELPERS.trimEnd(),
      rerunMarker(script).trimEnd(),
      `# ${plan.trainRows} rows: ${spe} steps per epoch on ${ASEARCHER_RANKS} trainer ranks x ${STOCK_EPOCHS} epochs (the stock count; the loop reads`,
      `# total_train_epochs only, asearcher.py:390-392) = ${spe * STOCK_EPOCHS} steps.`,
      ...asearcherRun({ script, n: 1, label: 'the run', trial: 'run1', data: '$DATA/train.jsonl', epochs: STOCK_EPOCHS, spe, from: '"$MODEL"' }),
    ].join('\n') + '\n'
  },
  extraLaunches: () => ({}),
  curriculumLaunch(c, plan) {
    const name = `launch-asearcher-${c.name}.sh`
    const b = plan.batches.train
    if (b < ASEARCHER_RANKS)
      throw new Error(`ASearcher splits each batch over its ${ASEARCHER_RANKS} trainer ranks: curriculum '${c.name}' has a phase of ${Math.min(...plan.phaseRows)} questions, a batch of ${b}; export without --curriculum or from a larger world`)
    const lines = [
      launchPreamble({
        script: name,
        header: [...HEADER, `Curriculum '${c.name}': phase k trains on phase<k>.jsonl (stage files 1..k) from the model phase k-1's saver wrote (found below).`],
        engine: 'asearcher',
        serveArgs: serveUnitFlag(plan.unit) + ADDR,
        setup: asearcherSetup(name),
        worldHash: plan.worldHash,
      }).trimEnd(),
      asearcherArrays(plan).trimEnd(),
      SAVE_HELPERS.trimEnd(),
      rerunMarker(name).trimEnd(),
    ]
    const phases = curriculumPhases(c, 'jsonl', plan.phaseRows, (rows) => asearcherStepsPerEpoch(rows, b) * STOCK_EPOCHS)
    for (const p of phases) {
      // total_train_steps is never read (cli_args.py:746-752 "for benchmarking purposes only"): the loop runs
      // total_train_epochs x steps per epoch from recover_start_step (asearcher.py:390-399).
      const spe = asearcherStepsPerEpoch(p.rows, b)
      const epochs = Math.ceil(p.steps / spe)
      lines.push(`${p.comment}: ${spe} steps per epoch on ${ASEARCHER_RANKS} trainer ranks -> total_train_epochs=${epochs} (${epochs * spe} steps)`)
      if (p.i > 0) lines.push(`PREV_MODEL=$DONE${p.i}`, 'with_tokenizer "$PREV_MODEL"')
      lines.push(
        ...asearcherRun({ script: name, n: p.i + 1, label: `phase ${p.i + 1}`, trial: `phase${p.i + 1}`, data: `$DATA/${phaseFile(p.i)}`, epochs, spe, from: p.i === 0 ? '"$MODEL"' : '"$PREV_MODEL"' }),
      )
    }
    return lines.join('\n') + '\n'
  },
}

// world/qa/engines/asearcher: AReaL/ASearcher (813e804) as an engine profile — its stock limits (file:line on every
// number), its observation ("[Doc i](url):" blocks of doc[:5000] in <information>, no cut of the whole), its rows (JSONL
// {id, question, answer}; ids without `@`), its launch flags and scripts (one dataset path per phase: phase<k>.jsonl
// holds stage files 1..k; recover_start_step between phases; the gym publishes its address for ASearcher's client).
import type { Qa } from '../../types'
import { curriculumHead, curriculumPhases, inlineFlags, serveUnitFlag, snippetFlags, snippetHead } from './launch'
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

/** The gym serving /retrieve with its address written where ASearcher's search client looks for it. */
const serve = (unit: string) => `export RAG_SERVER_ADDR_DIR=\${RAG_SERVER_ADDR_DIR:-$DATA/rag-addr}
npx searchgym gym serve "$WORLD" --host 127.0.0.1 --port 8000${unit} --address-file "$RAG_SERVER_ADDR_DIR" &`

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
  launchSnippet: (outDir, flags, unit) => `${snippetHead('asearcher', outDir)}${serve(serveUnitFlag(unit))}
# In an ASearcher (813e804, AReaL 0.3.4) checkout, local knowledge-base training (search only unless its access branch
# is patched in; see docs/train-elsewhere.md):
python3 -m areal.launcher.local ASearcher/train/asearcher.py \\
  --config ASearcher/configs/asearcher_local.yaml \\
  train_dataset.path="$DATA/train.jsonl" search_client_type=async-search-access \\
${snippetFlags(flags)}  "$@"
`,
  curriculumLaunch(c, outDir, flags) {
    const lines = [...curriculumHead('asearcher', c, outDir), serve('')]
    for (const p of curriculumPhases(c, 'jsonl')) {
      // AReaL/ASearcher 813e804: asearcher.py:396 starts at recover_start_step; actor.path: the saver's stage checkpoint.
      const resume = p.i === 0 ? '' : ` actor.path="\${STAGE${p.i}_MODEL:?set STAGE${p.i}_MODEL to phase ${p.i}'s saved model}" recover_start_step=${p.done}`
      const steps = p.until !== undefined ? ` total_train_steps=${p.until}` : ''
      // One dataset path: phase k reads phase<k>.jsonl, stage files 1..k joined.
      lines.push(
        p.comment,
        `python3 -m areal.launcher.local ASearcher/train/asearcher.py --config ASearcher/configs/asearcher_local.yaml train_dataset.path="$DATA/${phaseFile(p.i)}"${resume}${inlineFlags(flags)}${steps} "$@"`,
      )
    }
    return lines.join('\n') + '\n'
  },
}

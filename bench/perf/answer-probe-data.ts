// bench/perf/answer-probe-data: the data of bench/perf/answer-probe.ts — for every one-hop Simple question of a world,
// the oracle's whole trajectory (search, open the page by title, answer) rendered as `train sft` renders it (search-r1,
// the learning demo's gym options), with the index where the final assistant turn `<answer> X </answer>` starts.
// Held-out = the slice `train sft --held-out N` holds out (seed 0). One JSON file of token ids: training on it needs
// no world, gym or SQLite.
// Usage: node bin/run-ts.mjs bench/perf/answer-probe-data.ts --world W --model M --out FILE [--held-out 600] [--oracle-answer open|read]
// --oracle-answer open (default): the oracle opens the answer's own page before answering, so the answer turn copies
// the title of the page just opened (the reading happened at the search before it); read: search, access, answer —
// the answer turn itself must read the fact's sentence on the subject's page.
import { writeFileSync } from 'node:fs'
import { makeEnv, openGymWorld, scoreAnswer } from '../../gym'
import { ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy, runEpisode, sequenceOfTrajectory, worldOracleKnowledge } from '../../agent'
import { ChatCodec, chatTemplateOf, loadTokenizer, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { openWorld } from '../../world'
import { CurriculumSource, curriculumPreset, onlyLastTurn } from '../../curriculum'

export interface AnswerProbeItem { ids: number[]; from: number; golds: string[] }
export interface AnswerProbeData { world: string; heldOut: number; train: AnswerProbeItem[]; held: AnswerProbeItem[] }
type Item = AnswerProbeItem
const GYM = { topK: 3, observationCap: 2000, prompt: 'brief' as const, accessByTitle: true }

const arg = (n: string, d: string): string => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : d
}
const fail = (m: string): never => {
  process.stderr.write(`answer-probe-data: ${m}\n`)
  process.exit(2)
}
if (process.argv[1]?.includes('answer-probe-data')) {
  const W = arg('world', ''), M = arg('model', ''), OUT = arg('out', '')
  if (!W || !M || !OUT) fail('usage: --world W --model M --out FILE [--held-out 600]')
  const heldOut = Number(arg('held-out', '600'))
  const answer = arg('oracle-answer', 'open')
  if (answer !== 'open' && answer !== 'read') fail(`--oracle-answer must be open or read, got ${answer}`)
  const w = openWorld(W)
  const gw = await openGymWorld(W)
  const k = worldOracleKnowledge(w)
  const tok = loadTokenizer(M)
  const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
  // The held-out slice of `train sft --held-out N` (seed 0): the same questions the demo evaluates on.
  const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: 0, heldOut, turnBudget: 'fixed', maxTurns: 16, turnsPerHop: 2 })
  const held = new Set(src.heldOut().map((q) => q.id))
  const data: AnswerProbeData = { world: W, heldOut, train: [], held: [] }
  const qas = gw.listQa('train').filter((q) => q.type === 'simple' && q.hops === 1)
  for (const qa of qas) {
    const env = makeEnv(gw, qa, { ...GYM, protocol: 'search-r1', budgets: { maxTurns: 16, maxResponseTokens: 48, maxContextTokens: 4096 } })
    const rec = await runEpisode(qa, env, oraclePolicy(qa, k, { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'needed', answer: answer as 'open' | 'read' }, 'search-r1', true), { maxTurns: 200, scorer: scoreAnswer })
    if (rec.status !== 'ok' || rec.f1 < 1) continue
    const seq = sequenceOfTrajectory(codec, rec)
    // The final assistant turn starts at its first target (the train sft --answer-only mask).
    const from = onlyLastTurn(seq).sampled.indexOf(1)
    if (seq.ids.length > 4000) continue
    ;(held.has(qa.id) ? data.held : data.train).push({ ids: seq.ids, from, golds: [qa.answer, ...qa.aliases] })
  }
  await gw.close()
  w.close()
  writeFileSync(OUT, JSON.stringify(data) + '\n')
  const mean = (xs: Item[]) => Math.round(xs.reduce((a, x) => a + x.ids.length, 0) / Math.max(1, xs.length))
  process.stdout.write(`answer-probe: ${data.train.length} training and ${data.held.length} held-out one-hop answer turns (${mean(data.train)} tokens each) → ${OUT}\n`)

}

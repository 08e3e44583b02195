// bench/perf/copy-probe: can the tiny model learn to COPY an entity name from the question into its first search?
// (the failure that keeps the learning demonstration at F1 0). SFT on the first turn only — prompt (search-r1) +
// the oracle's first call `<search> NAME </search>` — over every non-held-out training question (short sequences,
// many examples per CPU second), then greedy first turns on the held-out slice: exact-match rate of the query and the
// share of queries that are a span of the question. Prints a line per 20 steps and the result as JSON.
//
// Usage: node bin/run-ts.mjs bench/perf/copy-probe.ts --world W --model M --out DIR [--steps 400] [--lr 2e-2]
//          [--held-out 120] [--backend auto] [--lora-rank 64] [--batch 16] [--gym '{"prompt":"brief"}'] (gym options
//          merged over {protocol: search-r1, topK: 3, observationCap: 800}) [--target oracle|question]
//          [--lora-embed] (LoRA on the input embedding too)
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeEnv, openGymWorld } from '../../gym'
import { oraclePolicy, sequenceOfTrajectory, worldOracleKnowledge } from '../../agent'
import { createBackend, generateBatch, Learner, LORA_TARGETS, loadModel, loadTokenizer, ChatCodec, chatTemplateOf, SIMPLE_QWEN_TEMPLATE, parseBackendName } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { openWorld } from '../../world'
import { CurriculumSource, curriculumPreset } from '../../curriculum'

const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 ? process.argv[i + 1] : d
}
const W = arg('world', ''), M = arg('model', ''), OUT = arg('out', '')
if (!W || !M || !OUT) {
  process.stderr.write('usage: copy-probe.ts --world W --model M --out DIR [--steps N] [--lr X] [--held-out N]\n')
  process.exit(2)
}
const steps = Number(arg('steps', '400')), lr = Number(arg('lr', '2e-2')), heldOut = Number(arg('held-out', '120'))
const rank = Number(arg('lora-rank', '64')), batchSize = Number(arg('batch', '16'))
const GYM = { protocol: 'search-r1' as const, topK: 3, observationCap: 800, ...(JSON.parse(arg('gym', '{}')) as object) }
mkdirSync(OUT, { recursive: true })
const w = openWorld(W)
const gw = await openGymWorld(W)
const k = worldOracleKnowledge(w)
const src = new CurriculumSource(curriculumPreset('mixed', 1), gw.listQa('train'), { seed: 0, heldOut, turnBudget: 'fixed', maxTurns: 16, turnsPerHop: 2 })
const held = src.heldOut()
const heldIds = new Set(held.map((q) => q.id))
const train = gw.listQa('train').filter((q) => !heldIds.has(q.id))
const tok = loadTokenizer(M)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const model = loadModel(M, createBackend(parseBackendName(arg('backend', 'auto'))))
const learner = new Learner(model, { lora: { rank, alpha: 2 * rank, targets: [...LORA_TARGETS], embedTokens: process.argv.includes('--lora-embed') }, seed: 0 })
/** The prompt messages and the oracle's first turn of a question. */
async function firstTurn(qa: (typeof train)[number]) {
  const env = makeEnv(gw, qa, GYM)
  const initial = await env.initialObservation()
  const t = await oraclePolicy(qa, k, undefined, 'search-r1').act(initial)
  // --target question: the first search is the whole question (a sequential copy, what an induction head does)
  // instead of the entity name (which needs the model to know which tokens are names).
  return { initial, text: arg('target', 'oracle') === 'question' ? `<search> ${qa.question} </search>` : t.text }
}
const seqs: ReturnType<typeof sequenceOfTrajectory>[] = []
for (const qa of train) {
  const f = await firstTurn(qa)
  seqs.push(sequenceOfTrajectory(codec, { initial: f.initial, turns: [{ text: f.text, observation: [] }] } as never))
}
process.stderr.write(`copy-probe: ${seqs.length} first-turn sequences, ${Math.round(seqs.reduce((a, s) => a + s.ids.length, 0) / seqs.length)} tokens each\n`)
const t0 = performance.now()
const curve: { step: number; loss: number }[] = []
for (let step = 1; step <= steps; step++) {
  const batch = Rng.derive(0, 'copy-probe', step).shuffle(seqs.map((_, i) => i)).slice(0, batchSize)
  const datums = batch.map((i) => {
    const s = seqs[i]
    const T = s.ids.length - 1
    const n = s.sampled.slice(1).filter((x) => x === 1).length
    return { inputTokens: s.ids.slice(0, T), targetTokens: s.ids.slice(1), mask: s.sampled.slice(1).map((x) => (x === 1 ? 1 / (n * batch.length) : 0)) }
  })
  const r = learner.forwardBackward(datums, { name: 'cross_entropy' })
  learner.optimStep({ lr, gradClip: 1 })
  if (step % 20 === 0 || step === 1) {
    curve.push({ step, loss: r.loss })
    process.stderr.write(`step ${step}/${steps} loss ${r.loss.toFixed(3)} ${((performance.now() - t0) / 1000).toFixed(0)} s\n`)
  }
}
learner.saveAdapter(join(OUT, 'adapter'))
let exact = 0, span = 0
const examples: string[] = []
for (const qa of held) {
  const f = await firstTurn(qa)
  const prompt = codec.renderPrompt(f.initial as never).ids
  const out = generateBatch(model, [prompt], { n: 1, maxNewTokens: 32, temperature: 0, topP: 1, topK: 0, seed: 0, eosTokenIds: tok.special.stop, useLora: true })[0][0]
  const text = codec.cut({ tokenIds: out.tokens, logprobs: out.logprobs, finish: out.finishReason === 'length' ? 'length' : 'stop' }).text
  const q = /<search>(.*?)<\/search>/.exec(text)?.[1].trim() ?? ''
  const gold = /<search>(.*?)<\/search>/.exec(f.text)?.[1].trim() ?? ''
  if (q && q === gold) exact++
  if (q && qa.question.includes(q)) span++
  if (examples.length < 8) examples.push(`${JSON.stringify(text)} (oracle ${JSON.stringify(f.text)})`)
}
const res = { trainSequences: seqs.length, steps, lr, heldOut: held.length, exactQuery: exact / held.length, queryIsSpanOfQuestion: span / held.length, seconds: (performance.now() - t0) / 1000, curve, examples }
writeFileSync(join(OUT, 'copy-probe.json'), JSON.stringify(res, null, 2) + '\n')
process.stdout.write(JSON.stringify({ ...res, curve: undefined }, null, 2) + '\n')
await gw.close()
w.close()

// bench/perf/answer-probe: can a model learn to READ — to copy a one-hop question's answer out of the page it opened?
// The learning demonstration's SFT start opens the page that holds the answer in most held-out episodes and then
// answers wrong (bench/RESULTS.md, sixth attempt); this isolates that last step. Two scripts:
//   answer-probe-data.ts: the oracle's whole trajectory for every one-hop Simple question of a world (search, open the page by
//     title, answer), rendered as the SFT renders it (search-r1, the demo's gym options); the final assistant turn
//     `<answer> X </answer>` is the only target. Held-out = the same slice `train sft --held-out N` holds out.
//     Writes one JSON file of token ids (no world, gym or SQLite is needed to train on it — the GPU machine has none).
//   answer-probe.ts --data FILE (imports only infra/engine, so it bundles for the GPU machine): LoRA SFT (rank 64 + input-embedding LoRA, cross-entropy on the answer turn only) from a fresh model,
//     and greedy answers on the held-out contexts every --eval-every steps: exact match of the answer text with a gold.
// Usage: node bin/run-ts.mjs bench/perf/answer-probe-data.ts --world W --model M --out FILE [--held-out 600]
//        node bin/run-ts.mjs bench/perf/answer-probe.ts --data FILE --model M --out DIR [--backend auto|native|ts|cuda]
//          [--steps 1000] [--batch 16] [--lr 1e-3] [--eval-every 250] [--eval-n 200] [--seconds S] (stop after S seconds)
//          [--init tiny|small|…] (a fresh random model of that preset, built in memory exactly as `model init --seed 0
//          --embed-std 0.25 (small: 0.125) --qk-norm-weight 2.5` builds it, with the tokenizer of --model DIR; no weights
//          need to travel) [--adapter DIR] (start from this PEFT adapter of --model; with --steps 0 it only scores it on the
//          held-out contexts: e.g. how often an SFT start copies the answer when handed the oracle's episode)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ChatCodec, chatTemplateOf, createBackend, createRandomModel, generateBatch, Learner, LORA_TARGETS, loadModel, loadTokenizer, parseBackendName, presetConfig, SIMPLE_QWEN_TEMPLATE, type PresetName } from '../../infra/engine'
import { Rng } from '../../infra/rng'

const arg = (n: string, d: string): string => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : d
}
const fail = (m: string): never => {
  process.stderr.write(`answer-probe: ${m}\n`)
  process.exit(2)
}
import type { AnswerProbeData as Data } from './answer-probe-data'
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N} ]/gu, ' ').replace(/\s+/g, ' ').trim()

const DATA = arg('data', ''), M = arg('model', ''), OUT = arg('out', '')
if (!DATA || !M || !OUT) fail('usage: --data FILE --model M --out DIR (or --make-data; see the header)')
const data = JSON.parse(readFileSync(DATA, 'utf8')) as Data
const steps = Number(arg('steps', '1000')), batch = Number(arg('batch', '16')), lr = Number(arg('lr', '1e-3'))
const evalEvery = Number(arg('eval-every', '250')), evalN = Math.min(Number(arg('eval-n', '200')), data.held.length)
const seconds = Number(arg('seconds', '0'))
mkdirSync(OUT, { recursive: true })
const tok = loadTokenizer(M)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const backendName = arg('backend', 'auto')
const backend = createBackend(parseBackendName(backendName))
const preset = arg('init', '')
// As init-model.ts: embedding rows = the tokenizer's ids rounded up to 64; qwen3 switches; the same seeded stream.
const model = preset
  ? createRandomModel({ ...presetConfig(preset as PresetName, Math.ceil(tok.vocabSize / 64) * 64, tok.special.stop), arch: 'qwen3', qkNorm: true, qkvBias: false, oBias: false },
      Rng.derive(0, 'model-init', preset, 'qwen3'), backend, { std: 0.02, embedStd: preset === 'small' ? 0.125 : 0.25, qkNormWeight: 2.5 })
  : loadModel(M, backend)
const learner = new Learner(model, { lora: { rank: 64, alpha: 128, targets: [...LORA_TARGETS], embedTokens: true }, seed: 0 })
const adapter = arg('adapter', '')
if (adapter && preset) fail('--adapter is an adapter of --model: not with --init')
if (adapter) learner.loadAdapter(adapter)
if (!(Number.isInteger(steps) && steps >= 0)) fail(`--steps must be an integer ≥ 0, got ${arg('steps', '')}`)
const held = data.held.slice(0, evalN)

function evaluate(): { exact: number; contains: number; examples: string[] } {
  let exact = 0, contains = 0
  const examples: string[] = []
  for (let i = 0; i < held.length; i += 32) {
    const chunk = held.slice(i, i + 32)
    const outs = generateBatch(model, chunk.map((h) => h.ids.slice(0, h.from)), { n: 1, maxNewTokens: 24, temperature: 0, topP: 1, topK: 0, seed: 0, eosTokenIds: tok.special.stop, useLora: true })
    outs.forEach((o, j) => {
      const text = codec.cut({ tokenIds: o[0].tokens, logprobs: o[0].logprobs, finish: o[0].finishReason === 'length' ? 'length' : 'stop' }).text
      const ans = norm(/<answer>([\s\S]*?)(<\/answer>|$)/.exec(text)?.[1] ?? '')
      const golds = chunk[j].golds.map(norm)
      if (ans && golds.includes(ans)) exact++
      if (ans && golds.some((g) => ans.includes(g) || g.includes(ans))) contains++
      if (examples.length < 6) examples.push(`${JSON.stringify(text.slice(0, 60))} gold ${JSON.stringify(chunk[j].golds[0])}`)
    })
  }
  return { exact: exact / held.length, contains: contains / held.length, examples }
}

const t0 = performance.now()
const curve: { step: number; loss: number; seconds: number; exact?: number; contains?: number }[] = []
let loss = 0, done = 0
if (steps === 0) {
  const e = evaluate()
  curve.push({ step: 0, loss: NaN, seconds: Math.round((performance.now() - t0) / 1000), exact: e.exact, contains: e.contains })
  process.stderr.write(`step 0 held-out exact ${(100 * e.exact).toFixed(1)} % contains ${(100 * e.contains).toFixed(1)} % ${e.examples.slice(0, 2).join(' | ')}\n`)
}
for (let step = 1; step <= steps; step++) {
  const pick = Rng.derive(0, 'answer-probe', step).shuffle(data.train.map((_, i) => i)).slice(0, batch)
  const datums = pick.map((i) => {
    const s = data.train[i]
    const T = s.ids.length - 1
    const n = T - (s.from - 1)
    // target t+1 is in the answer turn when t + 1 >= from
    return { inputTokens: s.ids.slice(0, T), targetTokens: s.ids.slice(1), mask: Array.from({ length: T }, (_, t) => (t + 1 >= s.from ? 1 / (n * pick.length) : 0)) }
  })
  const r = learner.forwardBackward(datums, { name: 'cross_entropy' })
  learner.optimStep({ lr, gradClip: 1 })
  loss = r.loss
  done = step
  const sec = (performance.now() - t0) / 1000
  const last = step === steps || (seconds > 0 && sec >= seconds)
  if (step % evalEvery === 0 || last) {
    const e = evaluate()
    curve.push({ step, loss, seconds: Math.round(sec), exact: e.exact, contains: e.contains })
    process.stderr.write(`step ${step} loss ${loss.toFixed(3)} held-out exact ${(100 * e.exact).toFixed(1)} % contains ${(100 * e.contains).toFixed(1)} % (${sec.toFixed(0)} s) ${e.examples.slice(0, 2).join(' | ')}\n`)
  } else if (step % 50 === 0) {
    curve.push({ step, loss, seconds: Math.round(sec) })
    process.stderr.write(`step ${step} loss ${loss.toFixed(3)} (${sec.toFixed(0)} s)\n`)
  }
  if (last) break
}
const res = { model: preset ? `${preset} (fresh, tokenizer of ${M})` : M, adapter: adapter || null, backend: backendName, params: model.config, train: data.train.length, heldOut: held.length, steps: done, batch, lr, seconds: (performance.now() - t0) / 1000, curve }
writeFileSync(join(OUT, 'answer-probe.json'), JSON.stringify(res, null, 2) + '\n')
process.stdout.write(JSON.stringify({ ...res, curve: curve.filter((c) => c.exact !== undefined), params: undefined }) + '\n')

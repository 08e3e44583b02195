// bench/perf/answer-probe-grpo: does the trainer's GRPO update teach a model to READ when the start has a signal? The
// answer probe's task (answer-probe.ts: the oracle's one-hop episode as context, `<answer> X </answer>` the only turn to
// produce), where the learning demo's SFT start already copies the right answer now and then. Each step draws
// --questions training contexts, samples --group answers to each at --temperature, scores them with the gym's token F1
// against the golds, and updates through the code `searchgym train` runs (agent/grpo: groupAdvantages, buildDatums,
// grpoUpdate; PPO clip 0.4/0.4, token mean, no KL), skipping groups whose rewards are all equal. Greedy exact match on
// the held-out contexts before, every --eval-every steps and after, and the paired bootstrap CI of the gain (bench/stats,
// as `bench compare`). It separates the update from navigation, which the full-episode demo's start lacks. Writes
// OUT/answer-probe-grpo.json and the trained adapter OUT/adapter.
// Usage: node bin/run-ts.mjs bench/perf/answer-probe-grpo.ts --data FILE --model M --adapter DIR --out DIR
//          [--steps 60] [--questions 16] [--group 8] [--temperature 0.7] [--lr 1e-4] [--eval-every 20] [--eval-n 174]
//          [--seconds S] (stop after S seconds) [--backend auto|native|ts]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ChatCodec, chatTemplateOf, createBackend, generateBatch, Learner, LORA_TARGETS, loadModel, loadTokenizer, parseBackendName, SIMPLE_QWEN_TEMPLATE } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { scoreAnswer } from '../../gym/answer-metrics'
import { groupAdvantages } from '../../agent/grpo/advantages'
import { buildDatums, type ScoredSequence } from '../../agent/grpo/datums'
import { grpoUpdate } from '../../agent/grpo/learn'
import { pairedDifference } from '../stats'
import type { AnswerProbeData, AnswerProbeItem } from './answer-probe-data'

const arg = (n: string, d: string): string => {
  const i = process.argv.indexOf(`--${n}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : d
}
const fail = (m: string): never => {
  process.stderr.write(`answer-probe-grpo: ${m}\n`)
  process.exit(2)
}
const num = (n: string, d: string, ok: (x: number) => boolean): number => {
  const x = Number(arg(n, d))
  return ok(x) ? x : fail(`--${n} must be a valid number, got ${arg(n, d)}`)
}
const DATA = arg('data', ''), M = arg('model', ''), ADAPTER = arg('adapter', ''), OUT = arg('out', '')
if (!DATA || !M || !OUT) fail('usage: --data FILE --model M [--adapter DIR] --out DIR (see the header)')
const steps = num('steps', '60', (x) => Number.isInteger(x) && x >= 0)
const Q = num('questions', '16', (x) => Number.isInteger(x) && x >= 1)
const G = num('group', '8', (x) => Number.isInteger(x) && x >= 2)
const temperature = num('temperature', '0.7', (x) => x > 0)
const lr = num('lr', '1e-4', (x) => x > 0)
const evalEvery = num('eval-every', '20', (x) => Number.isInteger(x) && x >= 1)
const seconds = num('seconds', '0', (x) => x >= 0)
const data = JSON.parse(readFileSync(DATA, 'utf8')) as AnswerProbeData
const held = data.held.slice(0, num('eval-n', '174', (x) => Number.isInteger(x) && x >= 1))
mkdirSync(OUT, { recursive: true })

const tok = loadTokenizer(M)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
const model = loadModel(M, createBackend(parseBackendName(arg('backend', 'auto'))))
const learner = new Learner(model, { lora: { rank: 64, alpha: 128, targets: [...LORA_TARGETS], embedTokens: true }, seed: 0 })
if (ADAPTER) learner.loadAdapter(ADAPTER)

/** The answer text of a sampled turn (what the env would take from `<answer> … </answer>`). */
function answerOf(tokens: number[], finish: 'eos' | 'stop' | 'length'): string {
  const text = codec.cut({ tokenIds: tokens, logprobs: tokens.map(() => 0), finish: finish === 'length' ? 'length' : 'stop' }).text
  return /<answer>([\s\S]*?)(<\/answer>|$)/.exec(text)?.[1]?.trim() ?? ''
}

/** Greedy answers on the held-out contexts: exact match (the gym's EM) and F1 per context. */
function evaluate(): { em: number[]; f1: number[] } {
  const em: number[] = [], f1: number[] = []
  for (let i = 0; i < held.length; i += 32) {
    const chunk = held.slice(i, i + 32)
    const outs = generateBatch(model, chunk.map((h) => h.ids.slice(0, h.from)), { n: 1, maxNewTokens: 24, temperature: 0, topP: 1, topK: 0, seed: 0, eosTokenIds: tok.special.stop, useLora: true })
    outs.forEach((o, j) => {
      const s = scoreAnswer(answerOf(o[0].tokens, o[0].finishReason), chunk[j].golds)
      em.push(s.em)
      f1.push(s.f1)
    })
  }
  return { em, f1 }
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

const t0 = performance.now()
const before = evaluate()
const curve: Record<string, number>[] = [{ step: 0, seconds: 0, heldEm: mean(before.em), heldF1: mean(before.f1) }]
process.stderr.write(`step 0: held-out EM ${(100 * mean(before.em)).toFixed(1)} % F1 ${(100 * mean(before.f1)).toFixed(1)} % (${held.length} contexts)\n`)
let last = before
let done = 0
for (let step = 1; step <= steps; step++) {
  const pick = Rng.derive(0, 'answer-probe-grpo', step).shuffle(data.train.map((_, i) => i)).slice(0, Q)
  const items: AnswerProbeItem[] = pick.map((i) => data.train[i])
  const outs = generateBatch(model, items.map((it) => it.ids.slice(0, it.from)), { n: G, maxNewTokens: 24, temperature, topP: 1, topK: 0, seed: step, eosTokenIds: tok.special.stop, useLora: true })
  const scored: ScoredSequence[] = []
  let rewardSum = 0, informative = 0
  outs.forEach((group, qi) => {
    const prompt = items[qi].ids.slice(0, items[qi].from)
    const rewards = group.map((o) => scoreAnswer(answerOf(o.tokens, o.finishReason), items[qi].golds).f1)
    rewardSum += rewards.reduce((a, b) => a + b, 0)
    if (rewards.every((r) => r === rewards[0])) return
    informative++
    const adv = groupAdvantages(rewards, { std: 'population' })
    group.forEach((o, k) => {
      const ids = [...prompt, ...o.tokens]
      const sampled = ids.map((_, t) => (t >= prompt.length ? 1 : 0))
      const logprobs = ids.map((_, t) => (t >= prompt.length ? o.modelLogprobs[t - prompt.length] : 0))
      scored.push({ seq: { ids, sampled, logprobs, truncatedTurns: o.finishReason === 'length' ? 1 : 0 }, advantage: adv[k] })
    })
  })
  const row: Record<string, number> = { step, rewardMean: rewardSum / (Q * G), informativeGroups: informative }
  if (scored.length > 0) {
    const m = grpoUpdate(learner, buildDatums(scored, 'token-mean'), { loss: 'ppo', epsLow: 0.4, epsHigh: 0.4, klBeta: 0, microBatch: 8 }, { lr, gradClip: 1 })
    Object.assign(row, { loss: m.loss, gradNorm: m.gradNorm, clipFraction: m.clipFraction })
  }
  done = step
  const sec = (performance.now() - t0) / 1000
  const stop = step === steps || (seconds > 0 && sec >= seconds)
  if (step % evalEvery === 0 || stop) {
    last = evaluate()
    Object.assign(row, { heldEm: mean(last.em), heldF1: mean(last.f1) })
  }
  row.seconds = Math.round(sec)
  curve.push(row)
  process.stderr.write(
    `step ${step}: train reward ${(100 * row.rewardMean).toFixed(1)} %, ${informative}/${Q} groups informative` +
      (row.heldEm !== undefined ? `, held-out EM ${(100 * row.heldEm).toFixed(1)} % F1 ${(100 * row.heldF1).toFixed(1)} %` : '') +
      ` (${sec.toFixed(0)} s)\n`,
  )
  if (stop) break
}
const gain = (a: number[], b: number[], label: string) => pairedDifference(a, b, { resamples: 10_000, seed: 0, label })
const res = {
  data: DATA,
  model: M,
  adapter: ADAPTER || null,
  steps: done,
  questions: Q,
  group: G,
  temperature,
  lr,
  heldOut: held.length,
  seconds: (performance.now() - t0) / 1000,
  before: { em: mean(before.em), f1: mean(before.f1) },
  after: { em: mean(last.em), f1: mean(last.f1) },
  gainEm: gain(before.em, last.em, 'em'),
  gainF1: gain(before.f1, last.f1, 'f1'),
  curve,
}
writeFileSync(join(OUT, 'answer-probe-grpo.json'), JSON.stringify(res, null, 2) + '\n')
// The trained adapter (PEFT layout, as `train` writes it): `bench run --adapter OUT/adapter` scores it on full episodes.
learner.saveAdapter(join(OUT, 'adapter'))
process.stdout.write(JSON.stringify({ ...res, curve: undefined }) + '\n')

// tests/train-sft-weights: the SFT answer-turn weight (`train sft --answer-weight W`) on a tiny random model, in
// process — the default run's adapter and metrics are pinned to what they were before weights existed; explicit
// weights of 1 give today's gradient exactly; with weights the loss is the weighted token mean computed by hand on a
// 2-sequence toy, micro-batches included; a demonstration's final turn (the one onlyLastTurn finds) gets W and nothing
// else changes; a run folder refuses resuming with another W.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { allGrads, maxDiff } from './helpers/learner-grads'
import { ChatCodec } from '../infra/engine/chat/codec'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from '../infra/engine/chat-template'
import { presetConfig } from '../infra/engine/config'
import { createRandomModel } from '../infra/engine/model'
import { Learner } from '../infra/engine/learner'
import { LORA_TARGETS } from '../infra/engine/lora'
import { TextTokenizer } from '../infra/engine/tokenizer'
import { buildWorldTokenizer } from '../infra/engine/world-tokenizer'
import { answerTurnWeights, sequenceOfTrajectory, sftTrain, type SftSequence } from '../agent/train/sft'
import { buildDatums, microBatches } from '../agent/grpo/datums'
import type { TokenSequence } from '../agent/policy/engine-policy'
import { onlyLastTurn } from '../curriculum/sft-run'

const tmp = mkdtempSync(join(tmpdir(), 'sft-weights-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function freshLearner(seed = 1): Learner {
  const m = createRandomModel(presetConfig('tiny', 32, [31]), new Rng(seed), undefined, { std: 0.3 })
  return new Learner(m, { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed })
}

/** A toy demonstration: prompt (0), then turns of assistant tokens (1) separated by observations (0). */
function toySeq(ids: number[], sampled: number[]): TokenSequence {
  return { ids, sampled, logprobs: ids.map(() => 0), truncatedTurns: 0 }
}
const SEQS: TokenSequence[] = [
  toySeq([3, 7, 11, 2, 19, 5, 8, 31, 9, 9, 4, 6, 31], [0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1]),
  toySeq([4, 4, 9, 1, 30, 31, 12, 13, 14, 31], [0, 0, 1, 1, 1, 1, 0, 0, 1, 1]),
  toySeq([5, 6, 7, 8, 9, 10, 31], [0, 0, 0, 1, 1, 1, 1]),
  toySeq([20, 21, 22, 23, 24, 25, 26, 27, 31, 28, 29, 31], [0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1]),
  toySeq([1, 2, 3, 31], [0, 1, 1, 1]),
]

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex').slice(0, 16)

test('the default SFT run (no weights) is bit-identical to the run before answer weights existed', async () => {
  const out = join(tmp, 'default')
  await sftTrain(freshLearner(), SEQS, { epochs: 2, batchSize: 2, microBatch: 1, lr: 1e-2, seed: 0, out })
  // Pinned at 8b610d3 (before --answer-weight) with this exact call; an intended change to the engine's numerics
  // re-pins them, nothing in the SFT path may. Re-pinned at 8736683: the output head runs on the masked rows only,
  // which moves the losses by float rounding (≤ 2.3e-7 here: 5.734322107 6.088461757 6.171065569 5.238205026
  // 3.775458349 3.270630300 before, 5.734322107 6.088461530 6.171065688 5.238205100 3.775458402 3.270630296 after).
  expect(sha(readFileSync(join(out, 'adapter', 'adapter_model.safetensors')))).toBe('dfad2b42b3f371e1')
  expect(sha(readFileSync(join(out, 'metrics.jsonl'), 'utf8'))).toBe('6065f154ae344d50')
  // Explicit weights of 1 (W = 1 through the weighted path) end in the same adapter bytes.
  const ones = join(tmp, 'ones')
  await sftTrain(freshLearner(), SEQS.map((s) => ({ ...s, weights: answerTurnWeights(s, 1) })), { epochs: 2, batchSize: 2, microBatch: 1, lr: 1e-2, seed: 0, out: ones })
  expect(readFileSync(join(ones, 'adapter', 'adapter_model.safetensors')).equals(readFileSync(join(out, 'adapter', 'adapter_model.safetensors')))).toBe(true)
  expect(readFileSync(join(ones, 'metrics.jsonl'), 'utf8')).toBe(readFileSync(join(out, 'metrics.jsonl'), 'utf8'))
})

test('W = 1 gives exactly the unweighted masks and gradient', () => {
  const plain = buildDatums(SEQS.map((seq) => ({ seq, advantage: 0 })), 'token-mean')
  const ones = buildDatums(SEQS.map((seq) => ({ seq, advantage: 0, weights: answerTurnWeights(seq, 1) })), 'token-mean')
  expect(ones).toEqual(plain)
  const a = freshLearner()
  const b = freshLearner()
  const la = a.forwardBackward(plain, { name: 'cross_entropy' }).loss
  const lb = b.forwardBackward(ones, { name: 'cross_entropy' }).loss
  expect(lb).toBe(la)
  expect(maxDiff(allGrads(a), allGrads(b))).toBe(0)
})

test('with W = k the loss is the weighted token mean computed by hand (2 sequences, micro-batches of 1 and of 2)', () => {
  const k = 5
  const two = SEQS.slice(0, 2)
  const weights = two.map((s) => answerTurnWeights(s, k))
  // Hand: each target position t+1 of a sequence has weight weights[t+1] where sampled, 0 elsewhere.
  const l = freshLearner()
  const lp = l.targetLogprobs(two.map((s) => ({ inputTokens: s.ids.slice(0, -1), targetTokens: s.ids.slice(1) })))
  let num = 0, den = 0
  two.forEach((s, i) => {
    for (let t = 0; t + 1 < s.ids.length; t++) {
      if (s.sampled[t + 1] !== 1) continue
      num += weights[i][t + 1] * -lp[i][t]
      den += weights[i][t + 1]
    }
  })
  // Sequence 0: turns of 5 and 3 tokens (3 weighted k); sequence 1: 4 and 2 (2 weighted k).
  expect(den).toBe(5 + 3 * k + 4 + 2 * k)
  const datums = buildDatums(two.map((seq, i) => ({ seq, advantage: 0, weights: weights[i] })), 'token-mean')
  const whole = freshLearner()
  const lossWhole = whole.forwardBackward(datums, { name: 'cross_entropy' }).loss
  const split = freshLearner()
  let lossSplit = 0
  for (const mb of microBatches(datums, 1)) lossSplit += split.forwardBackward(mb, { name: 'cross_entropy' }).loss
  expect(lossWhole).toBeCloseTo(num / den, 5)
  expect(lossSplit).toBeCloseTo(num / den, 5)
  // Each micro-batch counts its share of the step's total weight: accumulating them is the whole batch's gradient.
  expect(maxDiff(allGrads(whole), allGrads(split))).toBeLessThan(1e-6)
  // And the weight matters: the same batch at W = 1 has another loss and gradient.
  const flat = freshLearner()
  const lossFlat = flat.forwardBackward(buildDatums(two.map((seq) => ({ seq, advantage: 0 })), 'token-mean'), { name: 'cross_entropy' }).loss
  expect(Math.abs(lossFlat - lossWhole)).toBeGreaterThan(1e-4)
  expect(maxDiff(allGrads(flat), allGrads(whole))).toBeGreaterThan(1e-6)
})

test("a demonstration's final turn (onlyLastTurn's) gets weight W; every other datum field and relative weight stays", () => {
  const texts = ['Rosalyn Zemlak graduated from Pons University in 1954.', 'Henri Lehner starred in Overcooked Licenses.']
  const files = buildWorldTokenizer(texts, { vocabSize: 300, minCount: 1 })
  const tok = new TextTokenizer(files.tokenizerJson, files.tokenizerConfig as never)
  const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
  const answer = '<answer> Pons University </answer>'
  const rec = {
    initial: [{ role: 'user' as const, content: 'Which university did Rosalyn Zemlak graduate from?' }],
    turns: [
      { text: '<search> Rosalyn Zemlak </search>', observation: [{ role: 'user' as const, content: '<information> Rosalyn Zemlak graduated from Pons University in 1954. </information>' }] },
      { text: '<access> Rosalyn Zemlak </access>', observation: [{ role: 'user' as const, content: '<information> Rosalyn Zemlak ... Pons University ... </information>' }] },
      { text: answer, observation: [] },
    ],
  }
  const seq = sequenceOfTrajectory(codec, rec as never)
  const W = 8
  const w = answerTurnWeights(seq, W)
  const answerIds = [...tok.encode(answer), codec.endOfTurnId()]
  const at = w.flatMap((x, i) => (x === W ? [i] : []))
  // The W positions are exactly the final turn's tokens (text + end of turn), at the end, and the ones onlyLastTurn keeps.
  expect(at.map((i) => seq.ids[i])).toEqual(answerIds)
  expect(at[at.length - 1]).toBe(seq.ids.length - 1)
  expect(at.length).toBe(answerIds.length)
  expect(onlyLastTurn(seq).sampled.flatMap((x, i) => (x === 1 ? [i] : []))).toEqual(at)
  // Every other assistant token weighs 1, prompt and observation tokens 0.
  const earlier = [...tok.encode(rec.turns[0].text), codec.endOfTurnId(), ...tok.encode(rec.turns[1].text), codec.endOfTurnId()]
  expect(w.flatMap((x, i) => (x === 1 ? [seq.ids[i]] : []))).toEqual(earlier)
  seq.sampled.forEach((s, i) => expect(s === 0).toBe(w[i] === 0))
  // Datums: the same tokens, advantages and old log-probs; masks proportional to the weights (sum 1 each).
  const [plain] = buildDatums([{ seq, advantage: 0 }], 'token-mean')
  const [weighted] = buildDatums([{ seq, advantage: 0, weights: w }], 'token-mean')
  expect(weighted.inputTokens).toEqual(plain.inputTokens)
  expect(weighted.targetTokens).toEqual(plain.targetTokens)
  expect(weighted.advantages).toEqual(plain.advantages)
  expect(weighted.oldLogprobs).toEqual(plain.oldLogprobs)
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  expect(sum(weighted.mask!)).toBeCloseTo(1, 12)
  const total = earlier.length + W * answerIds.length
  weighted.mask!.forEach((m, t) => expect(m).toBeCloseTo(w[t + 1] / total, 14))
  // Bad weights are clear errors.
  expect(() => answerTurnWeights(seq, 0)).toThrow(/answer weight must be a finite number > 0/)
  expect(() => buildDatums([{ seq, advantage: 0, weights: w.slice(1) }], 'token-mean')).toThrow(/must be aligned/)
})

test('a run folder refuses resuming with another answer weight', async () => {
  const out = join(tmp, 'resume')
  const opts = { epochs: 1, batchSize: 2, microBatch: 2, lr: 1e-2, seed: 0, out }
  await sftTrain(freshLearner(), SEQS, opts)
  const weighted: SftSequence[] = SEQS.map((s) => ({ ...s, weights: answerTurnWeights(s, 4) }))
  await expect(sftTrain(freshLearner(), weighted, { ...opts, epochs: 2, answerWeight: 4 })).rejects.toThrow(/holds an SFT run with other settings/)
  const w4 = join(tmp, 'w4')
  await sftTrain(freshLearner(), weighted, { ...opts, out: w4, answerWeight: 4 })
  const w2: SftSequence[] = SEQS.map((s) => ({ ...s, weights: answerTurnWeights(s, 2) }))
  await expect(sftTrain(freshLearner(), w2, { ...opts, out: w4, epochs: 2, answerWeight: 2 })).rejects.toThrow(/holds an SFT run with other settings.*"answerWeight":4/)
  // The same W extends the run.
  expect((await sftTrain(freshLearner(), weighted, { ...opts, out: w4, epochs: 2, answerWeight: 4 })).steps).toBe(6)
})

// tests/engine-sample: sampling on a tiny random Qwen3 — same seed same samples, greedy decoding with the KV
// cache equals argmax of a full recomputation, log-probs agree with the learner, stop sequences / EOS / length,
// top-k and top-p truncation, and n samples of one prompt prefill it once.
import { Rng } from '../infra/rng'
import { presetConfig } from '../infra/engine/config'
import { createLoraAdapter, LORA_TARGETS } from '../infra/engine/lora'
import { createRandomModel, forward, logits, type CausalLM } from '../infra/engine/model'
import { generate, generateBatch } from '../infra/engine/sample'
import { TsBackend } from '../infra/engine/ts-backend'
import { Learner } from '../infra/engine/learner'

class CountingBackend extends TsBackend {
  embeddedRows = 0
  override embedding(table: Parameters<TsBackend['embedding']>[0], ids: Int32Array) {
    this.embeddedRows += ids.length
    return super.embedding(table, ids)
  }
}

function tinyModel(seed: number, be = new TsBackend()): CausalLM {
  const m = createRandomModel(presetConfig('tiny', 48, [47]), new Rng(seed), be, { std: 0.3 })
  m.adapter = createLoraAdapter(m.backend, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, new Rng(seed + 1))
  return m
}

const prompt = [5, 9, 13, 2, 40]

test('same seed gives the same samples; another seed gives others', () => {
  const m = tinyModel(1)
  const p = { n: 3, maxNewTokens: 12, temperature: 1, seed: 42, eosTokenIds: [] }
  const a = generate(m, prompt, p)
  const b = generate(m, prompt, p)
  expect(b).toEqual(a)
  expect(a.map((s) => s.tokens.length)).toEqual([12, 12, 12])
  expect(a.every((s) => s.finishReason === 'length')).toBe(true)
  expect(a[0].tokens).not.toEqual(a[1].tokens)
  expect(generate(m, prompt, { ...p, seed: 43 }).map((s) => s.tokens)).not.toEqual(a.map((s) => s.tokens))
  // A prompt's samples do not depend on the other prompts of the batch.
  expect(generateBatch(m, [prompt, [7, 7, 7]], p)[0]).toEqual(a)
})

test('greedy decoding with the KV cache equals argmax of a full recomputation at each step', () => {
  const m = tinyModel(2)
  const [s] = generate(m, prompt, { maxNewTokens: 8, temperature: 0, eosTokenIds: [] })
  const V = m.config.vocabSize
  const seq = [...prompt]
  for (const tok of s.tokens) {
    const f = forward(m, [{ tokens: seq }])
    const all = m.backend.toHost(logits(m, f.hidden))
    const last = all.subarray((seq.length - 1) * V, seq.length * V)
    let best = 0
    for (let i = 1; i < V; i++) if (last[i] > last[best]) best = i
    expect(tok).toBe(best)
    seq.push(tok)
  }
})

test('sampled log-probs agree with the learner; temperature/top-k/top-p change the sampling log-probs only', () => {
  const m = tinyModel(3)
  const learner = new Learner(m)
  const [s] = generate(m, prompt, { maxNewTokens: 10, seed: 7, eosTokenIds: [] })
  const lp = learner.computeLogprobs([...prompt, ...s.tokens]).slice(prompt.length - 1)
  expect(lp.length).toBe(s.tokens.length)
  lp.forEach((x, i) => expect(s.modelLogprobs[i]).toBeCloseTo(x, 5))
  s.logprobs.forEach((x, i) => expect(x).toBeCloseTo(s.modelLogprobs[i], 9))
  const [cut] = generate(m, prompt, { maxNewTokens: 10, seed: 7, topK: 5, topP: 0.9, eosTokenIds: [] })
  const lpCut = learner.computeLogprobs([...prompt, ...cut.tokens]).slice(prompt.length - 1)
  cut.modelLogprobs.forEach((x, i) => expect(x).toBeCloseTo(lpCut[i], 5))
  // A truncated (renormalised) distribution gives each drawn token at least its model probability.
  cut.logprobs.forEach((x, i) => expect(x).toBeGreaterThanOrEqual(cut.modelLogprobs[i] - 1e-9))
  expect(cut.logprobs.some((x, i) => x > cut.modelLogprobs[i] + 1e-6)).toBe(true)
  // Temperature: the sampling log-prob is log softmax(logits / t) at the drawn token.
  const [hot] = generate(m, prompt, { maxNewTokens: 4, seed: 7, temperature: 0.7, eosTokenIds: [] })
  const V = m.config.vocabSize
  const seq = [...prompt, ...hot.tokens]
  const all = m.backend.toHost(logits(m, forward(m, [{ tokens: seq }]).hidden))
  hot.tokens.forEach((tok, i) => {
    const row = Array.from(all.subarray((prompt.length - 1 + i) * V, (prompt.length + i) * V), (x) => x / 0.7)
    const mx = Math.max(...row)
    const lse = mx + Math.log(row.reduce((a, x) => a + Math.exp(x - mx), 0))
    expect(hot.logprobs[i]).toBeCloseTo(row[tok] - lse, 5)
  })
  const greedy = generate(m, prompt, { maxNewTokens: 6, temperature: 0, eosTokenIds: [] })[0].tokens
  expect(generate(m, prompt, { maxNewTokens: 6, topK: 1, seed: 3, eosTokenIds: [] })[0].tokens).toEqual(greedy)
  const nucleus = generate(m, prompt, { maxNewTokens: 6, topP: 1e-6, seed: 3, eosTokenIds: [] })[0]
  expect(nucleus.tokens).toEqual(greedy)
  nucleus.logprobs.forEach((x) => expect(x).toBeCloseTo(0, 12))
})

test('stop sequences and EOS ids end a sample (their tokens included); maxNewTokens bounds it', () => {
  const m = tinyModel(4)
  const free = generate(m, prompt, { maxNewTokens: 10, temperature: 0, eosTokenIds: [] })[0].tokens
  const stop = free.slice(3, 5)
  const firstAt = free.findIndex((_, i) => i >= 1 && free[i - 1] === stop[0] && free[i] === stop[1])
  const s = generate(m, prompt, { maxNewTokens: 10, temperature: 0, eosTokenIds: [], stopSequences: [[999], stop] })[0]
  expect(s.finishReason).toBe('stop')
  expect(s.stopSequence).toBe(1)
  expect(s.tokens).toEqual(free.slice(0, firstAt + 1))
  const eos = free[2]
  const e = generate(m, prompt, { maxNewTokens: 10, temperature: 0, eosTokenIds: [eos] })[0]
  expect(e.finishReason).toBe('eos')
  expect(e.tokens).toEqual(free.slice(0, free.indexOf(eos) + 1))
  expect(() => generate(m, [], { maxNewTokens: 2 })).toThrow(/empty/)
  expect(() => generate(m, prompt, { maxNewTokens: 2, topP: 0 })).toThrow(/topP/)
})

test('n samples of one prompt prefill it once', () => {
  const be = new CountingBackend()
  const m = tinyModel(5, be)
  const out = generate(m, prompt, { n: 4, maxNewTokens: 6, seed: 1, eosTokenIds: [] })
  // The prompt is embedded once; each later step embeds one token per live sample.
  expect(be.embeddedRows).toBe(prompt.length + out.reduce((a, s) => a + s.tokens.length - 1, 0))
})

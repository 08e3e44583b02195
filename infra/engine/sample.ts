// infra/engine/sample: token sampling from the model with KV caches — batched prompts, n samples per prompt
// sharing one prefill, temperature / top-k / top-p, stop token sequences and EOS ids, max new tokens, seeded.
// It works on token ids only (the tokenizer and chat template live elsewhere).
import { EngineError } from '../errors'
import { Rng } from '../rng'
import { type CausalLM, type KvCache, createKvCache, forkKvCache, forward, logits } from './model'

export interface SamplingParams {
  /** Samples per prompt (default 1). They share the prompt's prefill. */
  n?: number
  maxNewTokens: number
  /** 0 = greedy (default 1). */
  temperature?: number
  /** Nucleus mass in (0, 1] (default 1 = off). */
  topP?: number
  /** Keep the k most likely tokens (default 0 = off). Applied before top-p. */
  topK?: number
  /** Every draw comes from Rng.derive(seed, prompt index, sample index) (default 0). */
  seed?: number
  /** Token-id sequences that end a sample (e.g. the ids of `</tool_call>`, `</answer>`). */
  stopSequences?: number[][]
  /** Token ids that end a sample (default: the model config's eos ids). */
  eosTokenIds?: number[]
  /** Sample from the adapter (default true) or from the base model. */
  useLora?: boolean
}

export interface SampledSequence {
  /** Generated ids, including the EOS id or stop sequence that ended the sample. */
  tokens: number[]
  /** log-prob of each token under the distribution it was drawn from (after temperature, top-k, top-p). */
  logprobs: number[]
  /** log-prob of each token under the model itself (temperature 1, nothing truncated) — what the learner's
   *  computeLogprobs returns, so use these as old log-probs for importance ratios. */
  modelLogprobs: number[]
  /** 'eos': an EOS id; 'stop': a stop sequence (index in stopSequence); 'length': maxNewTokens reached. */
  finishReason: 'eos' | 'stop' | 'length'
  stopSequence?: number
}

interface Resolved {
  n: number
  maxNewTokens: number
  temperature: number
  topP: number
  topK: number
  seed: number
  stopSequences: number[][]
  eos: Set<number>
  useLora: boolean
}

function resolve(model: CausalLM, p: SamplingParams): Resolved {
  const r: Resolved = {
    n: p.n ?? 1,
    maxNewTokens: p.maxNewTokens,
    temperature: p.temperature ?? 1,
    topP: p.topP ?? 1,
    topK: p.topK ?? 0,
    seed: p.seed ?? 0,
    stopSequences: (p.stopSequences ?? []).filter((s) => s.length > 0),
    eos: new Set(p.eosTokenIds ?? model.config.eosTokenIds),
    useLora: p.useLora ?? true,
  }
  const bad = (what: string): never => {
    throw new EngineError('engine.sampling_params', what)
  }
  if (!Number.isInteger(r.n) || r.n < 1) bad(`n must be a positive integer, got ${r.n}`)
  if (!Number.isInteger(r.maxNewTokens) || r.maxNewTokens < 1) bad(`maxNewTokens must be a positive integer, got ${r.maxNewTokens}`)
  if (!(r.temperature >= 0)) bad(`temperature must be >= 0, got ${r.temperature}`)
  if (!(r.topP > 0 && r.topP <= 1)) bad(`topP must be in (0, 1], got ${r.topP}`)
  if (!Number.isInteger(r.topK) || r.topK < 0) bad(`topK must be a non-negative integer, got ${r.topK}`)
  return r
}

/** Log-softmax of a host row in float64. */
function logSoftmaxRow(x: Float32Array, scale = 1): Float64Array {
  let max = -Infinity
  for (let i = 0; i < x.length; i++) if (x[i] * scale > max) max = x[i] * scale
  let s = 0
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] * scale - max)
  const lse = max + Math.log(s)
  const out = new Float64Array(x.length)
  for (let i = 0; i < x.length; i++) out[i] = x[i] * scale - lse
  return out
}

/**
 * The token ids a draw may pick from log-probs lp (already temperature-scaled), by decreasing probability (ties:
 * lower id first): the top-k (0 = all), then the smallest prefix whose renormalised mass reaches top-p.
 */
export function samplingSupport(lp: Float64Array, topK: number, topP: number): number[] {
  if (topK === 0 && topP === 1) return [...lp.keys()]
  let cand: number[]
  const byProb = (a: number, b: number): number => lp[b] - lp[a] || a - b
  // Tokens more than e^30 times less likely than the best can only matter when top-p is within ~V·e^-30 of 1;
  // sort the rest first and fall back to the full sort in that case (keeps 150k-token vocabularies cheap).
  let max = -Infinity
  for (let i = 0; i < lp.length; i++) if (lp[i] > max) max = lp[i]
  const likely: number[] = []
  for (let i = 0; i < lp.length; i++) if (lp[i] > max - 30) likely.push(i)
  cand = likely.sort(byProb)
  let total = 0
  for (let i = 0; i < lp.length; i++) total += Math.exp(lp[i])
  if (topK > 0) {
    if (cand.length < topK && cand.length < lp.length) cand = [...lp.keys()].sort(byProb)
    cand = cand.slice(0, topK)
    // Top-p then applies to the renormalised top-k distribution (as in Hugging Face and vLLM).
    total = 0
    for (const i of cand) total += Math.exp(lp[i])
  }
  if (topP < 1) {
    let cum = 0
    let keep = 0
    while (keep < cand.length) {
      cum += Math.exp(lp[cand[keep]]) / total
      keep++
      if (cum >= topP) break
    }
    if (cum < topP && cand.length < lp.length && topK === 0) {
      cand = [...lp.keys()].sort(byProb)
      cum = 0
      keep = 0
      while (keep < cand.length) {
        cum += Math.exp(lp[cand[keep]]) / total
        keep++
        if (cum >= topP) break
      }
    }
    cand = cand.slice(0, keep)
  }
  return cand
}

/** Draw one token from a row of logits; returns the id and its log-probs (sampling policy, raw model). */
export function sampleToken(row: Float32Array, r: Pick<Resolved, 'temperature' | 'topK' | 'topP'>, rng: Rng): { id: number; logprob: number; modelLogprob: number } {
  const raw = logSoftmaxRow(row)
  if (r.temperature === 0) {
    let best = 0
    for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i
    return { id: best, logprob: 0, modelLogprob: raw[best] }
  }
  const lp = r.temperature === 1 ? raw : logSoftmaxRow(row, 1 / r.temperature)
  const cand = samplingSupport(lp, r.topK, r.topP)
  let z = 0
  for (const i of cand) z += Math.exp(lp[i])
  let u = rng.next() * z
  let id = cand[cand.length - 1]
  for (const i of cand) {
    u -= Math.exp(lp[i])
    if (u < 0) {
      id = i
      break
    }
  }
  return { id, logprob: lp[id] - Math.log(z), modelLogprob: raw[id] }
}

interface Live {
  prompt: number
  out: SampledSequence
  cache: KvCache
  rng: Rng
  last: number
  done: boolean
}

function endsWith(tokens: number[], seq: number[]): boolean {
  if (seq.length > tokens.length) return false
  for (let i = 0; i < seq.length; i++) if (tokens[tokens.length - seq.length + i] !== seq[i]) return false
  return true
}

/** Append a drawn token; returns true when the sample is finished. */
function push(s: Live, d: { id: number; logprob: number; modelLogprob: number }, r: Resolved): boolean {
  s.out.tokens.push(d.id)
  s.out.logprobs.push(d.logprob)
  s.out.modelLogprobs.push(d.modelLogprob)
  s.last = d.id
  if (r.eos.has(d.id)) s.out.finishReason = 'eos'
  else {
    const k = r.stopSequences.findIndex((seq) => endsWith(s.out.tokens, seq))
    if (k >= 0) {
      s.out.finishReason = 'stop'
      s.out.stopSequence = k
    } else if (s.out.tokens.length < r.maxNewTokens) return false
  }
  s.done = true
  return true
}

/**
 * Sample `n` continuations of each prompt. Prompts are prefilled together (one forward over the batch), each
 * prompt once; its n samples then copy that prefix cache and decode in one batched forward per step.
 * Result: one array of n samples per prompt, in order.
 */
export function generateBatch(model: CausalLM, prompts: readonly (readonly number[])[], params: SamplingParams): SampledSequence[][] {
  const r = resolve(model, params)
  const be = model.backend
  if (prompts.length === 0) return []
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new EngineError('engine.sampling_prompt', `prompt ${i} is empty; give at least one token (e.g. BOS)`)
  })
  const capacity = (p: readonly number[]): number => p.length + r.maxNewTokens
  const prefixCaches = prompts.map((p) => createKvCache(model, capacity(p)))
  const pre = forward(model, prompts.map((p, i) => ({ tokens: p, cache: prefixCaches[i] })), { useLora: r.useLora })
  const lastRows = be.concatRows(pre.segments.map((g) => be.sliceRows(pre.hidden, g.offset + g.length - 1, g.offset + g.length)))
  const V = model.config.vocabSize
  const firstLogits = be.toHost(logits(model, lastRows))
  const live: Live[] = []
  prompts.forEach((p, pi) => {
    const row = firstLogits.subarray(pi * V, (pi + 1) * V)
    for (let j = 0; j < r.n; j++) {
      const s: Live = {
        prompt: pi,
        out: { tokens: [], logprobs: [], modelLogprobs: [], finishReason: 'length' },
        cache: j === r.n - 1 ? prefixCaches[pi] : forkKvCache(model, prefixCaches[pi], capacity(p)),
        rng: Rng.derive(r.seed, 'sample', pi, j),
        last: -1,
        done: false,
      }
      push(s, sampleToken(row, r, s.rng), r)
      live.push(s)
    }
  })
  for (;;) {
    const active = live.filter((s) => !s.done)
    if (active.length === 0) break
    const f = forward(model, active.map((s) => ({ tokens: [s.last], cache: s.cache })), { useLora: r.useLora })
    const rowsHost = be.toHost(logits(model, f.hidden))
    active.forEach((s, i) => push(s, sampleToken(rowsHost.subarray(i * V, (i + 1) * V), r, s.rng), r))
  }
  const out: SampledSequence[][] = prompts.map(() => [])
  for (const s of live) out[s.prompt].push(s.out)
  return out
}

/** n samples of one prompt (the API the OpenAI-compatible server calls). */
export function generate(model: CausalLM, promptIds: readonly number[], params: SamplingParams): SampledSequence[] {
  return generateBatch(model, [promptIds], params)[0]
}

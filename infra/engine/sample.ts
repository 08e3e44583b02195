// infra/engine/sample: token sampling from the model with KV caches — batched prompts, n samples per prompt
// sharing one prefill, temperature / top-k / top-p, stop token sequences and EOS ids, max new tokens, seeded.
// It works on token ids only (the tokenizer and chat template live elsewhere).
import { EngineError } from '../errors'
import { Rng } from '../rng'
import type { DecoderStack, Tensor } from './backend'
import { type CausalLM, type KvCache, createKvCache, decoderStack, forkKvCache, kvCapacityClass, logits, mergeAdapter, releaseDecoderStack } from './model'
import { type KvPrefixCache, type PrefixStamp, prefixStamp } from './prefix-cache'
import { sampleFromRow } from './sample-row'

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
  /** Keep the samples' KV caches here and continue prompts that extend a kept sequence from where it ended (the
   *  rollout's next turn prefills only the new tokens). Entries computed with other weights are dropped. */
  prefixCache?: KvPrefixCache
  /** Checked before every decode step: true ends sampling there (the caller's client left); the samples so far are
   *  returned as they are. */
  shouldStop?: () => boolean
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
  prefixCache?: KvPrefixCache
  shouldStop?: () => boolean
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
    prefixCache: p.prefixCache,
    shouldStop: p.shouldStop,
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

export { samplingSupport, sampleFromRow } from './sample-row'

/** Draw one token from a row of logits; returns the id and its log-probs (sampling policy, raw model). */
export function sampleToken(row: Float32Array, r: Pick<Resolved, 'temperature' | 'topK' | 'topP'>, rng: Rng): { id: number; logprob: number; modelLogprob: number } {
  return sampleFromRow(row, r, r.temperature === 0 ? 0 : rng.next())
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
 * Sample `n` continuations of each prompt. Prompts are prefilled together (one forwardCached over the batch), each
 * prompt once; its n samples then copy that prefix cache and decode in one batched forwardCached per step.
 * Result: one array of n samples per prompt, in order.
 */
export function generateBatch(model: CausalLM, prompts: readonly (readonly number[])[], params: SamplingParams): SampledSequence[][] {
  const r = resolve(model, params)
  if (prompts.length === 0) return []
  // Decoding applies the adapter at every step for a few rows; merging it into the weights (as servers do) costs one
  // W + scale·B·A per linear and saves two small matmuls per linear per step. The merged copy is kept with the model
  // and rebuilt only when the adapter's values change (an optimizer step, a new adapter), while it stays small
  // (MERGE_FOR_SAMPLING_BYTES); log-probs differ from the unmerged model by float32 rounding only.
  const wantMerge = r.useLora && model.adapter !== undefined && mergedBytes(model) <= MERGE_FOR_SAMPLING_BYTES
  // An embedding LoRA makes the unmerged stack's input table a merged copy too: that stack is then kept per adapter value.
  const embedLora = r.useLora && model.adapter?.embed !== undefined
  const stamp = r.prefixCache || wantMerge || embedLora ? prefixStamp(model, r.useLora) : undefined
  const merged = wantMerge ? mergedFor(model, stamp!) : undefined
  return generateWith(merged?.model ?? model, prompts, r, r.prefixCache ? stamp : undefined, merged?.stack ?? stackFor(model, r.useLora, embedLora ? stamp!.key : ''))
}

/** The decoder stack of an unmerged model, kept while its weights, adapter object and useLora stay the same (a
 *  backend binds a stack once; LoRA operands are read on every call, so their values may change in place). */
const stackCache = new WeakMap<CausalLM, { weights: CausalLM['weights']; version: number; adapter: CausalLM['adapter']; useLora: boolean; key: string; stack: DecoderStack }>()
function stackFor(model: CausalLM, useLora: boolean, key: string): DecoderStack {
  const hit = stackCache.get(model)
  if (hit && hit.weights === model.weights && hit.version === model.weightsVersion && hit.adapter === model.adapter && hit.useLora === useLora && hit.key === key) return hit.stack
  if (hit && hit.weights === model.weights) releaseDecoderStack(model, hit.stack)
  const stack = decoderStack(model, useLora)
  stackCache.set(model, { weights: model.weights, version: model.weightsVersion, adapter: model.adapter, useLora, key, stack })
  return stack
}

/** Upper bound of the extra bytes a merged copy of the adapted weights may take while sampling. */
export const MERGE_FOR_SAMPLING_BYTES = 256 * 2 ** 20

/** A model's merged copy for sampling: the adapter object, weights and adapter fingerprint it was built from, and its
 *  decoder stack (kept, so a backend that binds a stack once — native — binds it once per merge, not per call). */
interface MergedEntry {
  adapter: NonNullable<CausalLM['adapter']>
  weights: CausalLM['weights']
  key: string
  model: CausalLM
  stack: DecoderStack
}
const mergedCache = new WeakMap<CausalLM, MergedEntry>()

/** The merged copy of model's adapted weights for the adapter's values now (prefixStamp's fingerprint: Σx² of each
 *  LoRA tensor), reusing the last one when nothing changed; the previous copy is released when it is replaced. */
function mergedFor(model: CausalLM, stamp: PrefixStamp): MergedEntry {
  const ad = model.adapter!
  const hit = mergedCache.get(model)
  if (hit && hit.adapter === ad && hit.weights === model.weights && hit.key === stamp.key) return hit
  if (hit) releaseMerged(hit.weights, hit.model)
  const m = mergeAdapter(model)
  const entry: MergedEntry = { adapter: ad, weights: model.weights, key: stamp.key, model: m, stack: decoderStack(m, true) }
  mergedCache.set(model, entry)
  return entry
}

/** Drop the merged sampling copy kept for this model (its tensors are released now); the next call merges again. */
export function releaseMergedForSampling(model: CausalLM): void {
  const hit = mergedCache.get(model)
  if (!hit) return
  mergedCache.delete(model)
  releaseMerged(hit.weights, hit.model)
}

function mergedBytes(model: CausalLM): number {
  const ad = model.adapter!
  let n = 0
  model.weights.layers.forEach((lw, l) => {
    for (const t of ad.config.targets) if (ad.operand(l, t)) n += 4 * lw[t].shape[0] * lw[t].shape[1]
  })
  if (ad.embed) n += 4 * model.weights.embed.shape[0] * model.weights.embed.shape[1]
  return n
}

function releaseMerged(weights: CausalLM['weights'], merged: CausalLM): void {
  merged.weights.layers.forEach((lw, l) => {
    const orig = weights.layers[l]
    for (const k of Object.keys(lw) as (keyof typeof lw)[]) if (lw[k] && lw[k] !== orig[k]) merged.backend.release(lw[k]!)
  })
  if (merged.weights.embed !== weights.embed) merged.backend.release(merged.weights.embed)
}

/** Cumulative offsets of segment lengths. */
function cuOf(lengths: readonly number[]): Int32Array {
  const cu = new Int32Array(lengths.length + 1)
  lengths.forEach((n, i) => (cu[i + 1] = cu[i] + n))
  return cu
}

function generateWith(model: CausalLM, prompts: readonly (readonly number[])[], r: Resolved, stamp?: PrefixStamp, boundStack?: DecoderStack): SampledSequence[][] {
  const be = model.backend
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new EngineError('engine.sampling_prompt', `prompt ${i} is empty; give at least one token (e.g. BOS)`)
  })
  // One backend call per prefill (forwardCached: the whole stack, every row, KV-cache appends and cached attention
  // inside the backend, then the head and sampleRows) and ONE per decode step (decodeSample: stack, head and draw).
  const stack = boundStack ?? decoderStack(model, r.useLora)
  // Capacities in classes (kvCapacityClass): the freed caches of earlier turns and steps are reused at once.
  const capacity = (p: readonly number[]): number => kvCapacityClass(p.length + r.maxNewTokens)
  // A prompt that extends a kept sequence continues its cache (only the new tokens are prefilled).
  const pc = r.prefixCache
  const prefixCaches = prompts.map((p) => (pc && stamp ? pc.take(model, p, capacity(p), stamp) : undefined) ?? createKvCache(model, capacity(p)))
  const starts = Int32Array.from(prefixCaches, (c) => c.length)
  const ids = new Int32Array(prompts.reduce((a, p, i) => a + p.length - starts[i], 0))
  let o = 0
  prompts.forEach((p, i) => {
    for (let j = starts[i]; j < p.length; j++) ids[o++] = p[j]
  })
  if (pc) {
    pc.reused += starts.reduce((a, x) => a + x, 0)
    pc.prefilled += ids.length
  }
  const lastRows = be.forwardCached(stack, ids, cuOf(prompts.map((p, i) => p.length - starts[i])), prefixCaches, starts)
  prompts.forEach((p, i) => (prefixCaches[i].length = p.length))
  // Logits stay on the backend; sampleRows returns only ids and log-probs. One uniform per draw from each
  // sample's own Rng (none when greedy), as sampleToken draws them.
  const draw = (lg: Tensor, ss: Live[]): { id: number; logprob: number; modelLogprob: number }[] => {
    const u = Float64Array.from(ss, (s) => (r.temperature === 0 ? 0 : s.rng.next()))
    const d = be.sampleRows(lg, r, u)
    be.release(lg)
    return ss.map((_, i) => ({ id: d.ids[i], logprob: d.logprobs[i], modelLogprob: d.modelLogprobs[i] }))
  }
  const firstLogits = logits(model, lastRows)
  be.release(lastRows)
  const live: Live[] = []
  const rowOf: number[] = []
  prompts.forEach((p, pi) => {
    for (let j = 0; j < r.n; j++) {
      live.push({
        prompt: pi,
        out: { tokens: [], logprobs: [], modelLogprobs: [], finishReason: 'length' },
        cache: j === r.n - 1 ? prefixCaches[pi] : forkKvCache(model, prefixCaches[pi], capacity(p)),
        rng: Rng.derive(r.seed, 'sample', pi, j),
        last: -1,
        done: false,
      })
      rowOf.push(pi)
    }
  })
  // Row i of the first draw is prompt rowOf[i]'s last logits (n rows per prompt).
  const expanded = r.n === 1 ? firstLogits : be.concatRows(rowOf.map((pi) => be.sliceRows(firstLogits, pi, pi + 1)))
  draw(expanded, live).forEach((d, i) => push(live[i], d, r))
  if (expanded !== firstLogits) be.release(firstLogits)
  // Each decode step is one decodeSample: the stack over every live row, the head and the draw (one backend call).
  const lmHead = model.weights.lmHead
  let active = live.filter((s) => !s.done)
  while (active.length > 0) {
    if (r.shouldStop?.()) break
    const R = active.length
    const stepIds = new Int32Array(R), starts = new Int32Array(R), u = new Float64Array(R)
    const caches: KvCache[] = new Array(R)
    for (let i = 0; i < R; i++) {
      const s = active[i]
      stepIds[i] = s.last
      starts[i] = s.cache.length
      caches[i] = s.cache
      u[i] = r.temperature === 0 ? 0 : s.rng.next()
    }
    const d = be.decodeSample(stack, lmHead, stepIds, caches, starts, r, u)
    let done = false
    for (let i = 0; i < R; i++) {
      active[i].cache.length++
      done = push(active[i], { id: d.ids[i], logprob: d.logprobs[i], modelLogprob: d.modelLogprobs[i] }, r) || done
    }
    if (done) active = active.filter((s) => !s.done)
  }
  const out: SampledSequence[][] = prompts.map(() => [])
  for (const s of live) out[s.prompt].push(s.out)
  // Each prompt's prefix cache is its last sample's cache. Without a prefix store the caches live only for this call;
  // with one, each sample's cache (its prompt and all but its last token, whose keys were never computed) is kept.
  for (const s of live)
    if (pc && stamp) pc.put([...prompts[s.prompt], ...s.out.tokens.slice(0, -1)], s.cache, stamp)
    else for (const t of [...s.cache.k, ...s.cache.v]) be.release(t)
  return out
}

/** n samples of one prompt (the API the OpenAI-compatible server calls). */
export function generate(model: CausalLM, promptIds: readonly number[], params: SamplingParams): SampledSequence[] {
  return generateBatch(model, [promptIds], params)[0]
}

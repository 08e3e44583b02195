// infra/engine/backend: the boundary between the model and the arithmetic. A backend owns tensor memory and
// implements each op with its backward pass; the model only calls these. `ts` (ts-backend.ts) is the readable
// reference, `native` (native/) the C++ host backend, `cuda` (cuda/) mirrors native op by op; every backend must
// pass backend-contract.ts and model-contract.ts unchanged. createBackend (create-backend.ts) picks one.
//
// Shapes: N rows (B·T tokens flattened), C hidden, K in-features, M out-features, V vocab, H heads, KV kv-heads,
// D head dim, F ffn, r LoRA rank, T query rows, S key rows, B sequences, R sampled rows, cu [B+1] cumulative
// sequence offsets of a packed batch (cu[0] = 0, cu[B] = N; sequence b is rows cu[b]..cu[b+1]).
//
// Op list (forward → backward), the list the native and cuda backends implement:
//   memory      fromHost(f32|bf16) toHost zeros reshape sliceRows concatRows writeRows clone release memoryStats
//   elementwise add addInPlace scaleInPlace fillZero sumSquares(f64) adamwStep
//   embedding   table [V,C], ids [N] → [N,C]                       → embeddingBackward dtable [V,C]
//   linear      x [N,K], w [M,K], bias [M]?, LoRA A [r,K] B [M,r]  → linearBackward dx, dA, dB (w frozen)
//                                                                   → linearWeightGrad dw [M,K] = dyᵀ x (full-weight training)
//   mergeLora   w + scale·B·A
//   rmsnorm     x [N,C], w [C]                                     → rmsnormBackward dx, dw
//   rope        x [N,H,D], positions [N]                           → ropeBackward
//   attention   q [T,H,D], k/v [S,KV,D], qStart (one sequence / KV cache) → attentionBackward
//   attentionVarlen q [N,H,D], k/v [N,KV,D], cu (packed batch)     → attentionVarlenBackward
//   swiglu      gate, up [N,F]                                     → swigluBackward
//   logSoftmax, targetLogprobs over logits [N,V]                   → targetLogprobsBackward
//   headLogprobs hidden [N,C], w [V,C], targets [N] → [N] (fused head, chunked, no [N,V] held)
//                                                                   → headLogprobsBackward dhidden [N,C]
//   sampleRows  logits [R,V], temperature/top-k/top-p, uniforms [R] → ids, log-probs (only ids cross to JS)
//   forwardCached stack (weights of the whole decoder), ids [N], cu [B+1], per-sequence KV caches + starts [B]
//   decodeSample stack, head [V,C], ids [B] (one token per sequence), caches + starts, sampling params, uniforms [B]
//               → [B,C] final-normed hidden of each sequence's last token; the caches get the new keys/values.
//               The composition of the ops above (forward-cached.ts is the reference); inference only, no backward.
// Tolerances (backend-contract.ts): forwards within 1e-4 of a float64 naive reference (relative to max(1,|x|));
// backwards within atol 2e-3 + rtol 2e-2 of central finite differences; fused ops within 1e-4 of their unfused
// composition; sampling: the same ids as the ts sampler for the same uniforms, log-probs within 1e-6.
//
// Dtypes: activations, LoRA weights, gradients and optimizer state are float32. Frozen base weights may be stored
// in bf16 (fromHost(…, 'bf16')) wherever an op takes a weight: linear / linearBackward / mergeLora w, embedding
// table, headLogprobs w. Arithmetic accumulates in float32 or wider.
// Memory: a backend may hold tensors outside the JS heap; release(t) frees one at once (views of it become
// unusable); what is not released is freed when the handle is garbage-collected.

export type WeightDtype = 'f32' | 'bf16'

/** An opaque tensor handle owned by one backend; row-major, float32 unless dtype says bf16. */
export interface Tensor {
  readonly shape: readonly number[]
  /** 'f32' when absent. */
  readonly dtype?: WeightDtype
}

/** Sampling rules of one sampleRows call (infra/engine/sample-row.ts defines them). */
export interface RowSamplingParams {
  /** 0 = greedy. */
  temperature: number
  /** 0 = off. */
  topK: number
  /** 1 = off. */
  topP: number
}

export interface SampledRows {
  ids: Int32Array
  /** Under the distribution drawn from (temperature, top-k, top-p renormalised); 0 when greedy. */
  logprobs: Float64Array
  /** Under the model at temperature 1. */
  modelLogprobs: Float64Array
}

export interface MemoryStats {
  liveBytes: number
  peakBytes: number
}

/** A LoRA pair on a linear layer: y += scale · (x Aᵀ) Bᵀ, A [r,K], B [M,r], scale = alpha / r. */
export interface LoraOperand {
  a: Tensor
  b: Tensor
  scale: number
}

export interface AdamWHyper {
  lr: number
  beta1: number
  beta2: number
  eps: number
  weightDecay: number
  /** 1-based step number, for bias correction. */
  step: number
}

/** The seven linears of a decoder layer (the LoRA targets). */
export type StackLinear = 'q' | 'k' | 'v' | 'o' | 'gate' | 'up' | 'down'

/** One decoder layer's base weights (the model's, and the stack's before LoRA). */
export interface LayerWeights {
  inputNorm: Tensor
  postNorm: Tensor
  q: Tensor
  k: Tensor
  v: Tensor
  o: Tensor
  qBias?: Tensor
  kBias?: Tensor
  vBias?: Tensor
  oBias?: Tensor
  qNorm?: Tensor
  kNorm?: Tensor
  gate: Tensor
  up: Tensor
  down: Tensor
}

/** One decoder layer as forwardCached takes it: its weights, and in lora the operands applied (none: base only). */
export interface StackLayer extends LayerWeights {
  lora?: Partial<Record<StackLinear, LoraOperand>>
}

/** A whole decoder stack (embedding → layers → final norm) for forwardCached. It references the tensors (no copy):
 *  do not use it after releasing any of them. A backend may keep per-stack state keyed by this object's identity —
 *  including copies of the frozen weights in its own layout, so do not change the values of the base weights or the
 *  head while using a stack (LoRA operands may change: they are read on every call). */
export interface DecoderStack {
  /** The output head [V,C] decodeSample will be given (optional): a backend may prepare it with the stack. */
  head?: Tensor
  embed: Tensor
  layers: readonly StackLayer[]
  norm: Tensor
  heads: number
  kvHeads: number
  headDim: number
  eps: number
  ropeTheta: number
}

/** One sequence's KV cache: per layer keys and values [capacity, KV·D] (rows 0..start−1 filled). */
export interface CacheTensors {
  readonly k: readonly Tensor[]
  readonly v: readonly Tensor[]
}

export interface Backend {
  readonly name: string

  // ---- memory ----
  /** A copy of data on the backend; 'bf16' rounds to bfloat16 (frozen weights only). */
  fromHost(data: Float32Array, shape: readonly number[], dtype?: WeightDtype): Tensor
  /** A host copy of the values. */
  toHost(t: Tensor): Float32Array
  zeros(shape: readonly number[]): Tensor
  /** A tensor whose values are unspecified: for buffers the caller writes before every read (KV caches, whose rows past
   *  the cached length are never read). Optional: callers fall back to zeros where a backend has none. */
  uninitialized?(shape: readonly number[]): Tensor
  /** Same values, new shape (same element count); may share memory. */
  reshape(t: Tensor, shape: readonly number[]): Tensor
  /** Rows [start, end) of the first dimension; may share memory (treat as read-only). */
  sliceRows(t: Tensor, start: number, end: number): Tensor
  /** Rows of all inputs stacked along the first dimension (trailing dimensions must agree). */
  concatRows(ts: readonly Tensor[]): Tensor
  /** dst[rowOffset + i] = src[i] (KV-cache append). */
  writeRows(dst: Tensor, rowOffset: number, src: Tensor): void
  /** A fresh copy. */
  clone(t: Tensor): Tensor
  /** Free t's memory now (a no-op for views and for backends whose memory is the JS heap). */
  release(t: Tensor): void
  /** Bytes held outside the JS heap now and at peak (peak reset when resetPeak). */
  memoryStats(resetPeak?: boolean): MemoryStats

  // ---- elementwise / reductions ----
  add(a: Tensor, b: Tensor): Tensor
  /** dst += alpha · src */
  addInPlace(dst: Tensor, src: Tensor, alpha?: number): void
  scaleInPlace(t: Tensor, s: number): void
  fillZero(t: Tensor): void
  /** Σ x² in float64 (gradient-norm clipping). */
  sumSquares(t: Tensor): number
  /** One decoupled-weight-decay Adam update of p with gradient g and moments m, v (all updated in place). */
  adamwStep(p: Tensor, g: Tensor, m: Tensor, v: Tensor, h: AdamWHyper): void

  // ---- ops with backward ----
  /** table [V,C], ids [N] → [N,C] */
  embedding(table: Tensor, ids: Int32Array): Tensor
  /** dy [N,C] → dtable [V,C] (scatter-add). */
  embeddingBackward(dy: Tensor, ids: Int32Array, vocabSize: number): Tensor

  /** x [N,K], w [M,K], bias [M]?, lora? → x wᵀ + bias + lora [N,M] */
  linear(x: Tensor, w: Tensor, bias?: Tensor, lora?: LoraOperand): Tensor
  /** Gradients for a frozen w (and bias): dx [N,K], and dA [r,K], dB [M,r] when lora is given. */
  linearBackward(x: Tensor, w: Tensor, dy: Tensor, lora?: LoraOperand): { dx: Tensor; dA?: Tensor; dB?: Tensor }
  /** The weight's gradient of a linear, dyᵀ x: x [N,K], dy [N,M] → [M,K]. With `into` ([M,K], f32) it is added there
   *  in place and `into` is returned (gradient accumulation without a temporary). Full-weight training only. */
  linearWeightGrad(x: Tensor, dy: Tensor, into?: Tensor): Tensor
  /** w + scale · B A (a merged weight; w unchanged). */
  mergeLora(w: Tensor, lora: LoraOperand): Tensor

  /** Row-wise over the last dim C: x / sqrt(mean(x²) + eps) · w.  x [N,C], w [C] */
  rmsnorm(x: Tensor, w: Tensor, eps: number): Tensor
  rmsnormBackward(x: Tensor, w: Tensor, eps: number, dy: Tensor): { dx: Tensor; dw: Tensor }

  /** Rotary embedding, rotate-half convention (Hugging Face): x [N,H,D], positions [N]. */
  rope(x: Tensor, positions: Int32Array, theta: number): Tensor
  ropeBackward(dy: Tensor, positions: Int32Array, theta: number): Tensor

  /**
   * Causal grouped-query attention of one sequence. q [T,H,D], k and v [S,KV,D]; query row i sits at absolute
   * position qStart + i and sees keys 0..qStart+i. Scale 1/sqrt(D). → [T,H,D]
   */
  attention(q: Tensor, k: Tensor, v: Tensor, qStart: number): Tensor
  attentionBackward(q: Tensor, k: Tensor, v: Tensor, qStart: number, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor }

  /**
   * Causal GQA attention over a packed batch: sequence b is rows cu[b]..cu[b+1] of q [N,H,D] and k, v [N,KV,D],
   * positions from 0 (training / prefill without a cache). Equals attention() per sequence. → [N,H,D]
   */
  attentionVarlen(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array): Tensor
  attentionVarlenBackward(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor }

  /** silu(gate) · up, both [N,F] */
  swiglu(gate: Tensor, up: Tensor): Tensor
  swigluBackward(gate: Tensor, up: Tensor, dy: Tensor): { dgate: Tensor; dup: Tensor }

  /** Row-wise log-softmax of logits [N,V]. */
  logSoftmax(logits: Tensor): Tensor
  /** log softmax(logits)[n, targets[n]] → [N] */
  targetLogprobs(logits: Tensor, targets: Int32Array): Tensor
  /** dlogp [N] → dlogits [N,V] = dlogp · (onehot(target) − softmax) */
  targetLogprobsBackward(logits: Tensor, targets: Int32Array, dlogp: Tensor): Tensor

  /** Fused output head: log softmax(hidden wᵀ)[n, targets[n]] for hidden [N,C], w [V,C] → [N], in row × vocab
   *  chunks so the [N,V] logits are never held. */
  headLogprobs(hidden: Tensor, w: Tensor, targets: Int32Array): Tensor
  /** dlogp [N] → dhidden [N,C] = dlogp · (w[target] − softmax(hidden wᵀ) w), chunked likewise (w frozen). */
  headLogprobsBackward(hidden: Tensor, w: Tensor, targets: Int32Array, dlogp: Tensor): Tensor

  /** One draw per row of logits [R,V] with uniforms[r] in [0,1) (ignored when greedy); only ids and log-probs
   *  come back. The rules are sample-row.ts sampleFromRow's. */
  sampleRows(logits: Tensor, params: RowSamplingParams, uniforms: Float64Array): SampledRows

  /**
   * The decoder stack over a packed batch of B sequences that each continue their own KV cache: sequence b's new
   * tokens are ids[cu[b]..cu[b+1]) at positions starts[b].., and its keys/values are written into caches[b] at
   * rows starts[b].. (capacity permitting; distinct caches per sequence). Returns the final-normed hidden state of
   * each sequence's last new token, [B,C]. Equals model.forward with those caches, op for op (forward-cached.ts):
   * one call per decode step or prefill instead of one per op.
   */
  forwardCached(stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): Tensor

  /**
   * One decode step and its draw: forwardCached over B sequences of ONE new token each (ids [B] at positions starts,
   * keys/values written into caches), the output head (hidden · headᵀ, head [V,C]) and sampleRows with uniforms [B].
   * Equals those three calls (decodeSampleReference in forward-cached.ts, which ts and cuda use); a backend may fuse
   * them so only ids and log-probs cross per step.
   */
  decodeSample(stack: DecoderStack, head: Tensor, ids: Int32Array, caches: readonly CacheTensors[], starts: Int32Array, params: RowSamplingParams, uniforms: Float64Array): SampledRows
}

export function numel(shape: readonly number[]): number {
  let n = 1
  for (const s of shape) n *= s
  return n
}

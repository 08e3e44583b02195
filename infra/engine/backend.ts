// infra/engine/backend: the boundary between the model and the arithmetic. A backend owns tensor memory and
// implements each op with its backward pass; the model only calls these. `ts` (ts-backend.ts) is the readable
// reference; a `cuda` backend implements the same interface and must pass backend-contract.ts unchanged.
// Shapes (see index.ts): N rows (B·T tokens flattened), C hidden, K in-features, M out-features, V vocab,
// H heads, KV kv-heads, D head dim, F ffn, r LoRA rank, T query rows, S key rows.

/** An opaque tensor handle owned by one backend; row-major, float32. */
export interface Tensor {
  readonly shape: readonly number[]
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

export interface Backend {
  readonly name: string

  // ---- memory ----
  fromHost(data: Float32Array, shape: readonly number[]): Tensor
  /** A host copy of the values. */
  toHost(t: Tensor): Float32Array
  zeros(shape: readonly number[]): Tensor
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

  /** silu(gate) · up, both [N,F] */
  swiglu(gate: Tensor, up: Tensor): Tensor
  swigluBackward(gate: Tensor, up: Tensor, dy: Tensor): { dgate: Tensor; dup: Tensor }

  /** Row-wise log-softmax of logits [N,V]. */
  logSoftmax(logits: Tensor): Tensor
  /** log softmax(logits)[n, targets[n]] → [N] */
  targetLogprobs(logits: Tensor, targets: Int32Array): Tensor
  /** dlogp [N] → dlogits [N,V] = dlogp · (onehot(target) − softmax) */
  targetLogprobsBackward(logits: Tensor, targets: Int32Array, dlogp: Tensor): Tensor
}

export function numel(shape: readonly number[]): number {
  let n = 1
  for (const s of shape) n *= s
  return n
}

// bench/gpu/qwen3-step: a Qwen3-shaped model with random weights on the cuda backend's fast path — bf16 frozen base
// (cuBLASLt), fp32 LoRA on q,k,v,o,gate,up,down, packed varlen tensor-core attention, chunked head — with one GRPO
// learner step (forward, PPO token loss, backward into the LoRA weights, fused AdamW) and a batched sampler (prefill,
// KV-cache decode, device top-k/top-p). What bench/gpu/bench.ts times; the tiny shape runs on the emulated build.
// It does not load checkpoints or tokenizers (random weights, random token ids from a seeded Rng).
import { Rng } from '../../infra/rng'
import type { LoraOperand, Tensor } from '../../infra/engine/backend'
import type { CudaBackend, CudaTensor } from '../../infra/engine/cuda/cuda-backend'

export interface Qwen3Shape {
  layers: number
  hidden: number
  heads: number
  kvHeads: number
  headDim: number
  ffn: number
  vocab: number
}

/** Shapes of the anchors in shared/GPU.md (tied embeddings), and a tiny one for the emulated dry-run. */
export const QWEN3_SHAPES: Record<string, Qwen3Shape> = {
  'qwen3-0.6b': { layers: 28, hidden: 1024, heads: 16, kvHeads: 8, headDim: 128, ffn: 3072, vocab: 151936 },
  'qwen3-4b': { layers: 36, hidden: 2560, heads: 32, kvHeads: 8, headDim: 128, ffn: 9728, vocab: 151936 },
  tiny: { layers: 2, hidden: 128, heads: 4, kvHeads: 2, headDim: 64, ffn: 256, vocab: 300 },
}

const PROJ = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const
type Proj = (typeof PROJ)[number]
const EPS = 1e-6
const THETA = 1e6

interface Layer {
  w: Record<Proj, CudaTensor>
  lora: Record<Proj, LoraOperand>
  ln1: Tensor
  ln2: Tensor
  qn: Tensor
  kn: Tensor
}

export class Qwen3Lora {
  readonly layers: Layer[] = []
  readonly embed: Tensor
  readonly embedBf16: CudaTensor
  readonly finalNorm: Tensor
  private readonly adam = new Map<Tensor, { m: Tensor; v: Tensor }>()
  private step = 0

  constructor(readonly be: CudaBackend, readonly s: Qwen3Shape, readonly rank = 32, alpha = 64, seed = 1) {
    let sd = seed * 1000
    const dims = this.dims()
    const ones = (n: number): Tensor => be.fromHost(new Float32Array(n).fill(1), [n])
    this.embed = be.random([s.vocab, s.hidden], sd++, 0.05)
    this.embedBf16 = be.toBf16(this.embed)
    this.finalNorm = ones(s.hidden)
    for (let l = 0; l < s.layers; l++) {
      const w = {} as Record<Proj, CudaTensor>
      const lora = {} as Record<Proj, LoraOperand>
      for (const p of PROJ) {
        const [K, M] = dims[p]
        w[p] = be.random([M, K], sd++, 1 / Math.sqrt(K), 'bf16')
        // B non-zero so every LoRA gradient is exercised from the first step.
        lora[p] = { a: be.random([rank, K], sd++, 1 / Math.sqrt(K)), b: be.random([M, rank], sd++, 1e-3), scale: alpha / rank }
        for (const t of [lora[p].a, lora[p].b]) this.adam.set(t, { m: be.zeros(t.shape), v: be.zeros(t.shape) })
      }
      this.layers.push({ w, lora, ln1: ones(s.hidden), ln2: ones(s.hidden), qn: ones(s.headDim), kn: ones(s.headDim) })
    }
  }

  dims(): Record<Proj, [number, number]> {
    const { hidden: C, heads: H, kvHeads: KV, headDim: D, ffn: F } = this.s
    return { q: [C, H * D], k: [C, KV * D], v: [C, KV * D], o: [H * D, C], gate: [C, F], up: [C, F], down: [F, C] }
  }

  private lin(x: Tensor, l: Layer, p: Proj, keep: Tensor[] | null): Tensor {
    const y = this.be.linearBf16(x, l.w[p])
    const u = this.be.loraForward(x, l.lora[p], y)
    if (keep) keep.push(u)
    else this.be.release(u)
    return y
  }

  private linBack(x: Tensor, l: Layer, p: Proj, u: Tensor, dy: Tensor, grads: Map<Tensor, Tensor>): Tensor {
    const dx = this.be.linearBf16Backward(dy, l.w[p])
    const { dA, dB } = this.be.loraBackward(x, l.lora[p], u, dy, dx)
    grads.set(l.lora[p].a, dA)
    grads.set(l.lora[p].b, dB)
    return dx
  }

  /** One GRPO learner step over packed sequences (cu: B+1 offsets); returns Σ loss. With 'ppo' the old log-probs are
   *  this step's own (ratio 1, as in the first epoch of GRPO), so the loss value is −mean(advantage) whatever the
   *  weights; 'cross_entropy' shows learning (the loss falls step over step). */
  learnerStep(ids: Int32Array, targets: Int32Array, cu: Int32Array, advantages: Float32Array, lr = 1e-5, loss: 'ppo' | 'cross_entropy' = 'ppo'): number {
    const be = this.be
    const { heads: H, kvHeads: KV, headDim: D, hidden: C } = this.s
    const N = ids.length
    const positions = new Int32Array(N)
    for (let b = 0; b + 1 < cu.length; b++) for (let i = cu[b]; i < cu[b + 1]; i++) positions[i] = i - cu[b]
    const rel = (ts: Tensor[]): void => ts.forEach((t) => be.release(t))
    // ---- forward, keeping what backward needs ----
    let x = be.embedding(this.embed, ids)
    const saved: Tensor[][] = []
    for (const l of this.layers) {
      const keep: Tensor[] = []
      const n1 = be.rmsnormWithRstd(x, l.ln1, EPS)
      const uq: Tensor[] = [], uk: Tensor[] = [], uv: Tensor[] = []
      const q0 = this.lin(n1.y, l, 'q', uq), k0 = this.lin(n1.y, l, 'k', uk), v = this.lin(n1.y, l, 'v', uv)
      const qn = be.rmsnormWithRstd(be.reshape(q0, [N * H, D]), l.qn, EPS), kn = be.rmsnormWithRstd(be.reshape(k0, [N * KV, D]), l.kn, EPS)
      const q = be.rope(be.reshape(qn.y, [N, H, D]), positions, THETA), k = be.rope(be.reshape(kn.y, [N, KV, D]), positions, THETA)
      const vv = be.reshape(v, [N, KV, D])
      const att = be.attentionVarlenLse(q, k, vv, cu, cu)
      const uo: Tensor[] = []
      const o2 = be.reshape(att.o, [N, H * D])
      const y = this.lin(o2, l, 'o', uo)
      const x1 = be.add(x, y)
      const n2 = be.rmsnormWithRstd(x1, l.ln2, EPS)
      const ug: Tensor[] = [], uu: Tensor[] = [], ud: Tensor[] = []
      const g = this.lin(n2.y, l, 'gate', ug), u = this.lin(n2.y, l, 'up', uu)
      const sw = be.swiglu(g, u)
      const d = this.lin(sw, l, 'down', ud)
      const x2 = be.add(x1, d)
      rel([y, d])
      keep.push(x, n1.y, n1.rstd, uq[0], uk[0], uv[0], q0, k0, qn.y, qn.rstd, kn.y, kn.rstd, q, k, vv, att.o, att.lse, uo[0], x1, n2.y, n2.rstd, g, u, sw, ud[0], ug[0], uu[0])
      saved.push(keep)
      x = x2
    }
    const nf = be.rmsnormWithRstd(x, this.finalNorm, EPS)
    const { logp, lse } = be.headLogprobsLse(nf.y, this.embedBf16, targets)
    const old = be.clone(logp)
    const adv = be.fromHost(advantages, [N]), wts = be.fromHost(new Float32Array(N).fill(1 / N), [N])
    const tl = be.tokenLoss(logp, old, adv, wts, loss, 0.2, 0.28)
    const dlogp = tl.dlogp
    const lossSum = Array.from(be.toHost(tl.loss)).reduce((a, b) => a + b, 0)
    // ---- backward ----
    const dnf = be.headLogprobsLseBackward(nf.y, this.embedBf16, targets, lse, dlogp)
    let dx = be.rmsnormBackwardWithRstd(x, this.finalNorm, nf.rstd, dnf)
    rel([nf.y, nf.rstd, logp, lse, old, adv, wts, tl.loss, dlogp, dnf, x])
    const grads = new Map<Tensor, Tensor>()
    for (let li = this.layers.length - 1; li >= 0; li--) {
      const l = this.layers[li]
      const [xin, n1y, n1r, uq, uk, uv, q0, k0, qny, qnr, kny, knr, q, k, vv, ao, alse, uo, x1, n2y, n2r, g, u, sw, ud, ug, uu] = saved[li]
      // MLP
      const dsw = this.linBack(sw, l, 'down', ud, dx, grads)
      const { dgate, dup } = be.swigluBackward(g, u, dsw)
      const dn2 = this.linBack(n2y, l, 'gate', ug, dgate, grads)
      const dn2u = this.linBack(n2y, l, 'up', uu, dup, grads)
      be.addInPlace(dn2, dn2u)
      const dx1 = be.rmsnormBackwardWithRstd(x1, l.ln2, n2r, dn2)
      be.addInPlace(dx1, dx)
      rel([dsw, dgate, dup, dn2, dn2u, dx])
      // attention
      const dao = this.linBack(be.reshape(ao, [N, H * D]), l, 'o', uo, dx1, grads)
      const ga = be.attentionVarlenLseBackward(q, k, vv, ao, alse, be.reshape(dao, [N, H, D]), cu, cu)
      const dqn = be.ropeBackward(ga.dq, positions, THETA), dkn = be.ropeBackward(ga.dk, positions, THETA)
      const dq0 = be.rmsnormBackwardWithRstd(be.reshape(q0, [N * H, D]), l.qn, qnr, be.reshape(dqn, [N * H, D]))
      const dk0 = be.rmsnormBackwardWithRstd(be.reshape(k0, [N * KV, D]), l.kn, knr, be.reshape(dkn, [N * KV, D]))
      const dn1 = this.linBack(n1y, l, 'q', uq, be.reshape(dq0, [N, H * D]), grads)
      const dn1k = this.linBack(n1y, l, 'k', uk, be.reshape(dk0, [N, KV * D]), grads)
      const dn1v = this.linBack(n1y, l, 'v', uv, be.reshape(ga.dv, [N, KV * D]), grads)
      be.addInPlace(dn1, dn1k)
      be.addInPlace(dn1, dn1v)
      dx = be.rmsnormBackwardWithRstd(xin, l.ln1, n1r, dn1)
      be.addInPlace(dx, dx1)
      rel([dao, ga.dq, ga.dk, ga.dv, dqn, dkn, dq0, dk0, dn1, dn1k, dn1v, dx1])
      rel(saved[li])
      void qny
      void kny
    }
    be.release(dx)
    // ---- global-norm clip at 1 and one fused AdamW update per LoRA tensor ----
    let sq = 0
    for (const g of grads.values()) sq += be.sumSquares(g)
    const norm = Math.sqrt(sq)
    const scale = norm > 1 ? 1 / norm : 1
    this.step++
    for (const [p, g] of grads) {
      const st = this.adam.get(p)!
      be.adamwStepScaled(p, g, st.m, st.v, { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: this.step }, scale)
      be.release(g)
    }
    void C
    return lossSum
  }

  /** Hidden rows of one decoder stack over packed prompts; fills the caches with each sequence's k/v. */
  private prefill(ids: Int32Array, cu: Int32Array, caches: { k: Tensor; v: Tensor; B: number; Smax: number; KV: number; D: number }[]): Tensor {
    const be = this.be
    const { heads: H, kvHeads: KV, headDim: D } = this.s
    const N = ids.length
    const positions = new Int32Array(N)
    for (let b = 0; b + 1 < cu.length; b++) for (let i = cu[b]; i < cu[b + 1]; i++) positions[i] = i - cu[b]
    let x = be.embedding(this.embed, ids)
    this.layers.forEach((l, li) => {
      const x2 = this.block(x, l, N, positions, (q, k, v) => {
        for (let b = 0; b + 1 < cu.length; b++) {
          be.fillCache(caches[li].k, b, caches[li].Smax, k, cu[b], cu[b + 1] - cu[b])
          be.fillCache(caches[li].v, b, caches[li].Smax, v, cu[b], cu[b + 1] - cu[b])
        }
        const a = be.attentionVarlenLse(q, k, v, cu, cu)
        be.release(a.lse)
        return a.o
      })
      be.release(x)
      x = x2
    })
    void H
    void KV
    void D
    return x
  }

  /** One decoder block without saving activations; `attend` maps rotated q, k and v to the attention output. */
  private block(x: Tensor, l: Layer, N: number, positions: Int32Array, attend: (q: Tensor, k: Tensor, v: Tensor) => Tensor): Tensor {
    const be = this.be
    const { heads: H, kvHeads: KV, headDim: D } = this.s
    const n1 = be.rmsnormWithRstd(x, l.ln1, EPS)
    const q0 = this.lin(n1.y, l, 'q', null), k0 = this.lin(n1.y, l, 'k', null), v = this.lin(n1.y, l, 'v', null)
    const qn = be.rmsnormWithRstd(be.reshape(q0, [N * H, D]), l.qn, EPS), kn = be.rmsnormWithRstd(be.reshape(k0, [N * KV, D]), l.kn, EPS)
    const q = be.rope(be.reshape(qn.y, [N, H, D]), positions, THETA), k = be.rope(be.reshape(kn.y, [N, KV, D]), positions, THETA)
    const o = attend(q, k, be.reshape(v, [N, KV, D]))
    const y = this.lin(be.reshape(o, [N, H * D]), l, 'o', null)
    const x1 = be.add(x, y)
    const n2 = be.rmsnormWithRstd(x1, l.ln2, EPS)
    const g = this.lin(n2.y, l, 'gate', null), u = this.lin(n2.y, l, 'up', null)
    const sw = be.swiglu(g, u)
    const d = this.lin(sw, l, 'down', null)
    const x2 = be.add(x1, d)
    for (const t of [n1.y, n1.rstd, q0, k0, v, qn.y, qn.rstd, kn.y, kn.rstd, q, k, o, y, x1, n2.y, n2.rstd, g, u, sw, d]) be.release(t)
    return x2
  }

  /** Sample `newTokens` tokens for each prompt (equal lengths) with device top-k/top-p; returns the ids [B][newTokens]. */
  sample(prompts: Int32Array[], newTokens: number, p: { temperature: number; topK: number; topP: number }, rng: Rng): Int32Array[] {
    const be = this.be
    const B = prompts.length
    const { kvHeads: KV, headDim: D } = this.s
    const T = prompts[0].length
    const Smax = T + newTokens
    const caches = this.layers.map(() => be.createKvCache(B, Smax, KV, D))
    const cu = Int32Array.from({ length: B + 1 }, (_, b) => b * T)
    const ids = new Int32Array(B * T)
    prompts.forEach((pr, b) => ids.set(pr, b * T))
    const hAll = this.prefill(ids, cu, caches)
    const last = be.concatRows(Array.from({ length: B }, (_, b) => be.sliceRows(hAll, cu[b + 1] - 1, cu[b + 1])))
    be.release(hAll)
    const out = prompts.map(() => new Int32Array(newTokens))
    let hLast = last
    const lens = new Int32Array(B).fill(T)
    for (let step = 0; step < newTokens; step++) {
      const nf = be.rmsnormWithRstd(hLast, this.finalNorm, EPS)
      const logits = be.linearBf16(nf.y, this.embedBf16)
      const u = Float32Array.from({ length: B }, () => rng.next())
      const drawn = be.sampleDevice(logits, p, u)
      for (const t of [nf.y, nf.rstd, logits, hLast]) be.release(t)
      drawn.ids.forEach((id, b) => (out[b][step] = id))
      if (step === newTokens - 1) break
      let x = be.embedding(this.embed, drawn.ids)
      this.layers.forEach((l, li) => {
        const x2 = this.block(x, l, B, lens, (q, k, v) => be.decodeStep(caches[li], q, k, v, lens))
        be.release(x)
        x = x2
      })
      for (let b = 0; b < B; b++) lens[b]++
      hLast = x
    }
    for (const c of caches) {
      be.release(c.k)
      be.release(c.v)
    }
    return out
  }
}

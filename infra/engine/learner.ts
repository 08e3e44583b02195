// infra/engine/learner: the Tinker-style learning API over a frozen base model with a LoRA adapter, or over every
// weight (trainable 'full': pretraining from scratch, full fine-tuning): computeLogprobs, forwardBackward(datums, loss)
// accumulating gradients (the output head only at rows the loss reads), optimStep (AdamW), sample, and
// adapter / model / optimizer state save + load (PEFT format for adapters). Log-probs can be taken at a temperature T (logits / T, the
// sampling policy's own numbers) and the KL reference is either the base model or the frozen adapter the learner
// started with (a copy taken at construction). It does not know about envs, rewards or advantages.
// Shapes: a Datum is one sequence of T aligned positions (input token t predicts target token t).
import { existsSync, mkdirSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { recordedPath } from '../recorded-path'
import { EngineError } from '../errors'
import { Rng } from '../rng'
import type { Tensor } from './backend'
import { type LoraConfig, LORA_TARGETS, LoraAdapter, createLoraAdapter, loadLoraAdapter, saveLoraAdapter } from './lora'
import { type LossConfig, tokenLoss } from './losses'
import { type CausalLM, backward, forward, headWeightName, loadModel, logits, saveModel, targetLogprobs, targetLogprobsBackward, weightParams, weightsToTensors } from './model'
import { AdamW, type OptimParams } from './optimizer'
import { type SampledSequence, type SamplingParams, generate, generateBatch } from './sample'

/** One training sequence; all arrays have the same length T. */
export interface Datum {
  inputTokens: number[]
  targetTokens: number[]
  /** log-probs of the targets under the sampling policy (required by importance_sampling and ppo). */
  oldLogprobs?: number[]
  /** Per-token advantages (required by importance_sampling and ppo); 0 on observation tokens. */
  advantages?: number[]
  /** Per-token weight (default 1); 0 on prompt / tool-result tokens. */
  mask?: number[]
}

export interface ForwardBackwardResult {
  /** Σ over datums and tokens of mask·loss_t. */
  loss: number
  /** Per datum, the log-probs of its targets under the current policy (before this step's update). */
  logprobs: number[][]
  metrics: {
    /** Tokens with mask ≠ 0. */
    tokens: number
    meanRatio: number
    clipFraction: number
    /** Mean k3 KL to the reference over masked tokens (0 when klBeta is 0). */
    meanKl: number
  }
}

export interface LearnerOptions {
  /** LoRA of a new adapter when the model has none (default rank 32, alpha 64, all seven targets). */
  lora?: LoraConfig
  /** Seed of the adapter's A init (default 0). */
  seed?: number
  /** Written into adapter_config.json (default 'base'). */
  baseModelNameOrPath?: string
  /** Rows per forward/backward pass; datums are packed up to this many tokens (default 4096). */
  maxTokensPerPass?: number
  /** What is trained: 'lora' (default: a LoRA adapter on the frozen base) or 'full' (every base weight — embedding,
   *  norms, attention, MLP, head — and no adapter: pretraining and full fine-tuning; the weights must be float32). */
  trainable?: Trainable
}

export type Trainable = 'lora' | 'full'

/** Rows of the output head per chunk in full-weight training (its logits [rows, V] are held for the backward). */
const HEAD_CHUNK_ROWS = 512

/** Which policy the k3 KL is taken to: 'start' — the adapter the learner was constructed with, frozen (a fresh
 *  adapter has B = 0, so this equals the base there); 'base' — the base model with the adapter off. */
export type KlReference = 'start' | 'base'

/** How log-probs are computed: at temperature T (log softmax(logits / T); default 1) and, for the KL, against which
 *  reference (default 'start'). */
export interface PolicyOptions {
  temperature?: number
  klReference?: KlReference
}

export const DEFAULT_LORA: LoraConfig = { rank: 32, alpha: 64, targets: [...LORA_TARGETS] }

export class Learner {
  readonly optimizer: AdamW
  readonly trainable: Trainable
  private grads = new Map<string, Tensor>()
  private readonly baseName: string
  private readonly maxTokens: number
  /** A frozen copy of the adapter the learner started with (undefined: it created a fresh one, B = 0 = the base). */
  private startAdapter?: LoraAdapter

  constructor(
    readonly model: CausalLM,
    opts: LearnerOptions = {},
  ) {
    this.trainable = opts.trainable ?? 'lora'
    if (this.trainable === 'full') {
      if (model.adapter) throw new EngineError('engine.trainable', 'full-weight training takes a model without an adapter (merge it first: model.mergeAdapter)')
      for (const p of weightParams(model))
        if (p.tensor.dtype === 'bf16') throw new EngineError('engine.trainable', `full-weight training needs float32 weights; ${p.name} is bf16 (load with weightDtype f32)`)
    } else if (!model.adapter)
      model.adapter = createLoraAdapter(model.backend, model.config, opts.lora ?? DEFAULT_LORA, Rng.derive(opts.seed ?? 0, 'lora-init'))
    else this.startAdapter = cloneAdapter(model)
    this.optimizer = new AdamW(model.backend)
    this.baseName = opts.baseModelNameOrPath ?? 'base'
    this.maxTokens = opts.maxTokensPerPass ?? 4096
  }

  /** A learner on the model in a Hugging Face directory (with a new adapter, or the PEFT adapter in adapterDir). */
  static fromDirectory(modelDir: string, opts: LearnerOptions & { adapterDir?: string } = {}): Learner {
    const model = loadModel(modelDir)
    if (opts.adapterDir) model.adapter = loadLoraAdapter(opts.adapterDir, model.backend, model.config)
    return new Learner(model, { baseModelNameOrPath: modelDir, ...opts })
  }

  /** Take the current adapter as the KL reference 'start' from now on (a frozen copy; the constructor does this for
   *  an adapter the model came with). */
  freezeReference(): void {
    this.startAdapter = cloneAdapter(this.model)
  }

  /** The forward options of a reference policy: the frozen start adapter, or the base (also when there is none). */
  private referenceForward(ref: KlReference): { useLora: boolean; adapter?: LoraAdapter } {
    return ref === 'start' && this.startAdapter ? { useLora: true, adapter: this.startAdapter } : { useLora: false }
  }

  /** log p(tokens[i+1] | tokens[..i]) for i = 0..T−2 (length T−1), at temperature T (default 1). useLora false gives
   *  the base model; reference gives that KL reference policy instead of the adapter being trained. */
  computeLogprobs(tokens: readonly number[], opts: { useLora?: boolean; temperature?: number; reference?: KlReference } = {}): number[] {
    if (tokens.length < 2) return []
    const fo = opts.reference ? this.referenceForward(opts.reference) : { useLora: opts.useLora ?? true }
    const f = forward(this.model, [{ tokens: tokens.slice(0, -1) }], fo)
    temper(this.model, f.hidden, opts.temperature)
    const lp = targetLogprobs(this.model, f.hidden, Int32Array.from(tokens.slice(1)))
    this.model.backend.release(f.hidden)
    return Array.from(lp)
  }

  /** Log-probs of each datum's targets (no gradients) at temperature T; useLora false gives the base model, reference
   *  a KL reference policy. With maskedOnly, only positions whose mask is non-zero are computed (the head runs on those
   *  rows alone; a datum without a mask counts as all ones); the others are NaN. */
  targetLogprobs(datums: readonly Datum[], opts: { useLora?: boolean; temperature?: number; reference?: KlReference; maskedOnly?: boolean } = {}): number[][] {
    const out: number[][] = []
    const be = this.model.backend
    const fo = opts.reference ? this.referenceForward(opts.reference) : { useLora: opts.useLora ?? true }
    for (const pack of this.packs(datums)) {
      const sel = opts.maskedOnly ? selectedRows(pack) : allRows(pack)
      if (sel.rows.length === 0) {
        for (const d of pack) out.push(new Array<number>(d.targetTokens.length).fill(NaN))
        continue
      }
      const f = forward(this.model, pack.map((d) => ({ tokens: d.inputTokens })), fo)
      temper(this.model, f.hidden, opts.temperature)
      const h = sel.all ? f.hidden : be.embedding(f.hidden, sel.rows)
      const lp = targetLogprobs(this.model, h, sel.targets)
      if (h !== f.hidden) be.release(h)
      be.release(f.hidden)
      out.push(...spreadRows(pack, sel, lp))
    }
    return out
  }

  /** Forward and backward over the datums; gradients (LoRA, or every weight when trainable is 'full') accumulate until
   *  optimStep (or zeroGrad). Log-probs (the current policy's and the reference's) are taken at opts.temperature; the
   *  KL is to opts.klReference. The output head runs only at positions whose mask is non-zero (the loss reads nothing
   *  else: a prompt or tool-result row's dL/dlogp is 0); a pack whose masks are all 0 runs no forward at all. */
  forwardBackward(datums: readonly Datum[], loss: LossConfig, opts: PolicyOptions = {}): ForwardBackwardResult {
    datums.forEach((d, i) => validateDatum(d, i, loss))
    const T = checkTemperature(opts.temperature)
    const reference = opts.klReference ?? 'start'
    const needRef = (loss.klBeta ?? 0) > 0 && loss.name !== 'cross_entropy'
    if (needRef && this.trainable === 'full')
      throw new EngineError('engine.trainable', 'a KL penalty needs a frozen reference policy; full-weight training keeps none (use klBeta 0, or LoRA)')
    const be = this.model.backend
    const result: ForwardBackwardResult = { loss: 0, logprobs: [], metrics: { tokens: 0, meanRatio: 0, clipFraction: 0, meanKl: 0 } }
    let ratioSum = 0, clippedCount = 0, klSum = 0
    for (const pack of this.packs(datums)) {
      const sel = selectedRows(pack)
      if (sel.rows.length === 0) {
        for (const d of pack) result.logprobs.push(new Array<number>(d.targetTokens.length).fill(NaN))
        continue
      }
      const ref = needRef ? this.targetLogprobs(pack, { reference, temperature: T, maskedOnly: true }) : undefined
      const f = forward(this.model, pack.map((d) => ({ tokens: d.inputTokens })), { keepTape: true })
      // Logits / T = head(hidden / T): the hidden rows are scaled in place (backward reads the tape, not f.hidden).
      temper(this.model, f.hidden, T)
      const h = sel.all ? f.hidden : be.embedding(f.hidden, sel.rows)
      const head = this.headForward(h, sel.targets)
      const lp = head.logprobs
      const dlogp = new Float32Array(lp.length)
      const perDatum = spreadRows(pack, sel, lp)
      let o = 0
      pack.forEach((d, di) => {
        const dlp = perDatum[di]
        for (let t = 0; t < d.targetTokens.length; t++) {
          const tl = datumTokenGrad(d, t, dlp[t], loss, ref?.[di][t])
          if (!tl) continue
          result.loss += tl.loss
          dlogp[o++] = tl.dlogp
          result.metrics.tokens++
          ratioSum += tl.ratio
          if (tl.clipped) clippedCount++
          klSum += tl.kl
        }
        result.logprobs.push(dlp)
      })
      const dh = head.backward(dlogp)
      if (h !== f.hidden) be.release(h)
      // Rows the head did not see get dL/dhidden = 0 (the scatter of the selected rows' gradients).
      const dHidden = sel.all ? dh : be.embeddingBackward(dh, sel.rows, f.hidden.shape[0])
      if (dHidden !== dh) be.release(dh)
      temper(this.model, dHidden, T)
      backward(this.model, f, dHidden, this.grads, { releaseTape: true, weightGrads: this.trainable === 'full' })
      be.release(dHidden)
      be.release(f.hidden)
    }
    const n = Math.max(1, result.metrics.tokens)
    result.metrics.meanRatio = ratioSum / n
    result.metrics.clipFraction = clippedCount / n
    result.metrics.meanKl = klSum / n
    return result
  }

  /**
   * dLoss/dlogits of each datum, [T·V] row-major (no gradients accumulated): the same per-token dL/dlogp as
   * forwardBackward, times the softmax Jacobian of each position's logits (dlogp_t/dlogits_t = onehot(target) − p_t).
   * A position with mask 0 contributes no dL/dlogp, so its row is exactly zero. For tests and diagnostics: it builds
   * the full [T,V] logits, so keep the datums small.
   */
  logitGradients(datums: readonly Datum[], loss: LossConfig, opts: PolicyOptions = {}): Float32Array[] {
    datums.forEach((d, i) => validateDatum(d, i, loss))
    const needRef = (loss.klBeta ?? 0) > 0 && loss.name !== 'cross_entropy'
    const be = this.model.backend
    const V = this.model.config.vocabSize
    const Tm = checkTemperature(opts.temperature)
    return datums.map((d) => {
      const ref = needRef ? this.targetLogprobs([d], { reference: opts.klReference ?? 'start', temperature: Tm })[0] : undefined
      const f = forward(this.model, [{ tokens: d.inputTokens }])
      // The gradient with respect to the scaled logits z/T (what the policy's softmax sees).
      temper(this.model, f.hidden, Tm)
      const lt = logits(this.model, f.hidden)
      const z = be.toHost(lt)
      be.release(lt)
      be.release(f.hidden)
      const T = d.targetTokens.length
      const out = new Float32Array(T * V)
      for (let t = 0; t < T; t++) {
        const row = z.subarray(t * V, (t + 1) * V)
        let m = -Infinity
        for (let v = 0; v < V; v++) m = Math.max(m, row[v])
        let sum = 0
        for (let v = 0; v < V; v++) sum += Math.exp(row[v] - m)
        const lse = m + Math.log(sum)
        const tl = datumTokenGrad(d, t, row[d.targetTokens[t]] - lse, loss, ref?.[t])
        if (!tl) continue
        for (let v = 0; v < V; v++) out[t * V + v] = tl.dlogp * ((v === d.targetTokens[t] ? 1 : 0) - Math.exp(row[v] - lse))
      }
      return out
    })
  }

  /** The output head over the selected rows h [n,C] → log-probs [n] and, given dL/dlogp, dL/dh [n,C]. LoRA: the
   *  backend's fused head (w frozen, no [n,V] held). Full-weight: chunks of HEAD_CHUNK_ROWS whose logits are kept for
   *  the backward, which also adds the head's weight gradient (the embedding's when tied). */
  private headForward(h: Tensor, targets: Int32Array): { logprobs: Float32Array; backward: (dlogp: Float32Array) => Tensor } {
    const be = this.model.backend
    const w = this.model.weights.lmHead
    if (this.trainable !== 'full')
      return { logprobs: targetLogprobs(this.model, h, targets), backward: (dlogp) => targetLogprobsBackward(this.model, h, targets, dlogp) }
    const n = h.shape[0]
    const chunks: { h: Tensor; t: Int32Array; logits: Tensor; from: number }[] = []
    const logprobs = new Float32Array(n)
    for (let from = 0; from < n; from += HEAD_CHUNK_ROWS) {
      const to = Math.min(n, from + HEAD_CHUNK_ROWS)
      const hc = n <= HEAD_CHUNK_ROWS ? h : be.sliceRows(h, from, to)
      const t = targets.subarray(from, to)
      const logits = be.linear(hc, w)
      const lp = be.targetLogprobs(logits, t)
      logprobs.set(be.toHost(lp), from)
      be.release(lp)
      chunks.push({ h: hc, t, logits, from })
    }
    const backward = (dlogp: Float32Array): Tensor => {
      const name = headWeightName(this.model.config)
      const parts: Tensor[] = []
      for (const c of chunks) {
        const g = be.fromHost(dlogp.subarray(c.from, c.from + c.t.length), [c.t.length])
        const dlogits = be.targetLogprobsBackward(c.logits, c.t, g)
        be.release(g)
        be.release(c.logits)
        parts.push(be.linearBackward(c.h, w, dlogits).dx)
        const acc = this.grads.get(name)
        const gw = be.linearWeightGrad(c.h, dlogits, acc)
        if (!acc) this.grads.set(name, gw)
        be.release(dlogits)
      }
      if (parts.length === 1) return parts[0]
      const dh = be.concatRows(parts)
      for (const p of parts) be.release(p)
      return dh
    }
    return { logprobs, backward }
  }

  /** What optimStep updates: the adapter's tensors (PEFT names), or every weight (HF names) in full-weight training. */
  params(): { name: string; tensor: Tensor }[] {
    return this.trainable === 'full' ? weightParams(this.model) : this.model.adapter!.params()
  }

  /** One AdamW step on the accumulated gradients, then zero them. */
  optimStep(params: OptimParams): { step: number; gradNorm: number; clipped: boolean } {
    const r = this.optimizer.update(this.params(), this.grads, params)
    // The base weights changed in place: what sampling built from them (bound stacks, KV prefixes) is stale.
    if (this.trainable === 'full') this.model.weightsVersion++
    this.zeroGrad()
    return { step: this.optimizer.step, ...r }
  }

  zeroGrad(): void {
    for (const g of this.grads.values()) this.model.backend.release(g)
    this.grads = new Map()
  }

  /** The accumulated gradient of a LoRA tensor by PEFT name (host copy), or undefined if none yet. */
  gradient(name: string): Float32Array | undefined {
    const g = this.grads.get(name)
    return g ? this.model.backend.toHost(g) : undefined
  }

  sample(promptIds: readonly number[], params: SamplingParams): SampledSequence[] {
    return generate(this.model, promptIds, params)
  }

  sampleBatch(prompts: readonly (readonly number[])[], params: SamplingParams): SampledSequence[][] {
    return generateBatch(this.model, prompts, params)
  }

  saveAdapter(dir: string): void {
    if (this.trainable === 'full') throw new EngineError('engine.trainable', 'full-weight training has no adapter; save the model (saveState / saveModel)')
    // An absolute base path is written relative to the adapter's folder (as PEFT's own reference fixture does), so a
    // copied run folder still names its base model.
    saveLoraAdapter(dir, this.model.adapter!, this.model.backend, isAbsolute(this.baseName) ? recordedPath(dir, this.baseName) : this.baseName)
  }

  /** Replace the adapter with the PEFT adapter in dir (optimizer moments are reset unless loaded after). */
  loadAdapter(dir: string): void {
    if (this.trainable === 'full') throw new EngineError('engine.trainable', 'full-weight training has no adapter to load')
    this.model.adapter = loadLoraAdapter(dir, this.model.backend, this.model.config)
    this.zeroGrad()
  }

  /** The trained state (the adapter; in full-weight training config.json + model.safetensors, float32) + optimizer
   *  state (DIR/optimizer.safetensors) for resuming training. */
  saveState(dir: string): void {
    mkdirSync(dir, { recursive: true })
    if (this.trainable === 'full') saveModel(this.model, dir)
    else this.saveAdapter(dir)
    this.optimizer.save(join(dir, 'optimizer.safetensors'))
  }

  loadState(dir: string): void {
    if (this.trainable === 'full') {
      // The saved weights are copied into the model's own tensors (other holders of them — a bound stack — see the new
      // values once weightsVersion moves).
      const saved = weightsToTensors(loadModel(dir, this.model.backend))
      const be = this.model.backend
      for (const p of weightParams(this.model)) {
        const h = saved.get(p.name)
        if (!h) throw new EngineError('engine.optim_state', `${dir}: the saved model has no ${p.name}`)
        const t = be.fromHost(h.data, h.shape)
        be.fillZero(p.tensor)
        be.addInPlace(p.tensor, t)
        be.release(t)
      }
      this.model.weightsVersion++
      this.zeroGrad()
    } else this.loadAdapter(dir)
    const f = join(dir, 'optimizer.safetensors')
    if (!existsSync(f)) throw new EngineError('engine.optim_state', `no optimizer.safetensors in ${dir}; saveState writes one`)
    this.optimizer.load(f, this.params())
  }

  /** Datums grouped so that one pass holds at most maxTokensPerPass rows (a longer datum goes alone). */
  private *packs(datums: readonly Datum[]): Generator<Datum[]> {
    let cur: Datum[] = []
    let n = 0
    for (const d of datums) {
      if (cur.length > 0 && n + d.inputTokens.length > this.maxTokens) {
        yield cur
        cur = []
        n = 0
      }
      cur.push(d)
      n += d.inputTokens.length
    }
    if (cur.length > 0) yield cur
  }
}

/** The rows of a pack the head runs on: flat row index, target and datum of each, in order; all when every row is. */
interface RowSelection {
  rows: Int32Array
  targets: Int32Array
  all: boolean
}

/** Rows whose mask is non-zero (a datum without a mask: all of its rows). */
function selectedRows(pack: readonly Datum[]): RowSelection {
  const rows: number[] = [], targets: number[] = []
  let o = 0
  for (const d of pack) {
    for (let t = 0; t < d.targetTokens.length; t++)
      if (!d.mask || d.mask[t] !== 0) {
        rows.push(o + t)
        targets.push(d.targetTokens[t])
      }
    o += d.targetTokens.length
  }
  return { rows: Int32Array.from(rows), targets: Int32Array.from(targets), all: rows.length === o }
}

function allRows(pack: readonly Datum[]): RowSelection {
  const targets = Int32Array.from(pack.flatMap((d) => d.targetTokens))
  return { rows: Int32Array.from(targets.keys()), targets, all: true }
}

/** Per datum its log-probs from those of the selected rows (NaN where the head did not run). */
function spreadRows(pack: readonly Datum[], sel: RowSelection, lp: Float32Array): number[][] {
  const out = pack.map((d) => new Array<number>(d.targetTokens.length).fill(NaN))
  let di = 0, base = 0
  for (let i = 0; i < sel.rows.length; i++) {
    const r = sel.rows[i]
    while (r >= base + pack[di].targetTokens.length) base += pack[di++].targetTokens.length
    out[di][r - base] = lp[i]
  }
  return out
}

/** A frozen copy of the model's adapter (same config, tensors copied on its backend). */
function cloneAdapter(model: CausalLM): LoraAdapter {
  const be = model.backend, ad = model.adapter!
  const copy = (t: Tensor): Tensor => be.fromHost(be.toHost(t), t.shape.slice())
  const layers = ad.layers.map((pairs) => {
    const out: typeof pairs = {}
    for (const t of LORA_TARGETS) if (pairs[t]) out[t] = { a: copy(pairs[t]!.a), b: copy(pairs[t]!.b) }
    return out
  })
  return new LoraAdapter(ad.config, layers, ad.embed ? { table: copy(ad.embed.table), b: copy(ad.embed.b) } : undefined)
}

function checkTemperature(T: number | undefined): number {
  const t = T ?? 1
  if (!(t > 0 && Number.isFinite(t))) throw new EngineError('engine.temperature', `log-prob temperature must be > 0, got ${t}`)
  return t
}

/** Rows scaled by 1/T in place (nothing at T = 1, so those numbers stay bit-identical): head(h/T) = logits/T. */
function temper(model: CausalLM, rows: Tensor, T: number | undefined): void {
  const t = checkTemperature(T)
  if (t !== 1) model.backend.scaleInPlace(rows, 1 / t)
}

function validateDatum(d: Datum, i: number, loss: LossConfig): void {
  const T = d.inputTokens.length
  const bad = (what: string): never => {
    throw new EngineError('engine.datum', `datum ${i}: ${what}`)
  }
  if (T === 0) bad('inputTokens is empty')
  if (d.targetTokens.length !== T) bad(`targetTokens has ${d.targetTokens.length} entries, inputTokens ${T}; they must be aligned`)
  for (const [k, v] of [['oldLogprobs', d.oldLogprobs], ['advantages', d.advantages], ['mask', d.mask]] as const)
    if (v && v.length !== T) bad(`${k} has ${v.length} entries, inputTokens ${T}; they must be aligned`)
  if (loss.name !== 'cross_entropy') {
    if (!d.oldLogprobs) bad(`loss ${loss.name} needs oldLogprobs`)
    if (!d.advantages) bad(`loss ${loss.name} needs advantages`)
  }
}

/** The weighted loss and dL/dlogp of target t of a datum (mask applied); undefined where the mask is 0 — such a
 *  position's advantage, old log-prob and reference log-prob are never read. */
function datumTokenGrad(d: Datum, t: number, logp: number, loss: LossConfig, refLogp: number | undefined) {
  const w = d.mask ? d.mask[t] : 1
  if (w === 0) return undefined
  const tl = tokenLoss(loss, logp, d.oldLogprobs?.[t] ?? 0, d.advantages?.[t] ?? 0, refLogp)
  return { ...tl, loss: w * tl.loss, dlogp: w * tl.dlogp }
}

// infra/engine/learner: the Tinker-style learning API over a frozen base model with a LoRA adapter:
// computeLogprobs, forwardBackward(datums, loss) accumulating LoRA gradients, optimStep (AdamW), sample, and
// adapter / optimizer state save + load (PEFT format). Log-probs can be taken at a temperature T (logits / T, the
// sampling policy's own numbers) and the KL reference is either the base model or the frozen adapter the learner
// started with (a copy taken at construction). It does not know about envs, rewards or advantages.
// Shapes: a Datum is one sequence of T aligned positions (input token t predicts target token t).
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'
import { Rng } from '../rng'
import type { Tensor } from './backend'
import { type LoraConfig, LORA_TARGETS, LoraAdapter, createLoraAdapter, loadLoraAdapter, saveLoraAdapter } from './lora'
import { type LossConfig, tokenLoss } from './losses'
import { type CausalLM, backward, forward, loadModel, logits, targetLogprobs, targetLogprobsBackward } from './model'
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
}

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
  private grads = new Map<string, Tensor>()
  private readonly baseName: string
  private readonly maxTokens: number
  /** A frozen copy of the adapter the learner started with (undefined: it created a fresh one, B = 0 = the base). */
  private startAdapter?: LoraAdapter

  constructor(
    readonly model: CausalLM,
    opts: LearnerOptions = {},
  ) {
    if (!model.adapter)
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
   *  a KL reference policy. */
  targetLogprobs(datums: readonly Datum[], opts: { useLora?: boolean; temperature?: number; reference?: KlReference } = {}): number[][] {
    const out: number[][] = []
    const fo = opts.reference ? this.referenceForward(opts.reference) : { useLora: opts.useLora ?? true }
    for (const pack of this.packs(datums)) {
      const f = forward(this.model, pack.map((d) => ({ tokens: d.inputTokens })), fo)
      temper(this.model, f.hidden, opts.temperature)
      const lp = targetLogprobs(this.model, f.hidden, Int32Array.from(pack.flatMap((d) => d.targetTokens)))
      this.model.backend.release(f.hidden)
      let o = 0
      for (const d of pack) {
        out.push(Array.from(lp.subarray(o, o + d.targetTokens.length)))
        o += d.targetTokens.length
      }
    }
    return out
  }

  /** Forward and backward over the datums; LoRA gradients accumulate until optimStep (or zeroGrad). Log-probs (the
   *  current policy's and the reference's) are taken at opts.temperature; the KL is to opts.klReference. */
  forwardBackward(datums: readonly Datum[], loss: LossConfig, opts: PolicyOptions = {}): ForwardBackwardResult {
    datums.forEach((d, i) => validateDatum(d, i, loss))
    const T = checkTemperature(opts.temperature)
    const reference = opts.klReference ?? 'start'
    const needRef = (loss.klBeta ?? 0) > 0 && loss.name !== 'cross_entropy'
    const result: ForwardBackwardResult = { loss: 0, logprobs: [], metrics: { tokens: 0, meanRatio: 0, clipFraction: 0, meanKl: 0 } }
    let ratioSum = 0, clippedCount = 0, klSum = 0
    for (const pack of this.packs(datums)) {
      const targets = Int32Array.from(pack.flatMap((d) => d.targetTokens))
      const ref = needRef ? this.targetLogprobs(pack, { reference, temperature: T }) : undefined
      const f = forward(this.model, pack.map((d) => ({ tokens: d.inputTokens })), { keepTape: true })
      // Logits / T = head(hidden / T): the hidden rows are scaled in place (backward reads the tape, not f.hidden).
      temper(this.model, f.hidden, T)
      const lp = targetLogprobs(this.model, f.hidden, targets)
      const dlogp = new Float32Array(lp.length)
      let o = 0
      pack.forEach((d, di) => {
        const T = d.targetTokens.length
        for (let t = 0; t < T; t++) {
          const tl = datumTokenGrad(d, t, lp[o + t], loss, ref?.[di][t])
          if (!tl) continue
          result.loss += tl.loss
          dlogp[o + t] = tl.dlogp
          result.metrics.tokens++
          ratioSum += tl.ratio
          if (tl.clipped) clippedCount++
          klSum += tl.kl
        }
        result.logprobs.push(Array.from(lp.subarray(o, o + T)))
        o += T
      })
      const dHidden = targetLogprobsBackward(this.model, f.hidden, targets, dlogp)
      temper(this.model, dHidden, T)
      backward(this.model, f, dHidden, this.grads, { releaseTape: true })
      this.model.backend.release(dHidden)
      this.model.backend.release(f.hidden)
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

  /** One AdamW step on the accumulated gradients, then zero them. */
  optimStep(params: OptimParams): { step: number; gradNorm: number; clipped: boolean } {
    const r = this.optimizer.update(this.model.adapter!.params(), this.grads, params)
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
    saveLoraAdapter(dir, this.model.adapter!, this.model.backend, this.baseName)
  }

  /** Replace the adapter with the PEFT adapter in dir (optimizer moments are reset unless loaded after). */
  loadAdapter(dir: string): void {
    this.model.adapter = loadLoraAdapter(dir, this.model.backend, this.model.config)
    this.zeroGrad()
  }

  /** Adapter + optimizer state (DIR/optimizer.safetensors) for resuming training. */
  saveState(dir: string): void {
    mkdirSync(dir, { recursive: true })
    this.saveAdapter(dir)
    this.optimizer.save(join(dir, 'optimizer.safetensors'))
  }

  loadState(dir: string): void {
    this.loadAdapter(dir)
    const f = join(dir, 'optimizer.safetensors')
    if (!existsSync(f)) throw new EngineError('engine.optim_state', `no optimizer.safetensors in ${dir}; saveState writes one`)
    this.optimizer.load(f, this.model.adapter!.params())
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

// infra/engine/model: the decoder-only causal LM (Qwen3 / Qwen2 / Llama-style dense): embedding, RMSNorm,
// RoPE at explicit positions, grouped-query causal attention with optional QK-norm, SwiGLU MLP, tied or untied
// head, LoRA on the seven linears (switchable off for the reference policy), forward with a KV cache or with a
// tape for the backward pass into LoRA gradients (and, with weightGrads, every base weight's: full-weight training). Weights load from / save to a Hugging Face directory.
// It does not know tokenizers, sampling or losses. Shapes: N rows, C hidden, H/KV heads, D head dim, F ffn, V vocab.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'
import type { Rng } from '../rng'
import type { Backend, DecoderStack, LayerWeights, StackLayer, Tensor, WeightDtype } from './backend'
import { type ModelConfig, loadModelConfig, toHfConfig } from './config'
import { EMBED_LORA_NAME, type LoraAdapter, type LoraTarget, peftName } from './lora'
import { type HostTensor, type StoredDtype, readCheckpoint, writeCheckpoint } from './safetensors'
import { createTsBackend } from './ts-backend'

export type { LayerWeights }

export interface ModelWeights {
  /** [V,C] */
  embed: Tensor
  layers: LayerWeights[]
  /** [C] */
  norm: Tensor
  /** [V,C]; the same tensor as embed when tied. */
  lmHead: Tensor
}

/** A model on a backend, with an optional LoRA adapter. */
export class CausalLM {
  /** Bumped whenever the base weights' values change in place (full-weight training's optimizer step), so what was
   *  built from them — a backend's bound decoder stack, cached KV prefixes — is rebuilt. */
  weightsVersion = 0

  constructor(
    readonly config: ModelConfig,
    readonly backend: Backend,
    readonly weights: ModelWeights,
    public adapter?: LoraAdapter,
  ) {}
}

// ---- Hugging Face names ----
type LayerKey = keyof LayerWeights
const LAYER_NAMES: [LayerKey, string][] = [
  ['inputNorm', 'input_layernorm.weight'],
  ['postNorm', 'post_attention_layernorm.weight'],
  ['q', 'self_attn.q_proj.weight'],
  ['k', 'self_attn.k_proj.weight'],
  ['v', 'self_attn.v_proj.weight'],
  ['o', 'self_attn.o_proj.weight'],
  ['qBias', 'self_attn.q_proj.bias'],
  ['kBias', 'self_attn.k_proj.bias'],
  ['vBias', 'self_attn.v_proj.bias'],
  ['oBias', 'self_attn.o_proj.bias'],
  ['qNorm', 'self_attn.q_norm.weight'],
  ['kNorm', 'self_attn.k_norm.weight'],
  ['gate', 'mlp.gate_proj.weight'],
  ['up', 'mlp.up_proj.weight'],
  ['down', 'mlp.down_proj.weight'],
]

/** The expected shape of every HF tensor of this config (lm_head only when untied). */
export function expectedTensorShapes(c: ModelConfig): Map<string, number[]> {
  const C = c.hiddenSize, HD = c.numHeads * c.headDim, KVD = c.numKvHeads * c.headDim, F = c.intermediateSize, D = c.headDim
  const m = new Map<string, number[]>()
  m.set('model.embed_tokens.weight', [c.vocabSize, C])
  m.set('model.norm.weight', [C])
  if (!c.tieWordEmbeddings) m.set('lm_head.weight', [c.vocabSize, C])
  for (let l = 0; l < c.numLayers; l++) {
    const shapes: Partial<Record<LayerKey, number[]>> = {
      inputNorm: [C], postNorm: [C], q: [HD, C], k: [KVD, C], v: [KVD, C], o: [C, HD], gate: [F, C], up: [F, C], down: [C, F],
    }
    if (c.qkvBias) Object.assign(shapes, { qBias: [HD], kBias: [KVD], vBias: [KVD] })
    if (c.oBias) shapes.oBias = [C]
    if (c.qkNorm) Object.assign(shapes, { qNorm: [D], kNorm: [D] })
    for (const [key, name] of LAYER_NAMES) if (shapes[key]) m.set(`model.layers.${l}.${name}`, shapes[key]!)
  }
  return m
}

/** How frozen weights are held on the backend: the matrices (embedding, the seven linears, head) in `weightDtype`
 *  (default f32; bf16 halves their memory, arithmetic stays f32), norms and biases always f32. */
export interface WeightOptions {
  weightDtype?: WeightDtype
}

/** Build weights from HF-named host tensors, checking every name and shape. */
export function weightsFromTensors(
  c: ModelConfig,
  backend: Backend,
  tensors: ReadonlyMap<string, HostTensor>,
  where = 'checkpoint',
  opts: WeightOptions = {},
): ModelWeights {
  const shapes = expectedTensorShapes(c)
  const get = (name: string): Tensor => {
    const want = shapes.get(name)!
    const h = tensors.get(name)
    if (!h) throw new EngineError('engine.weights', `${where}: missing tensor ${name}`)
    if (h.shape.join(',') !== want.join(','))
      throw new EngineError('engine.weights', `${where}: ${name} has shape [${h.shape}], config.json implies [${want}]`)
    const matrix = want.length === 2
    return backend.fromHost(h.data, want, matrix ? (opts.weightDtype ?? 'f32') : 'f32')
  }
  const ignorable = (n: string): boolean => n === 'lm_head.weight' || n.endsWith('rotary_emb.inv_freq')
  for (const n of tensors.keys())
    if (!shapes.has(n) && !ignorable(n)) throw new EngineError('engine.weights', `${where}: unexpected tensor ${n}; is config.json for this checkpoint?`)
  const embed = get('model.embed_tokens.weight')
  const layers: LayerWeights[] = []
  for (let l = 0; l < c.numLayers; l++) {
    const lw: Partial<LayerWeights> = {}
    for (const [key, name] of LAYER_NAMES) {
      const full = `model.layers.${l}.${name}`
      if (shapes.has(full)) lw[key] = get(full)
    }
    layers.push(lw as LayerWeights)
  }
  return { embed, layers, norm: get('model.norm.weight'), lmHead: c.tieWordEmbeddings ? embed : get('lm_head.weight') }
}

export function weightsToTensors(model: CausalLM): Map<string, HostTensor> {
  const { config: c, backend: be, weights: w } = model
  const out = new Map<string, HostTensor>()
  const put = (name: string, t: Tensor): void => {
    out.set(name, { shape: t.shape.slice(), data: be.toHost(t) })
  }
  put('model.embed_tokens.weight', w.embed)
  put('model.norm.weight', w.norm)
  if (!c.tieWordEmbeddings) put('lm_head.weight', w.lmHead)
  w.layers.forEach((lw, l) => {
    for (const [key, name] of LAYER_NAMES) if (lw[key]) put(`model.layers.${l}.${name}`, lw[key]!)
  })
  return out
}

/** Load DIR (config.json + model.safetensors or shards) onto a backend (ts by default). */
export function loadModel(dir: string, backend: Backend = createTsBackend(), opts: WeightOptions = {}): CausalLM {
  const config = loadModelConfig(dir)
  return new CausalLM(config, backend, weightsFromTensors(config, backend, readCheckpoint(dir), dir, opts))
}

/** Write DIR/config.json and the weights (float32 by default; sharded when maxShardBytes is given). */
export function saveModel(model: CausalLM, dir: string, options: { dtype?: StoredDtype; maxShardBytes?: number } = {}): void {
  mkdirSync(dir, { recursive: true })
  const dtype = options.dtype ?? 'F32'
  const torchDtype = dtype === 'F32' ? 'float32' : dtype === 'BF16' ? 'bfloat16' : 'float16'
  writeFileSync(join(dir, 'config.json'), JSON.stringify(toHfConfig(model.config, torchDtype), null, 2) + '\n')
  writeCheckpoint(dir, weightsToTensors(model), options)
}

/** Random weights of the real architecture (normal(0, 0.02) like HF's initializer_range; norms at 1). */
export function createRandomModel(
  config: ModelConfig,
  rng: Rng,
  backend: Backend = createTsBackend(),
  init: { std: number; embedStd?: number; qkNormWeight?: number } = { std: 0.02 },
  opts: WeightOptions = {},
): CausalLM {
  const tensors = new Map<string, HostTensor>()
  for (const [name, shape] of expectedTensorShapes(config)) {
    const n = shape.reduce((a, b) => a * b, 1)
    const data = new Float32Array(n)
    // qkNormWeight (default 1): the q_norm/k_norm gain. A LoRA adapter cannot change it, and with 1 an attention logit
    // is at most √headDim (4 for tiny), too flat to attend to a recent token over a 2k-token prompt.
    if (name.endsWith('q_norm.weight') || name.endsWith('k_norm.weight')) data.fill(init.qkNormWeight ?? 1)
    else if (name.endsWith('norm.weight') || name.endsWith('layernorm.weight')) data.fill(1)
    else if (!name.endsWith('.bias')) {
      // embedStd (default std): the embedding (tied: also the output head) scale. Same draws, scaled, so the default is unchanged.
      const std = name === 'model.embed_tokens.weight' || name === 'lm_head.weight' ? (init.embedStd ?? init.std) : init.std
      for (let i = 0; i < n; i++) data[i] = rng.normal(0, std)
    }
    tensors.set(name, { shape, data })
  }
  return new CausalLM(config, backend, weightsFromTensors(config, backend, tensors, 'random model', opts))
}

/** A model whose weights include the adapter (W + scale·B·A); the result has no adapter. */
export function mergeAdapter(model: CausalLM): CausalLM {
  const ad = model.adapter
  if (!ad) return new CausalLM(model.config, model.backend, model.weights)
  const be = model.backend
  const layers = model.weights.layers.map((lw, l) => {
    const out: LayerWeights = { ...lw }
    for (const t of ad.config.targets) {
      const op = ad.operand(l, t)
      if (op) out[t] = be.mergeLora(lw[t], op)
    }
    return out
  })
  // The embedding pair changes the input embedding only: the merged model's head stays the frozen (tied) table.
  if (ad.embed) return new CausalLM(model.config, be, { ...model.weights, layers, embed: embedWithLora(model), lmHead: model.weights.lmHead })
  return new CausalLM(model.config, be, { ...model.weights, layers })
}

/** The input embedding with the adapter's embedding LoRA added, E + scale · table · Bᵀ: [V, C], a new tensor. */
function embedWithLora(model: CausalLM): Tensor {
  const be = model.backend, ad = model.adapter!
  const d = be.linear(ad.embed!.table, ad.embed!.b)
  be.scaleInPlace(d, ad.scale)
  const out = be.add(model.weights.embed, d)
  be.release(d)
  return out
}

/** Token ids → the embedding LoRA's delta rows scale · table[ids] · Bᵀ [N, C] and the looked-up rows table[ids] [N, r]. */
function embedLoraForward(model: CausalLM, ids: Int32Array, ad: LoraAdapter = model.adapter!): { delta: Tensor; rows: Tensor } {
  const be = model.backend
  const rows = be.embedding(ad.embed!.table, ids)
  const delta = be.linear(rows, ad.embed!.b)
  be.scaleInPlace(delta, ad.scale)
  return { delta, rows }
}

/** The model as the backend's forwardCached takes it (the tensors are shared, not copied), with the adapter's LoRA
 *  operands when useLora. Build one per sampling call: it must not outlive a release of any of its tensors. */
export function decoderStack(model: CausalLM, useLora = true): DecoderStack {
  const c = model.config
  const layers = model.weights.layers.map((lw, l): StackLayer => {
    const out: StackLayer = { ...lw }
    if (useLora && model.adapter) {
      out.lora = {}
      for (const t of model.adapter.config.targets) {
        const op = model.adapter.operand(l, t)
        if (op) out.lora[t] = op
      }
    }
    return out
  })
  // With an embedding LoRA the stack gets its own merged input table (released by releaseDecoderStack); the head
  // stays the frozen (tied) table.
  const embed = useLora && model.adapter?.embed ? embedWithLora(model) : model.weights.embed
  return { head: model.weights.lmHead, embed, layers, norm: model.weights.norm, heads: c.numHeads, kvHeads: c.numKvHeads, headDim: c.headDim, eps: c.rmsNormEps, ropeTheta: c.ropeTheta }
}

/** Release what decoderStack made for this stack (the merged input table of an embedding LoRA); call once, after its last use. */
export function releaseDecoderStack(model: CausalLM, stack: DecoderStack): void {
  if (stack.embed !== model.weights.embed) model.backend.release(stack.embed)
}

// ---- KV cache ----
export interface KvCache {
  /** Per layer [capacity, KV·D] */
  k: Tensor[]
  v: Tensor[]
  /** Positions filled. */
  length: number
  capacity: number
}

/** A sampling cache's row count for a requested capacity: 64 rows at least, then classes 2^(1/4) apart (≤ 19 % more rows), so
 *  the caches of a rollout — a new length every turn — come back to the same few block sizes and the backend's freed
 *  blocks are reused instead of fresh memory being faulted in. */
export function kvCapacityClass(rows: number): number {
  if (rows <= 64) return 64
  const c = Math.ceil(2 ** (Math.ceil(Math.log2(rows) * 4) / 4) / 16) * 16
  return c >= rows ? c : rows
}

export function createKvCache(model: CausalLM, capacity: number): KvCache {
  const c = model.config
  const w = c.numKvHeads * c.headDim
  const k: Tensor[] = [], v: Tensor[] = []
  // Rows at or past `length` are written before anything reads them: no zero fill where the backend can skip it.
  const be = model.backend
  const alloc = (shape: number[]): Tensor => (be.uninitialized ? be.uninitialized(shape) : be.zeros(shape))
  for (let l = 0; l < c.numLayers; l++) {
    k.push(alloc([capacity, w]))
    v.push(alloc([capacity, w]))
  }
  return { k, v, length: 0, capacity }
}

/** A copy of the first `length` positions of a cache into a new cache of the given capacity (shared prefixes). */
export function forkKvCache(model: CausalLM, src: KvCache, capacity: number): KvCache {
  const be = model.backend
  const out = createKvCache(model, capacity)
  for (let l = 0; l < src.k.length; l++) {
    be.writeRows(out.k[l], 0, be.sliceRows(src.k[l], 0, src.length))
    be.writeRows(out.v[l], 0, be.sliceRows(src.v[l], 0, src.length))
  }
  out.length = src.length
  return out
}

// ---- forward / backward ----
/** One sequence of a batch: its new tokens; with a cache they continue at cache.length, else at position 0. */
export interface SequenceInput {
  tokens: readonly number[]
  cache?: KvCache
}

export interface ForwardOptions {
  /** Apply the adapter (default true); false runs the base model. */
  useLora?: boolean
  /** With useLora: apply this adapter instead of model.adapter (a frozen reference policy, e.g. the run's start
   *  adapter). Inference only: not with keepTape (backward reads model.adapter). */
  adapter?: LoraAdapter
  /** Keep the activations needed by backward(). Not allowed with caches. */
  keepTape?: boolean
}

interface Segment {
  offset: number
  length: number
  start: number
}

interface LayerTape {
  x: Tensor
  h1: Tensor
  q: Tensor
  k: Tensor
  qr: Tensor
  kr: Tensor
  v: Tensor
  att: Tensor
  x2: Tensor
  h2: Tensor
  gate: Tensor
  up: Tensor
  act: Tensor
}

export interface ForwardResult {
  /** Final-normed hidden states of all new tokens, rows in input order: [N,C]. */
  hidden: Tensor
  /** Row offset and count of each input sequence in `hidden`. */
  segments: { offset: number; length: number }[]
  tape?: { layers: LayerTape[]; xFinal: Tensor; segs: Segment[]; useLora: boolean; ids: Int32Array; embed?: { ids: Int32Array; rows: Tensor } }
}

function lora(model: CausalLM, useLora: boolean, l: number, t: LoraTarget, adapter: LoraAdapter | undefined = model.adapter) {
  return useLora && adapter ? adapter.operand(l, t) : undefined
}

/** Run the decoder stack over a batch of sequences; caches (if any) are extended by the new tokens. */
export function forward(model: CausalLM, seqs: readonly SequenceInput[], opts: ForwardOptions = {}): ForwardResult {
  const { config: c, backend: be, weights: w } = model
  const useLora = opts.useLora ?? true
  if (seqs.length === 0) throw new EngineError('engine.forward', 'forward needs at least one sequence')
  if (opts.adapter && opts.keepTape) throw new EngineError('engine.forward', 'an adapter override is for inference only (keepTape trains model.adapter)')
  const ad = opts.adapter ?? model.adapter
  const H = c.numHeads, KV = c.numKvHeads, D = c.headDim
  const segs: Segment[] = []
  const ids: number[] = []
  const positions: number[] = []
  for (const s of seqs) {
    if (s.tokens.length === 0) throw new EngineError('engine.forward', 'every sequence needs at least one token')
    if (opts.keepTape && s.cache) throw new EngineError('engine.forward', 'keepTape (training) does not use a KV cache')
    const start = s.cache ? s.cache.length : 0
    if (s.cache && start + s.tokens.length > s.cache.capacity)
      throw new EngineError('engine.kv_cache', `KV cache full: ${start} + ${s.tokens.length} tokens > capacity ${s.cache.capacity}`)
    segs.push({ offset: ids.length, length: s.tokens.length, start })
    for (let i = 0; i < s.tokens.length; i++) {
      ids.push(s.tokens[i])
      positions.push(start + i)
    }
  }
  const N = ids.length
  const pos = Int32Array.from(positions)
  const cu = cumulativeOffsets(segs)
  const idArr = Int32Array.from(ids)
  let x = be.embedding(w.embed, idArr)
  let embedTape: { ids: Int32Array; rows: Tensor } | undefined
  if (useLora && ad?.embed) {
    const e = embedLoraForward(model, idArr, ad)
    const x0 = x
    x = be.add(x0, e.delta)
    be.release(x0)
    be.release(e.delta)
    if (opts.keepTape) embedTape = { ids: idArr, rows: e.rows }
    else be.release(e.rows)
  }
  const tapes: LayerTape[] = []
  for (let l = 0; l < c.numLayers; l++) {
    const lw = w.layers[l]
    const h1 = be.rmsnorm(x, lw.inputNorm, c.rmsNormEps)
    const q = be.linear(h1, lw.q, lw.qBias, lora(model, useLora, l, 'q', ad))
    const k = be.linear(h1, lw.k, lw.kBias, lora(model, useLora, l, 'k', ad))
    const v = be.linear(h1, lw.v, lw.vBias, lora(model, useLora, l, 'v', ad))
    const qn = lw.qNorm ? be.rmsnorm(be.reshape(q, [N * H, D]), lw.qNorm, c.rmsNormEps) : q
    const kn = lw.kNorm ? be.rmsnorm(be.reshape(k, [N * KV, D]), lw.kNorm, c.rmsNormEps) : k
    const qr = be.rope(be.reshape(qn, [N, H, D]), pos, c.ropeTheta)
    const kr = be.rope(be.reshape(kn, [N, KV, D]), pos, c.ropeTheta)
    const vr = be.reshape(v, [N, KV, D])
    const noCache = seqs.every((s) => !s.cache)
    const parts: Tensor[] = []
    if (noCache) parts.push(be.attentionVarlen(qr, kr, vr, cu))
    else seqs.forEach((s, i) => {
      const g = segs[i]
      const qs = be.sliceRows(qr, g.offset, g.offset + g.length)
      let ks = be.sliceRows(kr, g.offset, g.offset + g.length)
      let vs = be.reshape(be.sliceRows(v, g.offset, g.offset + g.length), [g.length, KV, D])
      if (s.cache) {
        be.writeRows(s.cache.k[l], g.start, be.reshape(ks, [g.length, KV * D]))
        be.writeRows(s.cache.v[l], g.start, be.reshape(vs, [g.length, KV * D]))
        const S = g.start + g.length
        ks = be.reshape(be.sliceRows(s.cache.k[l], 0, S), [S, KV, D])
        vs = be.reshape(be.sliceRows(s.cache.v[l], 0, S), [S, KV, D])
      }
      parts.push(be.attention(qs, ks, vs, g.start))
    })
    const attOwned = parts.length === 1 ? parts[0] : be.concatRows(parts)
    if (parts.length > 1) for (const p of parts) be.release(p)
    const att = be.reshape(attOwned, [N, H * D])
    const oOut = be.linear(att, lw.o, lw.oBias, lora(model, useLora, l, 'o', ad))
    const x2 = be.add(x, oOut)
    be.release(oOut)
    const h2 = be.rmsnorm(x2, lw.postNorm, c.rmsNormEps)
    const gate = be.linear(h2, lw.gate, undefined, lora(model, useLora, l, 'gate', ad))
    const up = be.linear(h2, lw.up, undefined, lora(model, useLora, l, 'up', ad))
    const act = be.swiglu(gate, up)
    const downOut = be.linear(act, lw.down, undefined, lora(model, useLora, l, 'down', ad))
    const x3 = be.add(x2, downOut)
    be.release(downOut)
    if (qn !== q) be.release(qn)
    if (kn !== k) be.release(kn)
    // Memory does not wait for the GC: what the tape does not keep is released here.
    if (opts.keepTape) tapes.push({ x, h1, q, k, qr, kr, v, att: attOwned, x2, h2, gate, up, act })
    else for (const t of [x, h1, q, k, qr, kr, v, attOwned, x2, h2, gate, up, act]) be.release(t)
    x = x3
  }
  for (let i = 0; i < seqs.length; i++) if (seqs[i].cache) seqs[i].cache!.length += segs[i].length
  const hidden = be.rmsnorm(x, w.norm, c.rmsNormEps)
  if (!opts.keepTape) be.release(x)
  return {
    hidden,
    segments: segs.map((g) => ({ offset: g.offset, length: g.length })),
    tape: opts.keepTape ? { layers: tapes, xFinal: x, segs, useLora, ids: idArr, embed: embedTape } : undefined,
  }
}

/** cu [B+1] of a packed batch's segments. */
function cumulativeOffsets(segs: readonly { offset: number; length: number }[]): Int32Array {
  const cu = new Int32Array(segs.length + 1)
  segs.forEach((g, i) => (cu[i + 1] = g.offset + g.length))
  return cu
}

/** Logits of some hidden rows: [n,C] → [n,V]. */
export function logits(model: CausalLM, hidden: Tensor): Tensor {
  return model.backend.linear(hidden, model.weights.lmHead)
}

/** log p(target_n | row n) for every hidden row through the backend's fused head (chunked, no [N,V] logits): → host [N]. */
export function targetLogprobs(model: CausalLM, hidden: Tensor, targets: Int32Array): Float32Array {
  const be = model.backend
  const lp = be.headLogprobs(hidden, model.weights.lmHead, targets)
  const out = be.toHost(lp)
  be.release(lp)
  return out
}

/** dL/dhidden from dL/dlogp through the fused head's backward (the head weight is frozen). */
export function targetLogprobsBackward(model: CausalLM, hidden: Tensor, targets: Int32Array, dlogp: Float32Array): Tensor {
  const be = model.backend
  const g = be.fromHost(dlogp, [dlogp.length])
  const dh = be.headLogprobsBackward(hidden, model.weights.lmHead, targets, g)
  be.release(g)
  return dh
}

/** The HF name of a layer weight (model.layers.L.self_attn.q_proj.weight, …), the key of its full-weight gradient. */
export function layerWeightName(l: number, key: keyof LayerWeights): string {
  return `model.layers.${l}.${LAYER_NAMES.find(([k]) => k === key)![1]}`
}

/** Every weight of the model under its HF name (the tensors themselves, not copies; the tied head is the embedding
 *  and is listed once), sorted by name: the parameters of full-weight training. */
export function weightParams(model: CausalLM): { name: string; tensor: Tensor }[] {
  const w = model.weights
  const out: { name: string; tensor: Tensor }[] = [{ name: 'model.embed_tokens.weight', tensor: w.embed }, { name: 'model.norm.weight', tensor: w.norm }]
  if (!model.config.tieWordEmbeddings) out.push({ name: 'lm_head.weight', tensor: w.lmHead })
  w.layers.forEach((lw, l) => {
    for (const [key] of LAYER_NAMES) if (lw[key]) out.push({ name: layerWeightName(l, key), tensor: lw[key]! })
  })
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** The HF name the output head's gradient accumulates under (the embedding's when tied). */
export function headWeightName(c: ModelConfig): string {
  return c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight'
}

/** grads[name] += t (t is taken: released after adding, or stored). */
export function accumulateGrad(be: Backend, grads: Map<string, Tensor>, name: string, t: Tensor): void {
  const cur = grads.get(name)
  if (cur) {
    be.addInPlace(cur, t)
    be.release(t)
  } else grads.set(name, t)
}

export interface BackwardOptions {
  /** Release the tape's tensors as they are used (the forward result cannot be backpropagated again after that). */
  releaseTape?: boolean
  /** Also the gradient of every base weight (embedding, norms, the seven linears, biases), keyed by HF name:
   *  full-weight training. Without it the base weights are frozen and only LoRA gradients are made. */
  weightGrads?: boolean
}

/**
 * Backpropagate dL/dhidden through the stack recorded by forward(…, {keepTape: true}), adding the LoRA
 * gradients into grads (keyed by PEFT tensor name; missing keys are created) and, with weightGrads, the base
 * weights' gradients (keyed by HF name). Temporaries are released as soon as they are used.
 */
export function backward(model: CausalLM, fwd: ForwardResult, dHidden: Tensor, grads: Map<string, Tensor>, opts: BackwardOptions = {}): void {
  const tape = fwd.tape
  if (!tape) throw new EngineError('engine.backward', 'backward needs a forward run with keepTape: true')
  const { config: c, backend: be, weights: w } = model
  const H = c.numHeads, KV = c.numKvHeads, D = c.headDim
  const N = dHidden.shape[0]
  const free = (...ts: (Tensor | undefined)[]): void => {
    for (const t of ts) if (t) be.release(t)
  }
  const accumulate = (l: number, t: LoraTarget, dA?: Tensor, dB?: Tensor): void => {
    if (!dA || !dB) return
    accumulateGrad(be, grads, peftName(l, t, 'A'), dA)
    accumulateGrad(be, grads, peftName(l, t, 'B'), dB)
  }
  const full = opts.weightGrads ?? false
  let ones: Tensor | undefined
  // dW += dyᵀ x of a base linear (and its bias: dyᵀ 1, the rows' sum), only in full-weight training.
  const weightGrad = (l: number, key: LoraTarget, x: Tensor, dy: Tensor): void => {
    if (!full) return
    const name = layerWeightName(l, key)
    const g = be.linearWeightGrad(x, dy, grads.get(name))
    if (!grads.has(name)) grads.set(name, g)
    const biasKey = `${key}Bias` as keyof LayerWeights
    if (w.layers[l][biasKey]) {
      ones ??= be.fromHost(new Float32Array(N).fill(1), [N, 1])
      const M = dy.shape[dy.shape.length - 1]
      accumulateGrad(be, grads, layerWeightName(l, biasKey), be.reshape(be.linearWeightGrad(ones, be.reshape(dy, [N, M])), [M]))
    }
  }
  const normGrad = (name: string, dw: Tensor): void => {
    if (full) accumulateGrad(be, grads, name, dw)
    else be.release(dw)
  }
  const pos = new Int32Array(N)
  for (const g of tape.segs) for (let i = 0; i < g.length; i++) pos[g.offset + i] = g.start + i
  const cu = cumulativeOffsets(tape.segs)
  const fin = be.rmsnormBackward(tape.xFinal, w.norm, c.rmsNormEps, dHidden)
  normGrad('model.norm.weight', fin.dw)
  let dx = fin.dx
  if (opts.releaseTape) be.release(tape.xFinal)
  for (let l = c.numLayers - 1; l >= 0; l--) {
    const lw = w.layers[l]
    const t = tape.layers[l]
    const op = (m: LoraTarget) => lora(model, tape.useLora, l, m)
    // MLP branch: x3 = x2 + down(swiglu(gate(h2), up(h2)))
    const dDown = be.linearBackward(t.act, lw.down, dx, op('down'))
    weightGrad(l, 'down', t.act, dx)
    accumulate(l, 'down', dDown.dA, dDown.dB)
    const dSw = be.swigluBackward(t.gate, t.up, dDown.dx)
    free(dDown.dx)
    const dGate = be.linearBackward(t.h2, lw.gate, dSw.dgate, op('gate'))
    const dUp = be.linearBackward(t.h2, lw.up, dSw.dup, op('up'))
    weightGrad(l, 'gate', t.h2, dSw.dgate)
    weightGrad(l, 'up', t.h2, dSw.dup)
    free(dSw.dgate, dSw.dup)
    accumulate(l, 'gate', dGate.dA, dGate.dB)
    accumulate(l, 'up', dUp.dA, dUp.dB)
    const dh2 = be.add(dGate.dx, dUp.dx)
    free(dGate.dx, dUp.dx)
    const post = be.rmsnormBackward(t.x2, lw.postNorm, c.rmsNormEps, dh2)
    const dx2 = be.add(dx, post.dx)
    normGrad(layerWeightName(l, 'postNorm'), post.dw)
    free(dh2, post.dx, dx)
    // Attention branch: x2 = x + o(attn(rope(norm(q)), rope(norm(k)), v))
    const dO = be.linearBackward(t.att, lw.o, dx2, op('o'))
    weightGrad(l, 'o', t.att, dx2)
    accumulate(l, 'o', dO.dA, dO.dB)
    const dAtt = be.reshape(dO.dx, [N, H, D])
    const ra = be.attentionVarlenBackward(t.qr, t.kr, be.reshape(t.v, [N, KV, D]), cu, dAtt)
    free(dO.dx)
    let dq = be.ropeBackward(ra.dq, pos, c.ropeTheta)
    let dk = be.ropeBackward(ra.dk, pos, c.ropeTheta)
    free(ra.dq, ra.dk)
    if (lw.qNorm) {
      const r = be.rmsnormBackward(be.reshape(t.q, [N * H, D]), lw.qNorm, c.rmsNormEps, be.reshape(dq, [N * H, D]))
      free(dq)
      normGrad(layerWeightName(l, 'qNorm'), r.dw)
      dq = r.dx
    }
    if (lw.kNorm) {
      const r = be.rmsnormBackward(be.reshape(t.k, [N * KV, D]), lw.kNorm, c.rmsNormEps, be.reshape(dk, [N * KV, D]))
      free(dk)
      normGrad(layerWeightName(l, 'kNorm'), r.dw)
      dk = r.dx
    }
    const dQ = be.linearBackward(t.h1, lw.q, be.reshape(dq, [N, H * D]), op('q'))
    const dK = be.linearBackward(t.h1, lw.k, be.reshape(dk, [N, KV * D]), op('k'))
    const dV = be.linearBackward(t.h1, lw.v, be.reshape(ra.dv, [N, KV * D]), op('v'))
    weightGrad(l, 'q', t.h1, be.reshape(dq, [N, H * D]))
    weightGrad(l, 'k', t.h1, be.reshape(dk, [N, KV * D]))
    weightGrad(l, 'v', t.h1, be.reshape(ra.dv, [N, KV * D]))
    free(dq, dk, ra.dv)
    accumulate(l, 'q', dQ.dA, dQ.dB)
    accumulate(l, 'k', dK.dA, dK.dB)
    accumulate(l, 'v', dV.dA, dV.dB)
    const dqk = be.add(dQ.dx, dK.dx)
    const dh1 = be.add(dqk, dV.dx)
    free(dqk, dQ.dx, dK.dx, dV.dx)
    const pre = be.rmsnormBackward(t.x, lw.inputNorm, c.rmsNormEps, dh1)
    dx = be.add(dx2, pre.dx)
    normGrad(layerWeightName(l, 'inputNorm'), pre.dw)
    free(dh1, pre.dx, dx2)
    if (opts.releaseTape) free(t.x, t.h1, t.q, t.k, t.qr, t.kr, t.v, t.att, t.x2, t.h2, t.gate, t.up, t.act)
  }
  const ad = model.adapter
  if (tape.embed && ad?.embed) {
    // delta = scale · rows · Bᵀ is a linear with a zero base weight and the LoRA pair (A = I, B): its backward gives
    // d rows = scale · dx · B and dB = scale · dxᵀ · rows; the table's gradient is d rows scattered by token id.
    const r = ad.config.rank
    const eye = new Float32Array(r * r)
    for (let i = 0; i < r; i++) eye[i * r + i] = 1
    const I = be.fromHost(eye, [r, r])
    const Z = be.zeros([c.hiddenSize, r])
    const g = be.linearBackward(tape.embed.rows, Z, dx, { a: I, b: ad.embed.b, scale: ad.scale })
    const dTable = be.embeddingBackward(g.dx, tape.embed.ids, c.vocabSize)
    free(I, Z, g.dx, g.dA)
    accumulateGrad(be, grads, EMBED_LORA_NAME.A, dTable)
    if (g.dB) accumulateGrad(be, grads, EMBED_LORA_NAME.B, g.dB)
    if (opts.releaseTape) be.release(tape.embed.rows)
  }
  if (full) accumulateGrad(be, grads, 'model.embed_tokens.weight', be.embeddingBackward(dx, tape.ids, c.vocabSize))
  if (ones) be.release(ones)
  be.release(dx)
}

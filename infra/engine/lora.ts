// infra/engine/lora: LoRA adapters on the seven linear modules (q,k,v,o,gate,up,down) of every layer, and optionally
// on the input embedding (PEFT target `embed_tokens`) — creation (A from a seeded Rng like PEFT's kaiming-uniform,
// B = 0; for the embedding PEFT's A = 0, B ~ N(0, 1)), and the PEFT on-disk format
// (adapter_config.json + adapter_model.safetensors with PEFT's tensor names, loadable by PEFT and vLLM).
// It does not run the model.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'
import type { Rng } from '../rng'
import type { Backend, LoraOperand, Tensor } from './backend'
import type { ModelConfig } from './config'
import { type HostTensor, readSafetensors, writeSafetensors } from './safetensors'

export const LORA_TARGETS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const
export type LoraTarget = (typeof LORA_TARGETS)[number]

/** Hugging Face module path inside a decoder layer. */
export const HF_MODULE: Record<LoraTarget, string> = {
  q: 'self_attn.q_proj',
  k: 'self_attn.k_proj',
  v: 'self_attn.v_proj',
  o: 'self_attn.o_proj',
  gate: 'mlp.gate_proj',
  up: 'mlp.up_proj',
  down: 'mlp.down_proj',
}

export interface LoraConfig {
  /** r */
  rank: number
  alpha: number
  targets: LoraTarget[]
  /** rsLoRA scaling alpha/sqrt(r) instead of alpha/r (PEFT use_rslora). */
  useRslora?: boolean
  /** LoRA on the input embedding too (PEFT target `embed_tokens`): every token gets r learned features, mapped into
   *  the residual stream by B. The (tied) output head stays frozen. Lets a model whose frozen embedding is random learn
   *  token classes (which tokens are names, numbers, tags) that no linear map of random embeddings can tell apart. */
  embedTokens?: boolean
}

/** The embedding pair. `table` is PEFT's lora_embedding_A [r, V] transposed to [V, r], so the backend's embedding
 *  op looks rows up; `b` is lora_embedding_B [C, r]. The delta of token t is scale · B · table[t]. */
export interface EmbedLoraPair {
  table: Tensor
  b: Tensor
}

/** PEFT's key of the embedding LoRA tensors (a ParameterDict: no `.weight` suffix). */
export const EMBED_LORA_NAME = { A: 'base_model.model.model.embed_tokens.lora_embedding_A', B: 'base_model.model.model.embed_tokens.lora_embedding_B' } as const

/** Split PEFT target_modules into the linear targets and the embedding flag ('embed_tokens' / 'embed'). */
export function parseLoraModules(names: readonly string[] | string): { targets: LoraTarget[]; embedTokens: boolean } {
  const list = typeof names === 'string' ? (names === 'all-linear' ? [...LORA_TARGETS] : names.split(',')) : names
  const embed = list.some((n) => n.trim() === 'embed_tokens' || n.trim() === 'embed')
  return { targets: parseLoraTargets(list.filter((n) => n.trim() !== 'embed_tokens' && n.trim() !== 'embed')), embedTokens: embed }
}

export interface LoraPair {
  /** A [r, in] */
  a: Tensor
  /** B [out, r] */
  b: Tensor
}

/** Accepts 'q' or 'q_proj' (and 'all-linear'); returns targets in canonical order. */
export function parseLoraTargets(names: readonly string[] | string): LoraTarget[] {
  const list = typeof names === 'string' ? (names === 'all-linear' ? [...LORA_TARGETS] : names.split(',')) : names
  const out = new Set<LoraTarget>()
  for (const raw of list) {
    const n = raw.trim().replace(/_proj$/, '')
    if (n === 'all-linear') LORA_TARGETS.forEach((t) => out.add(t))
    else if ((LORA_TARGETS as readonly string[]).includes(n)) out.add(n as LoraTarget)
    else throw new EngineError('engine.lora_target', `unknown LoRA target '${raw}'; use some of ${LORA_TARGETS.join(', ')} (or *_proj)`)
  }
  if (out.size === 0) throw new EngineError('engine.lora_target', 'LoRA needs at least one target module')
  return LORA_TARGETS.filter((t) => out.has(t))
}

/** [out, in] of a target module's weight. */
export function moduleShape(c: ModelConfig, t: LoraTarget): [number, number] {
  const C = c.hiddenSize, HD = c.numHeads * c.headDim, KVD = c.numKvHeads * c.headDim, F = c.intermediateSize
  switch (t) {
    case 'q':
      return [HD, C]
    case 'k':
    case 'v':
      return [KVD, C]
    case 'o':
      return [C, HD]
    case 'gate':
    case 'up':
      return [F, C]
    case 'down':
      return [C, F]
  }
}

export function peftName(layer: number, t: LoraTarget, which: 'A' | 'B'): string {
  return `base_model.model.model.layers.${layer}.${HF_MODULE[t]}.lora_${which}.weight`
}

export class LoraAdapter {
  constructor(
    readonly config: LoraConfig,
    /** Per layer, the pair of each target. */
    readonly layers: Array<Partial<Record<LoraTarget, LoraPair>>>,
    /** The input-embedding pair (config.embedTokens). */
    readonly embed?: EmbedLoraPair,
  ) {}

  get scale(): number {
    return this.config.useRslora ? this.config.alpha / Math.sqrt(this.config.rank) : this.config.alpha / this.config.rank
  }

  operand(layer: number, t: LoraTarget): LoraOperand | undefined {
    const p = this.layers[layer]?.[t]
    return p ? { a: p.a, b: p.b, scale: this.scale } : undefined
  }

  /** Every trainable tensor under its PEFT name, sorted by name. */
  params(): { name: string; tensor: Tensor }[] {
    const out: { name: string; tensor: Tensor }[] = []
    this.layers.forEach((pairs, l) => {
      for (const t of LORA_TARGETS) {
        const p = pairs[t]
        if (!p) continue
        out.push({ name: peftName(l, t, 'A'), tensor: p.a }, { name: peftName(l, t, 'B'), tensor: p.b })
      }
    })
    if (this.embed) out.push({ name: EMBED_LORA_NAME.A, tensor: this.embed.table }, { name: EMBED_LORA_NAME.B, tensor: this.embed.b })
    return out.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  }
}

function validateLoraConfig(c: LoraConfig): void {
  if (!Number.isInteger(c.rank) || c.rank < 1) throw new EngineError('engine.lora_config', `LoRA rank must be a positive integer, got ${c.rank}`)
  if (!(c.alpha > 0)) throw new EngineError('engine.lora_config', `LoRA alpha must be positive, got ${c.alpha}`)
}

/** A fresh adapter: A ~ U(−1/√in, 1/√in) (PEFT's kaiming_uniform(a=√5)), B = 0, so it starts as the base model. */
export function createLoraAdapter(backend: Backend, model: ModelConfig, config: LoraConfig, rng: Rng): LoraAdapter {
  validateLoraConfig(config)
  const targets = parseLoraTargets(config.targets)
  const r = config.rank
  const layers: Array<Partial<Record<LoraTarget, LoraPair>>> = []
  for (let l = 0; l < model.numLayers; l++) {
    const pairs: Partial<Record<LoraTarget, LoraPair>> = {}
    for (const t of targets) {
      const [out, inp] = moduleShape(model, t)
      const bound = 1 / Math.sqrt(inp)
      const a = new Float32Array(r * inp)
      for (let i = 0; i < a.length; i++) a[i] = rng.float(-bound, bound)
      pairs[t] = { a: backend.fromHost(a, [r, inp]), b: backend.zeros([out, r]) }
    }
    layers.push(pairs)
  }
  // After the linears, so adapters without it draw exactly what they drew before. PEFT: A = 0, B ~ N(0, 1).
  let embed: EmbedLoraPair | undefined
  if (config.embedTokens) {
    const b = new Float32Array(model.hiddenSize * r)
    for (let i = 0; i < b.length; i++) b[i] = rng.normal()
    embed = { table: backend.zeros([model.vocabSize, r]), b: backend.fromHost(b, [model.hiddenSize, r]) }
  }
  return new LoraAdapter({ ...config, targets, embedTokens: config.embedTokens === true }, layers, embed)
}

/** [rows, cols] → [cols, rows] on the host. */
function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length)
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j]
  return out
}

/** Write DIR/adapter_config.json and DIR/adapter_model.safetensors (float32, so a reload is bit-exact). */
export function saveLoraAdapter(dir: string, adapter: LoraAdapter, backend: Backend, baseModelNameOrPath: string): void {
  mkdirSync(dir, { recursive: true })
  const c = adapter.config
  const cfg = {
    alpha_pattern: {},
    auto_mapping: null,
    base_model_name_or_path: baseModelNameOrPath,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    layers_pattern: null,
    layers_to_transform: null,
    lora_alpha: c.alpha,
    lora_dropout: 0,
    modules_to_save: null,
    peft_type: 'LORA',
    r: c.rank,
    rank_pattern: {},
    revision: null,
    target_modules: [...c.targets.map((t) => HF_MODULE[t].split('.')[1]), ...(adapter.embed ? ['embed_tokens'] : [])],
    task_type: 'CAUSAL_LM',
    use_dora: false,
    use_rslora: c.useRslora === true,
  }
  writeFileSync(join(dir, 'adapter_config.json'), JSON.stringify(cfg, null, 2) + '\n')
  const tensors = new Map<string, HostTensor>()
  for (const p of adapter.params()) {
    // PEFT stores lora_embedding_A as [r, V]; it lives here transposed (a lookup table).
    if (p.name === EMBED_LORA_NAME.A) {
      const [V, r] = p.tensor.shape
      tensors.set(p.name, { shape: [r, V], data: transpose(backend.toHost(p.tensor), V, r) })
    } else tensors.set(p.name, { shape: p.tensor.shape.slice(), data: backend.toHost(p.tensor) })
  }
  writeSafetensors(join(dir, 'adapter_model.safetensors'), tensors, { dtype: 'F32', metadata: { format: 'pt' } })
}

/** Read a PEFT LoRA adapter for a model of this config. */
export function loadLoraAdapter(dir: string, backend: Backend, model: ModelConfig): LoraAdapter {
  const cfgPath = join(dir, 'adapter_config.json')
  if (!existsSync(cfgPath)) throw new EngineError('engine.adapter_missing', `no adapter_config.json in ${dir}; pass a PEFT LoRA adapter directory`)
  const cfg = JSON.parse(readFileSync(cfgPath, 'utf8')) as Record<string, unknown>
  if (cfg.peft_type !== 'LORA') throw new EngineError('engine.adapter', `${cfgPath}: peft_type '${String(cfg.peft_type)}' is not LORA`)
  if (cfg.use_dora === true) throw new EngineError('engine.adapter', `${cfgPath}: DoRA adapters are not supported`)
  if (cfg.lora_bias === true || (cfg.bias !== undefined && cfg.bias !== 'none'))
    throw new EngineError('engine.adapter', `${cfgPath}: adapters that train biases are not supported (bias must be 'none')`)
  if (cfg.layers_to_transform != null || (Array.isArray(cfg.modules_to_save) && cfg.modules_to_save.length > 0))
    throw new EngineError('engine.adapter', `${cfgPath}: layers_to_transform / modules_to_save are not supported; LoRA must cover every layer`)
  for (const k of ['rank_pattern', 'alpha_pattern'])
    if (cfg[k] && Object.keys(cfg[k] as object).length > 0) throw new EngineError('engine.adapter', `${cfgPath}: ${k} is not supported`)
  const tm = cfg.target_modules
  if (!(Array.isArray(tm) || tm === 'all-linear')) throw new EngineError('engine.adapter', `${cfgPath}: target_modules must be a list of module names`)
  const modules = parseLoraModules(tm as string[] | string)
  const config: LoraConfig = {
    rank: Number(cfg.r),
    alpha: Number(cfg.lora_alpha),
    targets: modules.targets,
    useRslora: cfg.use_rslora === true,
    embedTokens: modules.embedTokens,
  }
  validateLoraConfig(config)
  const file = join(dir, 'adapter_model.safetensors')
  if (!existsSync(file)) throw new EngineError('engine.adapter_missing', `no adapter_model.safetensors in ${dir} (pickled adapter_model.bin is not read)`)
  const { tensors } = readSafetensors(file)
  const layers: Array<Partial<Record<LoraTarget, LoraPair>>> = []
  const used = new Set<string>()
  for (let l = 0; l < model.numLayers; l++) {
    const pairs: Partial<Record<LoraTarget, LoraPair>> = {}
    for (const t of config.targets) {
      const [out, inp] = moduleShape(model, t)
      const get = (which: 'A' | 'B', shape: number[]): Tensor => {
        const name = peftName(l, t, which)
        // Some writers keep the adapter name ('.default') in the key.
        const alt = name.replace(`.lora_${which}.weight`, `.lora_${which}.default.weight`)
        const h = tensors.get(name) ?? tensors.get(alt)
        if (!h) throw new EngineError('engine.adapter', `${file}: missing tensor ${name}`)
        if (h.shape.join(',') !== shape.join(','))
          throw new EngineError('engine.adapter', `${file}: ${name} has shape [${h.shape}], expected [${shape}] for this model`)
        used.add(tensors.has(name) ? name : alt)
        return backend.fromHost(h.data, shape)
      }
      pairs[t] = { a: get('A', [config.rank, inp]), b: get('B', [out, config.rank]) }
    }
    layers.push(pairs)
  }
  let embed: EmbedLoraPair | undefined
  if (config.embedTokens) {
    const get = (name: string, shape: number[]) => {
      const h = tensors.get(name) ?? tensors.get(`${name}.default`)
      if (!h) throw new EngineError('engine.adapter', `${file}: missing tensor ${name} (target_modules has embed_tokens)`)
      if (h.shape.join(',') !== shape.join(',')) throw new EngineError('engine.adapter', `${file}: ${name} has shape [${h.shape}], expected [${shape}] for this model`)
      used.add(tensors.has(name) ? name : `${name}.default`)
      return h
    }
    const a = get(EMBED_LORA_NAME.A, [config.rank, model.vocabSize])
    const b = get(EMBED_LORA_NAME.B, [model.hiddenSize, config.rank])
    embed = { table: backend.fromHost(transpose(a.data, config.rank, model.vocabSize), [model.vocabSize, config.rank]), b: backend.fromHost(b.data, [model.hiddenSize, config.rank]) }
  }
  const extra = [...tensors.keys()].filter((k) => !used.has(k))
  if (extra.length > 0) throw new EngineError('engine.adapter', `${file}: tensors this model has no place for, e.g. ${extra[0]} (${extra.length} in all)`)
  return new LoraAdapter(config, layers, embed)
}

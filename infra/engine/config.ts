// infra/engine/config: the model configuration (dense Qwen3 / Qwen2 / Llama-style decoders), read from a local
// Hugging Face config.json, written back to one, and the tiny/small presets for random test models.
// It does not know about weights or tokenizers.
import { ownLookup } from '../lookup'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'

export const MODEL_ARCHS = ['qwen3', 'qwen2', 'llama'] as const
export type ModelArch = (typeof MODEL_ARCHS)[number]

/** The architecture numbers the engine needs. Shape letters as in infra/engine/index.ts. */
export interface ModelConfig {
  arch: ModelArch
  /** V */
  vocabSize: number
  /** C (hidden_size) */
  hiddenSize: number
  /** F (intermediate_size of the SwiGLU MLP) */
  intermediateSize: number
  /** L */
  numLayers: number
  /** H */
  numHeads: number
  /** KV */
  numKvHeads: number
  /** D */
  headDim: number
  rmsNormEps: number
  ropeTheta: number
  tieWordEmbeddings: boolean
  /** Qwen3: RMSNorm over D on q and k per head, before RoPE. */
  qkNorm: boolean
  /** Bias on q, k, v projections (Qwen2; attention_bias for Llama/Qwen3). */
  qkvBias: boolean
  /** Bias on the o projection (attention_bias for Llama/Qwen3; never for Qwen2). */
  oBias: boolean
  maxPositionEmbeddings: number
  bosTokenId?: number
  eosTokenIds: number[]
}

const ARCH_BY_MODEL_TYPE: Record<string, ModelArch> = { qwen3: 'qwen3', qwen2: 'qwen2', llama: 'llama' }

function num(json: Record<string, unknown>, key: string, where: string, fallback?: number): number {
  const v = json[key]
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback
    throw new EngineError('engine.config', `${where}: missing number '${key}'; is this a Hugging Face config.json of a dense decoder?`)
  }
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new EngineError('engine.config', `${where}: '${key}' must be a number, got ${JSON.stringify(v)}`)
  return v
}

/** Parse the fields of a Hugging Face config.json (transformers 4.x or 5.x spelling) into a ModelConfig. */
export function parseHfConfig(json: Record<string, unknown>, where = 'config.json'): ModelConfig {
  const modelType = String(json.model_type ?? '')
  const arch = ownLookup(ARCH_BY_MODEL_TYPE, modelType)
  if (!arch)
    throw new EngineError(
      'engine.config_arch',
      `${where}: model_type '${modelType}' is not supported; supported: ${Object.keys(ARCH_BY_MODEL_TYPE).join(', ')}`,
    )
  const act = json.hidden_act ?? 'silu'
  if (act !== 'silu') throw new EngineError('engine.config', `${where}: hidden_act '${String(act)}' is not supported (only silu)`)
  // transformers 5 moves rope_theta / rope_scaling into rope_parameters.
  const ropeParams = (json.rope_parameters ?? json.rope_scaling ?? null) as Record<string, unknown> | null
  const ropeType = ropeParams ? String(ropeParams.rope_type ?? ropeParams.type ?? 'default') : 'default'
  if (ropeType !== 'default')
    throw new EngineError('engine.config', `${where}: rope type '${ropeType}' is not supported (only default RoPE)`)
  const ropeTheta =
    typeof json.rope_theta === 'number' ? json.rope_theta : typeof ropeParams?.rope_theta === 'number' ? ropeParams.rope_theta : 10000
  if (json.use_sliding_window === true)
    throw new EngineError('engine.config', `${where}: sliding-window attention is not supported`)
  if (json.mlp_bias === true) throw new EngineError('engine.config', `${where}: mlp_bias is not supported`)
  const hiddenSize = num(json, 'hidden_size', where)
  const numHeads = num(json, 'num_attention_heads', where)
  const numKvHeads = num(json, 'num_key_value_heads', where, numHeads)
  const headDim = num(json, 'head_dim', where, hiddenSize / numHeads)
  if (!Number.isInteger(headDim) || numHeads % numKvHeads !== 0)
    throw new EngineError('engine.config', `${where}: heads ${numHeads}, kv heads ${numKvHeads}, head_dim ${headDim} do not fit`)
  const attentionBias = json.attention_bias === true
  const eos = json.eos_token_id
  const eosTokenIds = Array.isArray(eos) ? eos.filter((x): x is number => typeof x === 'number') : typeof eos === 'number' ? [eos] : []
  return {
    arch,
    vocabSize: num(json, 'vocab_size', where),
    hiddenSize,
    intermediateSize: num(json, 'intermediate_size', where),
    numLayers: num(json, 'num_hidden_layers', where),
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: num(json, 'rms_norm_eps', where, 1e-6),
    ropeTheta,
    tieWordEmbeddings: json.tie_word_embeddings === true,
    qkNorm: arch === 'qwen3',
    qkvBias: arch === 'qwen2' ? true : attentionBias,
    oBias: arch === 'qwen2' ? false : attentionBias,
    maxPositionEmbeddings: num(json, 'max_position_embeddings', where, 32768),
    bosTokenId: typeof json.bos_token_id === 'number' ? json.bos_token_id : undefined,
    eosTokenIds,
  }
}

/** Read DIR/config.json. */
export function loadModelConfig(dir: string): ModelConfig {
  const { json, path } = readConfigJson(dir)
  return parseHfConfig(json, path)
}

/** The context length of the model in DIR: config.json's max_position_embeddings, required (a run that budgets its
 *  context by the model's says so, not a default: loadModelConfig's 32768 is transformers' for a folder that omits it). */
export function modelContextLength(dir: string): number {
  const { json, path } = readConfigJson(dir)
  const v = json.max_position_embeddings
  if (v === undefined) throw new EngineError('engine.config', `${path} has no max_position_embeddings; write the model's context length there (a positive integer)`)
  if (!Number.isInteger(v) || (v as number) < 1) throw new EngineError('engine.config', `${path}: max_position_embeddings must be a positive integer, got ${JSON.stringify(v)}`)
  return v as number
}

/** DIR/config.json as a JSON object, and its path. */
function readConfigJson(dir: string): { json: Record<string, unknown>; path: string } {
  const path = join(dir, 'config.json')
  if (!existsSync(path)) throw new EngineError('engine.config_missing', `no config.json in ${dir}; pass a Hugging Face model directory`)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new EngineError('engine.config', `${path} is not valid JSON`, { cause: err })
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new EngineError('engine.config', `${path} must hold a JSON object`)
  return { json: json as Record<string, unknown>, path }
}

const HF_CLASS: Record<ModelArch, string> = { qwen3: 'Qwen3ForCausalLM', qwen2: 'Qwen2ForCausalLM', llama: 'LlamaForCausalLM' }

/** The config.json that transformers (4.x and 5.x) reads back into the same architecture. */
export function toHfConfig(c: ModelConfig, dtype: 'float32' | 'bfloat16' | 'float16' = 'float32'): Record<string, unknown> {
  const out: Record<string, unknown> = {
    architectures: [HF_CLASS[c.arch]],
    model_type: c.arch,
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    hidden_act: 'silu',
    max_position_embeddings: c.maxPositionEmbeddings,
    rms_norm_eps: c.rmsNormEps,
    rope_theta: c.ropeTheta,
    rope_scaling: null,
    tie_word_embeddings: c.tieWordEmbeddings,
    use_cache: true,
    torch_dtype: dtype,
    initializer_range: 0.02,
    attention_dropout: 0,
  }
  if (c.arch !== 'qwen2') out.attention_bias = c.qkvBias
  if (c.arch !== 'llama') out.use_sliding_window = false
  if (c.bosTokenId !== undefined) out.bos_token_id = c.bosTokenId
  if (c.eosTokenIds.length === 1) out.eos_token_id = c.eosTokenIds[0]
  else if (c.eosTokenIds.length > 1) out.eos_token_id = c.eosTokenIds
  return out
}

export type ModelPresetName = 'tiny' | 'mini' | 'small'
export const MODEL_PRESET_NAMES: readonly ModelPresetName[] = ['tiny', 'mini', 'small']

/** Shapes of the real Qwen3 architecture at CPU-test size; vocab size comes from the tokenizer. */
export const MODEL_PRESETS: Record<ModelPresetName, Omit<ModelConfig, 'vocabSize' | 'eosTokenIds' | 'bosTokenId'>> = {
  tiny: {
    arch: 'qwen3',
    hiddenSize: 64,
    intermediateSize: 128,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 16,
    rmsNormEps: 1e-6,
    ropeTheta: 1000000,
    tieWordEmbeddings: true,
    qkNorm: true,
    qkvBias: false,
    oBias: false,
    maxPositionEmbeddings: 4096,
  },
  // Twice tiny's width and head dim, tiny's depth (~4× its FLOPs per token): the shape probe of the reader issue.
  mini: {
    arch: 'qwen3',
    hiddenSize: 128,
    intermediateSize: 256,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 32,
    rmsNormEps: 1e-6,
    ropeTheta: 10000,
    tieWordEmbeddings: true,
    qkNorm: true,
    qkvBias: false,
    oBias: false,
    maxPositionEmbeddings: 4096,
  },
  small: {
    arch: 'qwen3',
    hiddenSize: 256,
    intermediateSize: 768,
    numLayers: 4,
    numHeads: 8,
    numKvHeads: 4,
    headDim: 32,
    rmsNormEps: 1e-6,
    ropeTheta: 1000000,
    tieWordEmbeddings: true,
    qkNorm: true,
    qkvBias: false,
    oBias: false,
    maxPositionEmbeddings: 8192,
  },
}

/** A preset with a vocabulary size (and EOS ids) filled in. */
export function presetConfig(name: ModelPresetName, vocabSize: number, eosTokenIds: number[] = [], bosTokenId?: number): ModelConfig {
  const p = ownLookup(MODEL_PRESETS, name)
  if (!p) throw new EngineError('engine.preset', `unknown preset '${String(name)}'; use ${Object.keys(MODEL_PRESETS).join(', ')}`)
  if (!Number.isInteger(vocabSize) || vocabSize < 2) throw new EngineError('engine.preset', `vocab size must be an integer >= 2, got ${vocabSize}`)
  return { ...p, vocabSize, eosTokenIds, bosTokenId }
}

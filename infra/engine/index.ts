// infra/engine: the local policy engine — Qwen3-family decoder-only models with LoRA, a backend boundary
// (ts reference, native C++ addon, cuda library; op list and dtypes in backend.ts), sampling with KV caches and a Tinker-style learning API. This file is the
// curated public surface; import from here.
//
// Shape legend (used in names and comments throughout infra/engine):
//   B  sequences in a batch          T  tokens of one sequence (query rows)    S  key rows (cache + new)
//   N  rows of a flattened batch (Σ T over the batch)
//   C  hidden size (hidden_size)     F  MLP width (intermediate_size)          V  vocabulary size
//   H  attention (query) heads       KV key/value heads (GQA: H % KV == 0)     D  head dim (head_dim)
//   K  in-features of a linear       M  out-features of a linear               r  LoRA rank
//   L  decoder layers
// Layouts are row-major: activations [N,C]; q [N,H,D]; k, v [S,KV,D]; linear weights [M,K] (HF out×in);
// LoRA A [r,K], B [M,r], scale alpha/r.
export type { Backend, Tensor, LoraOperand, AdamWHyper, WeightDtype, RowSamplingParams, SampledRows, MemoryStats } from './backend'
export { createTsBackend, TsBackend } from './ts-backend'
export { createBackend, backendFallbackReason, parseBackendName, type BackendName, BACKEND_NAMES } from './create-backend'
export { createNativeBackend, NativeBackend } from './native/native-backend'
export { createCudaBackend, cudaUnavailableReason, CudaBackend, CudaTensor, type CudaBackendOptions } from './cuda/cuda-backend'
export { type ModelConfig, type ModelArch, MODEL_ARCHS, type ModelPresetName, MODEL_PRESETS, MODEL_PRESET_NAMES, presetConfig, parseHfConfig, loadModelConfig, modelContextLength, toHfConfig } from './config'
export { type HostTensor, type StoredDtype, readSafetensors, readSafetensorsHeader, writeSafetensors, readCheckpoint, writeCheckpoint } from './safetensors'
export {
  CausalLM, type KvCache, type SequenceInput, type ForwardResult, type WeightOptions, createRandomModel, loadModel, saveModel, mergeAdapter,
  createKvCache, forkKvCache, forward, backward, logits, targetLogprobs, weightParams,
} from './model'
export { type LoraConfig, type LoraTarget, LoraAdapter, LORA_TARGETS, parseLoraTargets, createLoraAdapter, saveLoraAdapter, loadLoraAdapter } from './lora'
export { type SamplingParams, type SampledSequence, generate, generateBatch, releaseMergedForSampling } from './sample'
export { KvPrefixCache, prefixStamp, type PrefixStamp } from './prefix-cache'
export { forwardCachedReference } from './forward-cached'
export { decoderStack, releaseDecoderStack } from './model'
export type { DecoderStack, StackLayer, CacheTensors } from './backend'
export { sampleFromRow, samplingSupport } from './sample-row'
export { LOSS_NAMES, POLICY_LOSS_NAMES, type LossConfig, type LossName, type PolicyLossName, clippedSurrogate, k3, tokenLoss } from './losses'
export { AdamW, type OptimParams } from './optimizer'
export { Learner, type Datum, type ForwardBackwardResult, type LearnerOptions, type KlReference, type PolicyOptions, type Trainable, DEFAULT_LORA } from './learner'
export { type TextTokenizer, type SpecialTokenIds, copyTokenizerFiles, loadTokenizer, loadQwen3Tokenizer, qwen3TokenizerDir } from './tokenizer'
export { ChatTemplate, chatTemplateOf, SIMPLE_QWEN_TEMPLATE, type TemplateMessage, type ToolSpec } from './chat-template'
export { buildWorldTokenizer, saveTokenizerFiles, WORLD_MARKUP_TOKENS, WORLD_TOKENIZER_MODES, type WorldTokenizerMode, type WorldTokenizerStats } from './world-tokenizer'
export { parseHermesToolCalls, formatHermesToolCalls, type OpenAIToolCall } from './chat/hermes'
export { initModel, type InitModelOptions, type TokenizerSource } from './init-model'
export { INIT_DTYPES, MODEL_INIT_FIELDS, parseTokenizerSource, type ModelInitConfig, type TokenizerFlag } from './init-config'
export { modelServeCommand, type ModelServeDeps } from './cli/model-serve'
export { serveModel, type ServeModelOptions, type ServedModel } from './serve-model'
export { MODEL_SERVE_FIELDS, type ModelServeConfig } from './serve-config'
export { BYTE_CHARS } from './world-tokenizer'
export { decodeHermesCall } from './chat/hermes'
export { scanHermesBlocks } from './chat/hermes'
export { ChatCodec } from './chat/codec'

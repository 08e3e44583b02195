// infra/engine/config.test: reading real-world config.json shapes (Qwen3, Qwen2, Llama; transformers 4 and 5).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadModelConfig, modelContextLength, parseHfConfig, presetConfig, toHfConfig } from './config'

const qwen3_06b = {
  architectures: ['Qwen3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151645,
  head_dim: 128, hidden_act: 'silu', hidden_size: 1024, initializer_range: 0.02, intermediate_size: 3072, max_position_embeddings: 40960,
  max_window_layers: 28, model_type: 'qwen3', num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8, rms_norm_eps: 1e-6,
  rope_scaling: null, rope_theta: 1000000, sliding_window: null, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true,
  use_sliding_window: false, vocab_size: 151936,
}

test('Qwen3-0.6B config.json: GQA 16/8, head_dim 128 (≠ C/H), qk-norm, tied, no bias', () => {
  const c = parseHfConfig(qwen3_06b)
  expect(c).toMatchObject({
    arch: 'qwen3', hiddenSize: 1024, numHeads: 16, numKvHeads: 8, headDim: 128, intermediateSize: 3072, numLayers: 28,
    vocabSize: 151936, ropeTheta: 1000000, qkNorm: true, qkvBias: false, oBias: false, tieWordEmbeddings: true, eosTokenIds: [151645],
  })
})

test('transformers 5 spelling (rope_parameters) and Qwen2 defaults (qkv bias, head_dim = C/H)', () => {
  const { rope_theta: _drop, ...rest } = qwen3_06b
  const v5 = parseHfConfig({ ...rest, rope_scaling: undefined, rope_parameters: { rope_type: 'default', rope_theta: 5e5 } })
  expect(v5.ropeTheta).toBe(5e5)
  const q2 = parseHfConfig({ model_type: 'qwen2', hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 4,
    num_key_value_heads: 2, vocab_size: 10, rms_norm_eps: 1e-6, rope_theta: 10000, eos_token_id: [1, 2] })
  expect(q2).toMatchObject({ headDim: 16, qkvBias: true, oBias: false, qkNorm: false, eosTokenIds: [1, 2], tieWordEmbeddings: false })
  const llama = parseHfConfig({ model_type: 'llama', hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 4,
    vocab_size: 10, attention_bias: true })
  expect(llama).toMatchObject({ numKvHeads: 4, qkvBias: true, oBias: true, qkNorm: false, ropeTheta: 10000 })
})

test('unsupported architectures and RoPE variants are refused with the reason', () => {
  expect(() => parseHfConfig({ ...qwen3_06b, model_type: 'qwen3_moe' })).toThrow(/qwen3_moe' is not supported/)
  expect(() => parseHfConfig({ ...qwen3_06b, rope_scaling: { rope_type: 'yarn', factor: 4 } })).toThrow(/rope type 'yarn'/)
  expect(() => parseHfConfig({ ...qwen3_06b, hidden_size: undefined })).toThrow(/hidden_size/)
})

test('presets write a config.json that parses back to the same config', () => {
  for (const name of ['tiny', 'small'] as const) {
    const c = presetConfig(name, 300, [2], 1)
    expect(parseHfConfig(toHfConfig(c))).toEqual(c)
  }
  expect(() => presetConfig('tiny', 1)).toThrow(/vocab size/)
})

test("modelContextLength: config.json's max_position_embeddings, required (no default), the file named in one line", () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctx-'))
  const write = (json: object) => writeFileSync(join(dir, 'config.json'), JSON.stringify(json))
  write({ ...qwen3_06b })
  expect(modelContextLength(dir)).toBe(40960)
  const { max_position_embeddings: _m, ...without } = qwen3_06b
  write(without)
  expect(() => modelContextLength(dir)).toThrow(new RegExp(`^${join(dir, 'config.json')} has no max_position_embeddings; write the model's context length there`))
  // The engine's own reader keeps transformers' default for such a folder; the context length does not guess.
  expect(loadModelConfig(dir).maxPositionEmbeddings).toBe(32768)
  write({ ...qwen3_06b, max_position_embeddings: 0 })
  expect(() => modelContextLength(dir)).toThrow(/max_position_embeddings must be a positive integer, got 0$/)
  expect(() => modelContextLength(join(dir, 'nowhere'))).toThrow(/^no config.json in /)
  rmSync(dir, { recursive: true, force: true })
})

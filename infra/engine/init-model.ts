// infra/engine/init-model: creates a random model directory of the real architecture — config.json, model.safetensors,
// tokenizer.json + tokenizer_config.json (chat template), generation_config.json — with the real Qwen3 tokenizer or a
// small world tokenizer. Weights come from model.ts (createRandomModel/saveModel); this file only assembles the folder.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'
import { Rng } from '../rng'
import { type ModelArch, type ModelConfig, type ModelPresetName, presetConfig } from './config'
import { type BackendName, createBackend } from './create-backend'
import { createRandomModel, saveModel } from './model'
import type { StoredDtype } from './safetensors'
import { loadTokenizer, qwen3TokenizerDir, type TextTokenizer } from './tokenizer'
import { buildWorldTokenizer, saveTokenizerFiles, type WorldTokenizerMode, type WorldTokenizerStats } from './world-tokenizer'
import { checkInitField } from './init-config'

/** Qwen3's embedding rows (config.json vocab_size of every Qwen3 model): the tokenizer's 151,669 ids padded. */
export const QWEN3_VOCAB_ROWS = 151936

/** Where the tokenizer comes from: the real Qwen3 one, or a small one built from texts (a world's documents: the
 * caller reads them, e.g. with the world package's worldTexts; infra does not read world files) in words or bpe mode. */
export type TokenizerSource =
  | { kind: 'qwen3' }
  | {
      kind: 'texts'
      texts: Iterable<string>
      count?: number
      vocabSize?: number
      nameTokens?: Iterable<string>
      extraTokens?: string[]
      mode?: WorldTokenizerMode
      /** Counted `weight` times each after `texts` (bpe: the name generator's lexicon). */
      weightedTexts?: readonly { text: string; weight: number }[]
    }
export interface InitModelOptions {
  arch: ModelArch
  preset: ModelPresetName
  tokenizer: TokenizerSource
  out: string
  seed: number
  dtype?: StoredDtype
  /** Write into a non-empty folder. */
  force?: boolean
  showProgress?: boolean
  /** Engine backend the weights pass through (default ts; the written files do not depend on it). */
  backend?: BackendName
  /** Std of the random embedding (= output head when tied); default 0.02 like the other weights. A LoRA adapter
   * cannot change the embedding or the final norm, so with 0.02 the largest logit a LoRA-trained random model can
   * reach is ≈ √C·0.02·√C (1.3 for tiny: the loss cannot get far below ln V); training demos use ≈ 0.25. */
  embedStd?: number
  /** Gain of the Qwen3 q_norm/k_norm weights (default 1). Frozen under LoRA; with 1 the attention logits of a random
   * model are bounded by √headDim, so it cannot attend sharply over a long prompt; training demos use 2.5. */
  qkNormWeight?: number
  /** RoPE base frequency (config.json rope_theta); default the preset's (1e6, as Qwen3). */
  ropeTheta?: number
  /** Width of one attention head (config.json head_dim); default the preset's. Need not be hidden / heads (Qwen3's
   *  is not): q/k/v project to heads × headDim. Even, for RoPE's pairs. */
  headDim?: number
}

export interface InitModelResult {
  dir: string
  config: ModelConfig
  parameters: number
  tokenizerVocab: number
  worldTokenizer?: WorldTokenizerStats
}

/** The architecture's switches on top of a (Qwen3-shaped) preset. */
function archConfig(base: ModelConfig, arch: ModelArch): ModelConfig {
  if (arch === 'qwen3') return { ...base, arch, qkNorm: true, qkvBias: false, oBias: false }
  if (arch === 'qwen2') return { ...base, arch, qkNorm: false, qkvBias: true, oBias: false }
  return { ...base, arch, qkNorm: false, qkvBias: false, oBias: false }
}

/** The config keys `ropeTheta` / `headDim` replace in the preset, checked by the table (named by key) before any file is written. */
function attentionOverrides(o: Pick<InitModelOptions, 'ropeTheta' | 'headDim'>): Partial<Pick<ModelConfig, 'ropeTheta' | 'headDim'>> {
  checkInitField('ropeTheta', o.ropeTheta)
  checkInitField('headDim', o.headDim)
  return { ...(o.ropeTheta !== undefined ? { ropeTheta: o.ropeTheta } : {}), ...(o.headDim !== undefined ? { headDim: o.headDim } : {}) }
}

function writeJson(path: string, v: unknown): void {
  writeFileSync(path, JSON.stringify(v, null, 2) + '\n')
}

export function initModel(opts: InitModelOptions): InitModelResult {
  const attention = attentionOverrides(opts)
  if (existsSync(opts.out) && readdirSync(opts.out).length > 0 && !opts.force) {
    throw new EngineError('engine.init_exists', `${opts.out} exists and is not empty; choose another --out or pass --force`)
  }
  mkdirSync(opts.out, { recursive: true })

  let worldStats: WorldTokenizerStats | undefined
  if (opts.tokenizer.kind === 'qwen3') {
    const src = qwen3TokenizerDir()
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(src, f), join(opts.out, f))
  } else {
    const { texts, count, vocabSize, nameTokens, extraTokens, mode, weightedTexts } = opts.tokenizer
    const built = buildWorldTokenizer(texts, { mode, vocabSize, nameTokens, extraTokens, weightedTexts, showProgress: opts.showProgress, expectedTexts: count })
    saveTokenizerFiles(opts.out, built)
    worldStats = built.stats
  }
  const tok: TextTokenizer = loadTokenizer(opts.out)
  // Embedding rows: Qwen3's own padding for its tokenizer; otherwise the tokenizer's ids rounded up to a multiple of 64.
  const rows = opts.tokenizer.kind === 'qwen3' ? QWEN3_VOCAB_ROWS : Math.ceil(tok.vocabSize / 64) * 64
  const config = { ...archConfig(presetConfig(opts.preset, rows, tok.special.stop), opts.arch), ...attention }

  const model = createRandomModel(config, Rng.derive(opts.seed, 'model-init', opts.preset, opts.arch), createBackend(opts.backend ?? 'ts'), { std: 0.02, embedStd: opts.embedStd, qkNormWeight: opts.qkNormWeight })
  saveModel(model, opts.out, { dtype: opts.dtype ?? 'F32' })
  writeJson(join(opts.out, 'generation_config.json'), {
    eos_token_id: tok.special.stop,
    ...(tok.special.pad !== undefined ? { pad_token_id: tok.special.pad } : {}),
    do_sample: true,
    // Qwen3's recommended non-thinking sampling settings.
    temperature: 0.7,
    top_p: 0.8,
    top_k: 20,
  })
  let parameters = 0
  const shapes = [model.weights.embed.shape, model.weights.norm.shape, ...(config.tieWordEmbeddings ? [] : [model.weights.lmHead.shape])]
  for (const lw of model.weights.layers) for (const t of Object.values(lw)) if (t) shapes.push(t.shape)
  for (const s of shapes) parameters += s.reduce((a, b) => a * b, 1)
  return { dir: opts.out, config, parameters, tokenizerVocab: tok.vocabSize, ...(worldStats ? { worldTokenizer: worldStats } : {}) }
}

// infra/engine/init-config: `model init`'s knobs as one field table — the size preset, the tokenizer source, the seed,
// the architecture, the stored dtype, the random initialisation's scales, the attention overrides, the world
// tokenizer's added tokens and the backend — with their defaults, bounds and help, once; initModel() checks its
// attention overrides through it, by key. The output folder is the run's identity, not config. Knows no world file.
import { EngineError } from '../errors'
import { checkField, type FieldTable } from '../fields'
import { MODEL_ARCHS, MODEL_PRESET_NAMES, type ModelArch, type ModelPresetName } from './config'
import { BACKEND_NAMES, type BackendName } from './create-backend'

/** The stored weight dtypes `model init` writes, as the config spells them. */
export const INIT_DTYPES = ['f32', 'bf16', 'f16'] as const

/** What `model init` is configured by (initModel()'s options less the folder and the tokenizer's texts, which the
 *  command builds from `tokenizer`). */
export interface ModelInitConfig {
  preset: ModelPresetName
  /** qwen3, world:DIR[@VOCAB] or bpe:DIR1,DIR2[@VOCAB] (parseTokenizerSource). */
  tokenizer: string
  seed: number
  arch: ModelArch
  dtype: (typeof INIT_DTYPES)[number]
  embedStd?: number
  qkNormWeight?: number
  ropeTheta?: number
  headDim?: number
  nameTokens: boolean
  tagTokens: boolean
  backend: BackendName
}

export const MODEL_INIT_FIELDS: FieldTable = [
  { key: 'preset', type: 'enum', choices: MODEL_PRESET_NAMES, default: 'tiny', flag: 'preset', help: 'size preset (the model shapes of infra/engine MODEL_PRESETS)' },
  {
    key: 'tokenizer',
    type: 'string',
    default: 'qwen3',
    flag: 'tokenizer',
    help: "qwen3 (real Qwen3 tokenizer), world:DIR[@VOCAB] (small tokenizer: one world's words) or bpe:DIR1,DIR2[@VOCAB] (sub-word pieces of the worlds' pages and their name generator's lists: one tokenizer for every seed of a recipe)",
    check: (v, _fail, name) => void parseTokenizerSource(v as string, name),
  },
  { key: 'seed', type: 'int', default: 0, flag: 'seed', help: 'seed of the random weights' },
  { key: 'arch', type: 'enum', choices: MODEL_ARCHS, default: 'qwen3', aliases: ['arch'], help: 'architecture' },
  { key: 'dtype', type: 'enum', choices: INIT_DTYPES, default: 'f32', aliases: ['dtype'], help: 'stored weight dtype' },
  { key: 'embedStd', type: 'number', optional: true, gt: 0, aliases: ['embed-std'], help: 'std of the random embedding / tied output head (unset: 0.02; LoRA training demos: 0.25, see bench/RESULTS.md)' },
  { key: 'qkNormWeight', type: 'number', optional: true, gt: 0, aliases: ['qk-norm-weight'], help: 'gain of the q_norm/k_norm weights (unset: 1; LoRA training demos: 2.5, see bench/RESULTS.md)' },
  { key: 'ropeTheta', type: 'number', optional: true, gt: 0, aliases: ['rope-theta'], help: "RoPE base frequency, config.json rope_theta (unset: the preset's; Qwen3 1000000, Llama 2 10000)" },
  {
    key: 'headDim',
    type: 'int',
    optional: true,
    min: 2,
    aliases: ['head-dim'],
    help: "width of one attention head, config.json head_dim, even (unset: the preset's: tiny 16, small 32)",
    check: (v, fail) => (v as number) % 2 !== 0 && fail(`must be even (RoPE rotates pairs), got ${v as number}`),
  },
  { key: 'nameTokens', type: 'bool', default: false, aliases: ['name-tokens'], help: 'world tokenizer: every entity name of the world is one token (with and without a leading space); give it room with world:DIR@VOCAB, e.g. @8192' },
  { key: 'tagTokens', type: 'bool', default: false, aliases: ['tag-tokens'], help: 'world tokenizer: the search-r1 tags (<search>, <access>, <information> and their ends) one token each' },
  { key: 'backend', type: 'enum', choices: BACKEND_NAMES, default: 'auto', aliases: ['backend'], help: 'engine backend the weights pass through (the files are identical)' },
]

/** One key's check against the table (initModel()'s options, for library callers), named by key. */
export function checkInitField(key: 'ropeTheta' | 'headDim', value: number | undefined): void {
  for (const f of MODEL_INIT_FIELDS) if (f.key === key) checkField(f, value, key)
}

/** The `tokenizer` key as written: qwen3, world:DIR[@VOCAB] (one world's words), or bpe:DIR1,DIR2[@VOCAB] (sub-word
 *  pieces of several worlds and their name generator's lists); the command turns the worlds into texts. */
export type TokenizerFlag = { kind: 'qwen3' } | { kind: 'world'; dir: string; vocabSize?: number } | { kind: 'bpe'; dirs: string[]; vocabSize?: number }

/** `qwen3`, `world:DIR` or `bpe:DIR1,DIR2` (optionally …@4096 for the vocabulary size; the world folders of bpe: are
 *  comma-separated, so a folder name cannot hold a comma); `name` is what an error calls it. */
export function parseTokenizerSource(s: string, name = 'tokenizer'): TokenizerFlag {
  if (s === 'qwen3') return { kind: 'qwen3' }
  const withVocab = (rest: string): { where: string; vocabSize?: number } => {
    const at = rest.lastIndexOf('@')
    if (at > 0 && /^\d+$/.test(rest.slice(at + 1))) return { where: rest.slice(0, at), vocabSize: Number(rest.slice(at + 1)) }
    return { where: rest }
  }
  if (s.startsWith('world:') && s.length > 'world:'.length) {
    const { where, vocabSize } = withVocab(s.slice('world:'.length))
    return { kind: 'world', dir: where, ...(vocabSize !== undefined ? { vocabSize } : {}) }
  }
  if (s.startsWith('bpe:') && s.length > 'bpe:'.length) {
    const { where, vocabSize } = withVocab(s.slice('bpe:'.length))
    const dirs = where.split(',')
    if (dirs.some((d) => d === '')) throw new EngineError('engine.tokenizer_source', `${name} '${s}' has an empty world folder; use bpe:DIR1,DIR2[@VOCAB], e.g. bpe:worlds/s1,worlds/s2@4096`)
    return { kind: 'bpe', dirs, ...(vocabSize !== undefined ? { vocabSize } : {}) }
  }
  throw new EngineError(
    'engine.tokenizer_source',
    `${name} '${s}' is not understood; use qwen3 or world:DIR (a world folder holding world.db), e.g. world:worlds/tiny, or bpe:DIR1,DIR2[@VOCAB] (sub-word pieces of several worlds), e.g. bpe:worlds/s1,worlds/s2@4096`,
  )
}

// world/search/embed/tiny-model: writes a small seeded sentence-embedding model directory (model.onnx + tokenizer.json
// + searchgym-embedder.json) for tests, CI and benchmarks, where no real model can be downloaded. A FIXTURE, not a
// retriever anyone should use: token embedding table → one dense layer (tanh) → the hidden states an exported
// BERT-like encoder gives (scaled by a per-token idf gain, padding positions zeroed); the embedder pools them. Its tokenizer is a world tokenizer
// (infra/engine/world-tokenizer) over the given texts, with a BERT-uncased normalizer (lower case, no accents).
import { Tokenizer } from '@huggingface/tokenizers'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BYTE_CHARS, buildWorldTokenizer } from '../../../infra/engine'
import { Rng } from '../../../infra/rng'
import { encodeOnnxModel, ONNX_FLOAT, ONNX_INT64 } from './onnx-proto'
import type { EmbedderSettings } from './embedder'

export interface TinyModelOptions {
  /** Texts the tokenizer's vocabulary is built from. */
  texts: Iterable<string>
  /** Hidden size (default 128). */
  hidden?: number
  /** Tokenizer vocabulary size (default 4096). */
  vocabSize?: number
  seed?: number
  /** Settings written to searchgym-embedder.json (default: mean pooling, normalised, no prefixes). */
  settings?: Partial<EmbedderSettings>
}

/** The weights of a tiny model, for reference computations in tests. */
export interface TinyModelWeights {
  vocab: number
  hidden: number
  /** [vocab, hidden] row-major. */
  embedding: Float32Array
  /** [hidden, hidden] row-major (x · W). */
  dense: Float32Array
  bias: Float32Array
  /** [vocab] per-token output gain: an idf over the texts (what a trained encoder learns: common tokens weigh little). */
  gain: Float32Array
}

const SPACE = BYTE_CHARS[0x20]
const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/** Write a tiny embedding model into `dir`; returns its weights. Deterministic: same options ⇒ same bytes. */
export function writeTinyEmbedder(dir: string, opts: TinyModelOptions): TinyModelWeights {
  const hidden = opts.hidden ?? 128
  const rng = Rng.derive(opts.seed ?? 1, 'tiny-embedder')
  const texts: string[] = []
  for (const t of opts.texts) texts.push(fold(t))
  const tok = buildWorldTokenizer(texts, { vocabSize: opts.vocabSize ?? 4096, minCount: 1 })
  // BERT-uncased style normalisation, so "Zoë" and "zoe" are the same token (the vocabulary was built from folded text).
  tok.tokenizerJson.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] }
  // BERT-like pre-tokenization: punctuation is its own token ("title:mabel" → "title", ":", "mabel").
  const pre = tok.tokenizerJson.pre_tokenizer as { pretokenizers: { type: string; pattern?: { Regex: string } }[] }
  pre.pretokenizers[0].pattern = { Regex: ' ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]|\\s+(?!\\S)|\\s+' }
  const vocabMap = (tok.tokenizerJson.model as { vocab: Record<string, number> }).vocab
  let vocab = 0
  for (const id of Object.values(vocabMap)) vocab = Math.max(vocab, id + 1)
  for (const t of tok.tokenizerJson.added_tokens as { id: number }[]) vocab = Math.max(vocab, t.id + 1)
  const embedding = new Float32Array(vocab * hidden)
  for (let i = 0; i < embedding.length; i++) embedding[i] = rng.float(-1, 1)
  // A word with and without its leading space ("Ġparis", "paris") is one word, as in a WordPiece model: tie the rows.
  for (const [piece, id] of Object.entries(vocabMap)) {
    const bare = piece.startsWith(SPACE) ? vocabMap[piece.slice(1)] : undefined
    if (bare !== undefined) embedding.copyWithin(id * hidden, bare * hidden, (bare + 1) * hidden)
  }
  const dense = new Float32Array(hidden * hidden)
  const a = 3 / Math.sqrt(hidden)
  for (let i = 0; i < dense.length; i++) dense[i] = rng.float(-a, a)
  const bias = new Float32Array(hidden)
  for (let i = 0; i < hidden; i++) bias[i] = rng.float(-0.05, 0.05)

  // Per-token gain = idf over the texts, so mean pooling behaves like a tf-idf bag of words rather than a bag of stop words.
  const tokenizer = new Tokenizer(tok.tokenizerJson, {})
  const df = new Float64Array(vocab)
  for (const t of texts) for (const id of new Set(tokenizer.encode(t, { add_special_tokens: false }).ids)) df[id]++
  const gain = new Float32Array(vocab)
  for (let i = 0; i < vocab; i++) gain[i] = Math.log((texts.length + 1) / (df[i] + 1)) + 0.1
  for (const [piece, id] of Object.entries(vocabMap)) {
    const bare = piece.startsWith(SPACE) ? vocabMap[piece.slice(1)] : undefined
    if (bare !== undefined) gain[id] = gain[bare] = Math.min(gain[id], gain[bare])
  }
  const model = encodeOnnxModel({
    name: 'searchgym-tiny-embedder',
    inputs: [
      { name: 'input_ids', elemType: ONNX_INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', elemType: ONNX_INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'last_hidden_state', elemType: ONNX_FLOAT, shape: ['batch', 'sequence', hidden] }],
    initializers: [
      { name: 'embedding', dims: [vocab, hidden], data: embedding },
      { name: 'dense', dims: [hidden, hidden], data: dense },
      { name: 'bias', dims: [hidden], data: bias },
      { name: 'gain', dims: [vocab], data: gain },
      { name: 'axis2', dims: [1], data: BigInt64Array.from([2n]) },
    ],
    nodes: [
      { op: 'Gather', inputs: ['embedding', 'input_ids'], outputs: ['tok'], attrs: [{ name: 'axis', int: 0 }] },
      { op: 'MatMul', inputs: ['tok', 'dense'], outputs: ['proj'] },
      { op: 'Add', inputs: ['proj', 'bias'], outputs: ['pre'] },
      { op: 'Tanh', inputs: ['pre'], outputs: ['act'] },
      { op: 'Gather', inputs: ['gain', 'input_ids'], outputs: ['g'], attrs: [{ name: 'axis', int: 0 }] },
      { op: 'Unsqueeze', inputs: ['g', 'axis2'], outputs: ['g3'] },
      { op: 'Mul', inputs: ['act', 'g3'], outputs: ['weighted'] },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['maskf'], attrs: [{ name: 'to', int: ONNX_FLOAT }] },
      { op: 'Unsqueeze', inputs: ['maskf', 'axis2'], outputs: ['mask3'] },
      { op: 'Mul', inputs: ['weighted', 'mask3'], outputs: ['last_hidden_state'] },
    ],
  })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'model.onnx'), model)
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tok.tokenizerJson) + '\n')
  const settings: Partial<EmbedderSettings> = {
    name: `searchgym-tiny-${hidden}`,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxLength: 512,
    ...opts.settings,
  }
  writeFileSync(join(dir, 'searchgym-embedder.json'), JSON.stringify(settings, null, 2) + '\n')
  return { vocab, hidden, embedding, dense, bias, gain }
}

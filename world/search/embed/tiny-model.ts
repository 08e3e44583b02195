// world/search/embed/tiny-model: writes a small seeded sentence-embedding model directory (model.onnx + tokenizer.json
// + searchgym-embedder.json) for tests, CI and benchmarks, where no real model can be downloaded. A FIXTURE, not a
// retriever anyone should use: token embedding table → one dense layer (tanh) → the hidden states an exported
// BERT-like encoder gives (padding positions zeroed); the embedder pools them. Its tokenizer is a world tokenizer
// (infra/engine/world-tokenizer) over the given texts, with a BERT-uncased normalizer (lower case, no accents).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildWorldTokenizer } from '../../../infra/engine/world-tokenizer'
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
  /** Settings written to searchgym-embedder.json (default: mean pooling, normalised, e5-style prefixes). */
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
}

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
  const vocab = tok.stats.vocabSize
  const embedding = new Float32Array(vocab * hidden)
  for (let i = 0; i < embedding.length; i++) embedding[i] = rng.float(-1, 1)
  const dense = new Float32Array(hidden * hidden)
  const a = 3 / Math.sqrt(hidden)
  for (let i = 0; i < dense.length; i++) dense[i] = rng.float(-a, a)
  const bias = new Float32Array(hidden)
  for (let i = 0; i < hidden; i++) bias[i] = rng.float(-0.05, 0.05)

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
      { name: 'axis2', dims: [1], data: BigInt64Array.from([2n]) },
    ],
    nodes: [
      { op: 'Gather', inputs: ['embedding', 'input_ids'], outputs: ['tok'], attrs: [{ name: 'axis', int: 0 }] },
      { op: 'MatMul', inputs: ['tok', 'dense'], outputs: ['proj'] },
      { op: 'Add', inputs: ['proj', 'bias'], outputs: ['pre'] },
      { op: 'Tanh', inputs: ['pre'], outputs: ['act'] },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['maskf'], attrs: [{ name: 'to', int: ONNX_FLOAT }] },
      { op: 'Unsqueeze', inputs: ['maskf', 'axis2'], outputs: ['mask3'] },
      { op: 'Mul', inputs: ['act', 'mask3'], outputs: ['last_hidden_state'] },
    ],
  })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'model.onnx'), model)
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tok.tokenizerJson) + '\n')
  const settings: Partial<EmbedderSettings> = {
    name: `searchgym-tiny-${hidden}`,
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    maxLength: 512,
    ...opts.settings,
  }
  writeFileSync(join(dir, 'searchgym-embedder.json'), JSON.stringify(settings, null, 2) + '\n')
  return { vocab, hidden, embedding, dense, bias }
}

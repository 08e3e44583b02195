// world/search/embed/embedder: a local sentence-embedding model run by onnxruntime-node (CPU) — a model directory with
// an ONNX encoder (model.onnx or onnx/model.onnx) and tokenizer.json, e.g. an e5 / bge / MiniLM export. Mean or CLS
// pooling, L2 normalisation, the model's query/passage prefixes, batching (texts of equal token length share a batch,
// so a text's vector never depends on its batch-mates) and a progress bar. Name + file hash identify the model.
import { Tokenizer } from '@huggingface/tokenizers'
import { existsSync, readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { SearchError } from '../../../infra/errors'
import { sha256 } from '../../../infra/hash'
import { progress } from '../../../infra/progress'

export type Pooling = 'mean' | 'cls'

/** How a model is used; read from searchgym-embedder.json, else from sentence-transformers files, else defaults. */
export interface EmbedderSettings {
  /** Name recorded in worlds (default: the directory name). */
  name: string
  pooling: Pooling
  normalize: boolean
  /** Prepended to queries (e5: 'query: '). */
  queryPrefix: string
  /** Prepended to passages (e5: 'passage: '). */
  passagePrefix: string
  /** Tokens per text, special tokens included; longer texts are cut (default 512). */
  maxLength: number
}

export interface EmbedderOptions {
  /** Texts per ONNX run (default 32). */
  batchSize?: number
  /** onnxruntime intra-op threads (default 1: the machine is shared). */
  threads?: number
  /** Override settings from the directory. */
  settings?: Partial<EmbedderSettings>
}

export interface EmbedderIdentity {
  name: string
  /** sha256 over the model file and tokenizer.json bytes. */
  fileHash: string
  dim: number
  pooling: Pooling
  normalize: boolean
  queryPrefix: string
  passagePrefix: string
}

type Ort = typeof import('onnxruntime-node')
type Session = import('onnxruntime-node').InferenceSession

const SETTINGS_FILE = 'searchgym-embedder.json'

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (e) {
    throw new SearchError('embed.config', `${path} is not valid JSON: ${(e as Error).message}`)
  }
}

/** The settings of a model directory (explicit file, else sentence-transformers' pooling/prompts, else defaults). */
export function readEmbedderSettings(dir: string): EmbedderSettings {
  const s: EmbedderSettings = { name: basename(resolve(dir)), pooling: 'mean', normalize: true, queryPrefix: '', passagePrefix: '', maxLength: 512 }
  const pool = join(dir, '1_Pooling', 'config.json')
  if (existsSync(pool) && readJson(pool).pooling_mode_cls_token === true) s.pooling = 'cls'
  const st = join(dir, 'config_sentence_transformers.json')
  if (existsSync(st)) {
    const prompts = (readJson(st).prompts ?? {}) as Record<string, unknown>
    if (typeof prompts.query === 'string') s.queryPrefix = prompts.query
    const p = prompts.passage ?? prompts.document
    if (typeof p === 'string') s.passagePrefix = p
  }
  const own = join(dir, SETTINGS_FILE)
  if (existsSync(own)) {
    const j = readJson(own)
    const known = new Set(Object.keys(s))
    for (const k of Object.keys(j)) if (!known.has(k)) throw new SearchError('embed.config', `${own}: unknown key '${k}' (known: ${[...known].join(', ')})`)
    Object.assign(s, j)
  }
  return checkSettings(s, own)
}

function checkSettings(s: EmbedderSettings, where: string): EmbedderSettings {
  if (s.pooling !== 'mean' && s.pooling !== 'cls') throw new SearchError('embed.config', `${where}: pooling must be 'mean' or 'cls', got ${JSON.stringify(s.pooling)}`)
  if (typeof s.normalize !== 'boolean') throw new SearchError('embed.config', `${where}: normalize must be true or false`)
  if (typeof s.queryPrefix !== 'string' || typeof s.passagePrefix !== 'string' || typeof s.name !== 'string')
    throw new SearchError('embed.config', `${where}: name, queryPrefix and passagePrefix must be strings`)
  if (!Number.isInteger(s.maxLength) || s.maxLength < 2) throw new SearchError('embed.config', `${where}: maxLength must be an integer >= 2, got ${JSON.stringify(s.maxLength)}`)
  return s
}

/** The model file of a directory: model.onnx, else onnx/model.onnx (Hugging Face optimum's layout). */
export function findModelFile(dir: string): string {
  if (!existsSync(dir)) throw new SearchError('embed.missing', `embedder directory ${dir} does not exist`)
  for (const p of [join(dir, 'model.onnx'), join(dir, 'onnx', 'model.onnx')]) if (existsSync(p)) return p
  throw new SearchError('embed.missing', `no ONNX model in ${dir}: expected model.onnx or onnx/model.onnx (an exported sentence-embedding encoder)`)
}

export class Embedder {
  private closed = false

  private constructor(
    private readonly ort: Ort,
    private readonly session: Session,
    private readonly tokenizer: Tokenizer,
    readonly settings: EmbedderSettings,
    readonly identity: EmbedderIdentity,
    private readonly outputName: string,
    private readonly useTokenTypes: boolean,
    private readonly batchSize: number,
  ) {}

  get dim(): number {
    return this.identity.dim
  }

  /** Load a model directory. Throws SearchError naming the missing or incompatible file. */
  static async load(dir: string, opts: EmbedderOptions = {}): Promise<Embedder> {
    const modelPath = findModelFile(dir)
    const tokPath = join(dir, 'tokenizer.json')
    if (!existsSync(tokPath)) throw new SearchError('embed.missing', `no tokenizer.json in ${dir}: the embedder needs the model's tokenizer.json`)
    const settings = checkSettings({ ...readEmbedderSettings(dir), ...opts.settings }, dir)
    const tokBytes = readFileSync(tokPath)
    let tokenizer: Tokenizer
    try {
      const json = JSON.parse(tokBytes.toString('utf8')) as Record<string, unknown>
      const cfgPath = join(dir, 'tokenizer_config.json')
      tokenizer = new Tokenizer(json, existsSync(cfgPath) ? readJson(cfgPath) : {})
    } catch (e) {
      throw new SearchError('embed.tokenizer', `${tokPath} could not be loaded as a tokenizer: ${(e as Error).message}`)
    }
    const modelBytes = readFileSync(modelPath)
    const ort = (await import('onnxruntime-node')) as Ort
    let session: Session
    try {
      session = await ort.InferenceSession.create(modelBytes, {
        executionProviders: ['cpu'],
        intraOpNumThreads: opts.threads ?? 1,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
      })
    } catch (e) {
      throw new SearchError('embed.model', `${modelPath} is not a loadable ONNX model: ${(e as Error).message.split('\n')[0]}`)
    }
    const inputs = session.inputNames
    if (!inputs.includes('input_ids') || !inputs.includes('attention_mask')) {
      await session.release()
      throw new SearchError('embed.model', `${modelPath} is not a text encoder this embedder can run: inputs are [${inputs.join(', ')}], expected input_ids and attention_mask`)
    }
    const extra = inputs.filter((n) => n !== 'input_ids' && n !== 'attention_mask' && n !== 'token_type_ids')
    if (extra.length > 0) {
      await session.release()
      throw new SearchError('embed.model', `${modelPath} has inputs this embedder cannot fill: ${extra.join(', ')}`)
    }
    const outputName = ['last_hidden_state', 'token_embeddings', 'sentence_embedding'].find((n) => session.outputNames.includes(n)) ?? session.outputNames[0]
    const fileHash = sha256(Buffer.concat([Buffer.from(sha256(modelBytes)), Buffer.from(sha256(tokBytes))]))
    const identity: EmbedderIdentity = {
      name: settings.name,
      fileHash,
      dim: 0,
      pooling: settings.pooling,
      normalize: settings.normalize,
      queryPrefix: settings.queryPrefix,
      passagePrefix: settings.passagePrefix,
    }
    const e = new Embedder(ort, session, tokenizer, settings, identity, outputName, inputs.includes('token_type_ids'), opts.batchSize ?? 32)
    // Probe once for the output width (and to fail here, not mid-build, on a model whose output cannot be pooled).
    const probe = await e.run([e.ids('probe')])
    identity.dim = probe[0].length
    return e
  }

  /** Token ids of a text (special tokens added, cut to maxLength keeping the last special token). */
  private ids(text: string): number[] {
    const enc = this.tokenizer.encode(text, { add_special_tokens: true })
    const ids = enc.ids
    if (ids.length <= this.settings.maxLength) return ids
    return [...ids.slice(0, this.settings.maxLength - 1), ids[ids.length - 1]]
  }

  /** Vectors of same-length id lists, one ONNX run. */
  private async run(batch: number[][]): Promise<Float32Array[]> {
    const n = batch.length
    const len = batch[0].length
    const idData = new BigInt64Array(n * len)
    for (let i = 0; i < n; i++) for (let t = 0; t < len; t++) idData[i * len + t] = BigInt(batch[i][t])
    const mask = new BigInt64Array(n * len).fill(1n)
    const feeds: Record<string, import('onnxruntime-node').Tensor> = {
      input_ids: new this.ort.Tensor('int64', idData, [n, len]),
      attention_mask: new this.ort.Tensor('int64', mask, [n, len]),
    }
    if (this.useTokenTypes) feeds.token_type_ids = new this.ort.Tensor('int64', new BigInt64Array(n * len), [n, len])
    const out = (await this.session.run(feeds))[this.outputName]
    const dims = out.dims
    const data = out.data as Float32Array
    if (out.type !== 'float32') throw new SearchError('embed.model', `model output ${this.outputName} is ${out.type}, expected float32`)
    const vecs: Float32Array[] = []
    if (dims.length === 2) {
      // Already pooled (sentence_embedding).
      const d = dims[1]
      for (let i = 0; i < n; i++) vecs.push(this.finish(Float32Array.from(data.subarray(i * d, (i + 1) * d))))
    } else if (dims.length === 3) {
      const d = dims[2]
      for (let i = 0; i < n; i++) {
        const v = new Float32Array(d)
        const base = i * len * d
        if (this.settings.pooling === 'cls') {
          v.set(data.subarray(base, base + d))
        } else {
          const acc = new Float64Array(d)
          for (let t = 0; t < len; t++) for (let j = 0; j < d; j++) acc[j] += data[base + t * d + j]
          for (let j = 0; j < d; j++) v[j] = acc[j] / len
        }
        vecs.push(this.finish(v))
      }
    } else {
      throw new SearchError('embed.model', `model output ${this.outputName} has shape [${dims.join(', ')}]: expected [batch, sequence, hidden] or [batch, hidden]`)
    }
    return vecs
  }

  private finish(v: Float32Array): Float32Array {
    if (!this.settings.normalize) return v
    let s = 0
    for (let j = 0; j < v.length; j++) s += v[j] * v[j]
    const n = Math.sqrt(s)
    if (n > 0) for (let j = 0; j < v.length; j++) v[j] /= n
    return v
  }

  /** Vectors of raw texts (no prefix added), in input order. */
  async embed(texts: string[], opts: { label?: string; quiet?: boolean } = {}): Promise<Float32Array[]> {
    if (this.closed) throw new SearchError('embed.closed', 'the embedder is closed')
    const ids = texts.map((t) => this.ids(t))
    // Group by token length: no padding, so a vector never depends on which texts share its batch.
    const byLen = new Map<number, number[]>()
    ids.forEach((x, i) => {
      const g = byLen.get(x.length)
      if (g) g.push(i)
      else byLen.set(x.length, [i])
    })
    const out = new Array<Float32Array>(texts.length)
    const bar = opts.label ? progress(opts.label, texts.length, { quiet: opts.quiet }) : undefined
    for (const len of [...byLen.keys()].sort((a, b) => a - b)) {
      const group = byLen.get(len)!
      for (let i = 0; i < group.length; i += this.batchSize) {
        const part = group.slice(i, i + this.batchSize)
        const vecs = await this.run(part.map((j) => ids[j]))
        part.forEach((j, q) => (out[j] = vecs[q]))
        bar?.tick(part.length)
      }
    }
    bar?.done()
    return out
  }

  embedQueries(queries: string[]): Promise<Float32Array[]> {
    return this.embed(queries.map((q) => this.settings.queryPrefix + q))
  }

  embedPassages(passages: string[], opts: { quiet?: boolean; label?: string } = {}): Promise<Float32Array[]> {
    return this.embed(
      passages.map((p) => this.settings.passagePrefix + p),
      { label: opts.label ?? (passages.length >= 256 ? 'embed passages' : undefined), quiet: opts.quiet },
    )
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.session.release()
  }
}

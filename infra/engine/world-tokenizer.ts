// infra/engine/world-tokenizer: builds a small tokenizer from a world's own vocabulary plus the protocol's markup, saved
// as a standard tokenizer.json (byte-level BPE: whole words as tokens with characters and bytes as fallback, or with
// mode 'bpe' sub-word merges learned by bpe-train) and a tokenizer_config.json with a Qwen-like chat template.
// Knows nothing of models nor of world files: it is given texts (the world package reads them: worldTexts, namerLexicon).
import { Tokenizer } from '@huggingface/tokenizers'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors'
import { progress } from '../progress'
import { trainBpe } from './bpe-train'
import { SIMPLE_QWEN_TEMPLATE } from './chat-template'

/** Added tokens that must stay one id each: special ones (skipped by decode) first, then the protocol's tags. */
export const WORLD_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const
export const WORLD_MARKUP_TOKENS = [
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<think>',
  '</think>',
  '<answer>',
  '</answer>',
] as const

/** Qwen2/Qwen3's pre-tokenizer split: letters runs (with one leading non-letter), single digits, punctuation runs, spaces. */
const QWEN_SPLIT = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

/** Text every protocol turn contains (tool schemas, JSON call syntax, the template's tools header), so it gets whole tokens. */
const PROTOCOL_TEXTS = [
  'system\nuser\nassistant\n',
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within  XML tags:\n',
  '\n\nFor each function call, return a json object with function name and arguments within  XML tags:\n\n{"name": <function-name>, "arguments": <args-json-object>}\n',
  '\n{"name": "search", "arguments": {"query": "x"}}\n',
  '{"name": "search", "arguments": {"query": "x"}}',
  '\n{"name": "access", "arguments": {"url": "x"}}\n',
  '{"type": "function", "function": {"name": "search", "description": "Search the documents.", "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "url": {"type": "string"}}, "required": ["query"]}}}',
  '\n[{"title": "x", "url": "https://x", "snippet": "x"}]\n',
]

/** How the vocabulary beyond the 256 bytes is chosen: `words` — the most frequent whole words (a word never seen is
 *  spelled in characters); `bpe` — sub-word pieces merged by frequency (an unseen name is spelled in the pieces of
 *  seen ones: one tokenizer serves every seed of a world recipe). */
export type WorldTokenizerMode = 'words' | 'bpe'
export const WORLD_TOKENIZER_MODES: readonly WorldTokenizerMode[] = ['words', 'bpe']

export interface WorldTokenizerOptions {
  /** Default `words` (the files of that mode are unchanged since it was the only one). */
  mode?: WorldTokenizerMode
  /** Total ids including the 256 byte tokens, character tokens, words (or merges) and added tokens. Default 4096. */
  vocabSize?: number
  /** A word becomes a token only if it occurs at least this often; in `bpe` mode, a pair is merged only while it
   *  occurs at least this often. Default 2. */
  minCount?: number
  /** More added (non-special) tokens, e.g. other protocols' tags (<search>, <information>). */
  extraTokens?: string[]
  /** Texts counted `weight` times each, after `texts` (e.g. a name generator's word lists against a world's pages, which
   *  repeat their own names many times); not counted in stats.texts. */
  weightedTexts?: readonly { text: string; weight: number }[]
  /** Whole names as one token each (e.g. a world's entity names), added as non-special tokens with and without a
   *  leading space (" Lyon" inside a sentence, "Lyon" at a line's start), matched longest first, before the words.
   *  A small model trained from scratch then copies a name as one id instead of spelling it (bench/RESULTS.md, "ninth
   *  attempt"). Unlike extraTokens they do not hide their text from the word count. Matching ignores word boundaries
   *  (a name inside a longer word is still cut out of it); the text round-trips either way. */
  nameTokens?: Iterable<string>
  /** Show progress while counting (default: quiet). */
  showProgress?: boolean
  /** How many texts to expect (for the progress ETA), e.g. countWorldDocs(dir). */
  expectedTexts?: number
}

export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>
  tokenizerConfig: Record<string, unknown>
}

export interface WorldTokenizerStats {
  mode: WorldTokenizerMode
  texts: number
  distinctWords: number
  /** `words` mode: whole words; `bpe`: 0. */
  wordTokens: number
  /** `words` mode: non-ASCII characters made whole; `bpe`: 0. */
  charTokens: number
  /** `bpe` mode: tokens made by learned merges; `words`: 0. */
  mergeTokens: number
  addedTokens: number
  vocabSize: number
}

/** GPT-2's reversible byte → printable character map used by ByteLevel pre-tokenizers (byte b ↦ BYTE_CHARS[b]). */
export const BYTE_CHARS: string[] = (() => {
  const keep: number[] = []
  for (let b = 33; b <= 126; b++) keep.push(b)
  for (let b = 161; b <= 172; b++) keep.push(b)
  for (let b = 174; b <= 255; b++) keep.push(b)
  const out = new Array<string>(256)
  let n = 0
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + n++)
  return out
})()

const utf8 = new TextEncoder()
const SPACE = BYTE_CHARS[0x20]
function byteLevel(s: string): string {
  let out = ''
  for (const b of utf8.encode(s)) out += BYTE_CHARS[b]
  return out
}

function structure(vocab: Record<string, number>, merges: [string, string][], added: Record<string, unknown>[], ignoreMerges = true): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: { type: 'NFC' },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: QWEN_SPLIT }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      // Words mode: whole words are looked up before merges (a word of the world is one token; anything else falls
      // back to characters/bytes). BPE mode: every piece is made by the merges, in rank order.
      ignore_merges: ignoreMerges,
      vocab,
      merges,
    },
  }
}

const byCountThenText = (a: [string, number], b: [string, number]): number =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

/** The vocabulary as it is filled: bytes first, then one of the two modes' tokens, up to `budget` ids. */
interface VocabBuilder {
  ids: string[]
  merges: [string, string][]
  budget: number
  addToken(tok: string): boolean
}

type MadeTokens = Pick<WorldTokenizerStats, 'wordTokens' | 'charTokens' | 'mergeTokens'>

/** Words mode: non-ASCII characters seen, then whole words, most frequent first. */
function addCharsAndWords(v: VocabBuilder, wordCounts: Map<string, number>, charCounts: Map<string, number>, minCount: number): MadeTokens {
  // Characters beyond ASCII: a merge chain over their bytes, so an unseen word containing them costs one id per character.
  let charTokens = 0
  const chars = [...charCounts].filter(([, n]) => n >= minCount).sort(byCountThenText)
  for (const [ch] of chars) {
    const bytes = [...byteLevel(ch)]
    const need = bytes.length - 1
    if (v.ids.length + need > v.budget) break
    let acc = bytes[0]
    for (let i = 1; i < bytes.length; i++) {
      const next = acc + bytes[i]
      if (v.addToken(next)) v.merges.push([acc, bytes[i]])
      acc = next
    }
    charTokens++
  }

  // Whole words, most frequent first: pre-tokens (already byte-level strings) of two or more byte characters.
  let wordTokens = 0
  const words = [...wordCounts].filter(([w, n]) => n >= minCount && [...w].length > 1).sort(byCountThenText)
  for (const [w] of words) {
    if (v.ids.length >= v.budget) break
    if (v.addToken(w)) wordTokens++
  }
  return { wordTokens, charTokens, mergeTokens: 0 }
}

/** BPE mode: merges learned on the pre-tokens. They are byte-level strings (a character per byte), so the merges are
 *  byte-level and any text still round-trips through the 256 byte tokens. */
function addBpeMerges(v: VocabBuilder, wordCounts: Map<string, number>, minCount: number): MadeTokens {
  const learned = trainBpe(wordCounts, { maxNewSymbols: v.budget - v.ids.length, minPairCount: minCount })
  let mergeTokens = 0
  for (const t of learned.newSymbols) if (v.addToken(t)) mergeTokens++
  v.merges.push(...learned.merges)
  return { wordTokens: 0, charTokens: 0, mergeTokens }
}

/**
 * Build a tokenizer whose tokens are the world's most frequent words (as the Qwen pre-tokenizer splits them, so
 * " Paris" is one token), every multi-byte character seen (via merges of its bytes), and all 256 bytes, plus the
 * protocol's markup as added tokens. With mode 'bpe', the tokens past the bytes are instead BPE merges learned on the
 * same pre-tokens (bpe-train). Any text round-trips exactly. Deterministic: same texts ⇒ same bytes.
 */
export function buildWorldTokenizer(texts: Iterable<string>, opts: WorldTokenizerOptions = {}): TokenizerFiles & { stats: WorldTokenizerStats } {
  const mode = opts.mode ?? 'words'
  if (!WORLD_TOKENIZER_MODES.includes(mode)) throw new EngineError('engine.world_tokenizer', `tokenizer mode '${String(mode)}' is not known; use ${WORLD_TOKENIZER_MODES.join(' or ')}`)
  const vocabSize = opts.vocabSize ?? 4096
  const minCount = opts.minCount ?? 2
  const addedContents = [...WORLD_SPECIAL_TOKENS, ...WORLD_MARKUP_TOKENS]
  for (const t of opts.extraTokens ?? []) if (!addedContents.includes(t as never)) addedContents.push(t as never)
  const markup = addedContents.length
  const have = new Set<string>(addedContents)
  for (const n of [...new Set(opts.nameTokens ?? [])].map((n) => n.trim()).filter((n) => n.length > 0).sort())
    for (const t of [n, ` ${n}`]) if (!have.has(t)) (have.add(t), addedContents.push(t as never))
  const minSize = 256 + addedContents.length
  if (!Number.isInteger(vocabSize) || vocabSize < minSize) {
    throw new EngineError('engine.world_vocab_too_small', `vocabSize ${vocabSize} is too small: it must be an integer >= ${minSize} (256 bytes + ${addedContents.length} added tokens)`)
  }

  // Pre-tokenize with the very pipeline the saved tokenizer will use, so counted words are exactly its pre-tokens.
  const probe = new Tokenizer(structure(Object.fromEntries(BYTE_CHARS.map((c, i) => [c, i])), [], []), {})
  const pre = probe.pre_tokenizer
  const norm = probe.normalizer
  if (!pre || !norm) throw new EngineError('engine.world_tokenizer', 'internal: the probe tokenizer lacks a pre-tokenizer')
  const wordCounts = new Map<string, number>()
  const charCounts = new Map<string, number>()
  const countText = (raw: string, weight: number) => {
    let text = norm.normalize(raw)
    for (let i = 0; i < markup; i++) text = text.split(addedContents[i]).join('\n')
    for (const piece of pre.pre_tokenize_text(text)) {
      wordCounts.set(piece, (wordCounts.get(piece) ?? 0) + weight)
      // Words also appear without their leading space in the protocol (a query "Acme ...", <answer>Marie ...): count both.
      if (piece.length > 2 && piece[0] === SPACE) {
        const bare = piece.slice(1)
        wordCounts.set(bare, (wordCounts.get(bare) ?? 0) + weight)
      }
    }
    for (const ch of text) if (ch.codePointAt(0)! > 0x7f) charCounts.set(ch, (charCounts.get(ch) ?? 0) + weight)
  }
  // Protocol text is in every episode: weigh it so its pieces always qualify and rank first.
  for (const t of PROTOCOL_TEXTS) countText(t, 1_000_000)
  let nTexts = 0
  const bar = progress('world tokenizer: count words', opts.expectedTexts ?? 0, { quiet: !opts.showProgress })
  for (const t of texts) {
    countText(t, 1)
    nTexts++
    bar.tick()
  }
  bar.done()
  for (const { text, weight } of opts.weightedTexts ?? []) {
    if (!(Number.isFinite(weight) && weight > 0)) throw new EngineError('engine.world_tokenizer', `a weighted text's weight must be a positive number, got ${weight}`)
    countText(text, weight)
  }

  const vocab: Record<string, number> = {}
  const ids: string[] = []
  const v: VocabBuilder = {
    ids,
    merges: [],
    budget: vocabSize - addedContents.length,
    addToken: (tok: string): boolean => {
      if (Object.prototype.hasOwnProperty.call(vocab, tok)) return false
      vocab[tok] = ids.length
      ids.push(tok)
      return true
    },
  }
  for (const c of BYTE_CHARS) v.addToken(c)
  const made = mode === 'bpe' ? addBpeMerges(v, wordCounts, minCount) : addCharsAndWords(v, wordCounts, charCounts, minCount)
  const merges = v.merges

  const added = addedContents.map((content, i) => ({
    id: ids.length + i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: i < WORLD_SPECIAL_TOKENS.length,
  }))
  const tokenizerJson = structure(vocab, merges, added, mode === 'words')
  const tokenizerConfig: Record<string, unknown> = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: null,
    clean_up_tokenization_spaces: false,
    split_special_tokens: false,
    model_max_length: 32768,
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...rest }) => [String(id), rest])),
    chat_template: SIMPLE_QWEN_TEMPLATE,
  }
  return {
    tokenizerJson,
    tokenizerConfig,
    stats: {
      mode,
      texts: nTexts,
      distinctWords: wordCounts.size,
      ...made,
      addedTokens: added.length,
      vocabSize: ids.length + added.length,
    },
  }
}

/** Write tokenizer.json and tokenizer_config.json into `dir` (created if needed); stable key order, 2-space JSON. */
export function saveTokenizerFiles(dir: string, files: TokenizerFiles): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizerJson, null, 2) + '\n')
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig, null, 2) + '\n')
}

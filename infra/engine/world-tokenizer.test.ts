// Tests for world-tokenizer: built from texts or a world.db, saved as tokenizer.json that @huggingface/tokenizers loads back.
import { Tokenizer } from '@huggingface/tokenizers'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeBpe, mergeRanks } from './bpe-train'
import { chatTemplateOf } from './chat-template'
import { loadTokenizer } from './tokenizer'
import { buildWorldTokenizer, saveTokenizerFiles } from './world-tokenizer'

const DOCS = [
  'Acme Corporation is a company founded in 1987 by Marie Curie in Zürich. Acme Corporation makes anvils.',
  'Marie Curie was a physicist born in Warsaw. Marie Curie founded Acme Corporation.',
  'Zürich is a city in Switzerland. The population of Zürich is 421878.',
  'Warsaw is the capital of Poland. Warsaw lies on the Vistula.',
]

function buildAndLoad(texts: string[], vocabSize = 1024) {
  const built = buildWorldTokenizer(texts, { vocabSize })
  const dir = mkdtempSync(join(tmpdir(), 'wtok-'))
  saveTokenizerFiles(dir, built)
  return { built, dir, tok: loadTokenizer(dir) }
}

describe('buildWorldTokenizer', () => {
  const { built, dir, tok } = buildAndLoad(DOCS)

  it('loads back through @huggingface/tokenizers with the protocol ids', () => {
    expect(tok.vocabSize).toBe(built.stats.vocabSize)
    expect(tok.special.eos).toBe(tok.tokenToId('<|im_end|>'))
    for (const t of ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<answer>', '</answer>', '<think>', '</think>', '<tool_response>']) {
      expect(tok.encode(t)).toEqual([tok.tokenToId(t)])
    }
    expect(tok.special.toolCallStart).toBeDefined()
    expect(tok.special.stop).toContain(tok.tokenToId('<|endoftext|>'))
  })

  it('makes frequent world words whole tokens (with their leading space)', () => {
    expect(tok.tokens(' Marie Curie founded Acme Corporation')).toEqual(['ĠMarie', 'ĠCurie', 'Ġfounded', 'ĠAcme', 'ĠCorporation'])
    expect(tok.tokens(' Zürich').length).toBe(1)
  })

  it('falls back to characters and bytes for unseen text, and round-trips anything exactly', () => {
    const samples = [
      ...DOCS,
      'Unseen words: Quixotic zebras in Ōsaka 東京 🎉!',
      '<|im_start|>user\nWho founded Acme Corporation?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "search", "arguments": {"query": "Acme"}}\n</tool_call><|im_end|>',
      '<answer>Marie Curie</answer>',
      '  \n\t spaces\r\n',
    ]
    for (const s of samples) expect(tok.decode(tok.encode(s))).toBe(s)
    // ü was seen twice or more, so it is one character token even inside an unseen word.
    expect(tok.tokens('Müx')).toEqual(['M', 'Ã¼', 'x'])
  })

  it('makes seen multi-byte characters single tokens through merge chains (3-byte CJK, 4-byte emoji)', () => {
    const cjk = buildAndLoad(['東京 and 🎉', '東京 and 🎉', 'x'], 600).tok
    expect(cjk.tokens('京🎉')).toHaveLength(2)
    expect(cjk.decode(cjk.encode('東京🎉東')).toString()).toBe('東京🎉東')
  })

  it('encodes protocol JSON compactly (its pieces are in the vocabulary)', () => {
    const call = '{"name": "search", "arguments": {"query": "Acme"}}'
    // The same 16 pieces as Qwen3's tokenizer gives, with the world word "Acme" whole.
    expect(tok.tokens(call)).toEqual(['{"', 'name', '":', 'Ġ"', 'search', '",', 'Ġ"', 'arguments', '":', 'Ġ{"', 'query', '":', 'Ġ"', 'Acme', '"}}'])
  })

  it('is deterministic: same texts give identical files', () => {
    const again = buildWorldTokenizer(DOCS, { vocabSize: 1024 })
    expect(JSON.stringify(again.tokenizerJson)).toBe(JSON.stringify(built.tokenizerJson))
    expect(JSON.stringify(again.tokenizerConfig)).toBe(JSON.stringify(built.tokenizerConfig))
  })

  it('respects the vocabulary budget', () => {
    const small = buildWorldTokenizer(DOCS, { vocabSize: 300 })
    expect(small.stats.vocabSize).toBeLessThanOrEqual(300)
    expect(() => buildWorldTokenizer(DOCS, { vocabSize: 100 })).toThrow(/too small/)
  })

  it('saves a chat template that renders Qwen-style turns', () => {
    const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>
    expect(cfg.eos_token).toBe('<|im_end|>')
    const text = chatTemplateOf(tok).render({ messages: [{ role: 'user', content: 'hi' }], addGenerationPrompt: true })
    expect(text).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n')
  })
})

describe('buildWorldTokenizer with nameTokens (model init --name-tokens)', () => {
  const names = ['Marie Curie', 'Acme Corporation', 'Acme', 'Zürich']
  const built = buildWorldTokenizer(DOCS, { vocabSize: 1024, nameTokens: names, extraTokens: ['<search>', '</search>'] })
  const dir = mkdtempSync(join(tmpdir(), 'wtok-names-'))
  saveTokenizerFiles(dir, built)
  const tok = loadTokenizer(dir)
  const pieces = (s: string) => tok.encode(s).map((id) => tok.decode([id]))

  it('makes each name one id with and without its leading space, the longest name first', () => {
    expect(pieces('Marie Curie founded Acme Corporation.')).toEqual(['Marie Curie', ' founded', ' Acme Corporation', '.'])
    expect(pieces('<search> Zürich </search>')).toEqual(['<search>', ' Zürich', ' ', '</search>'])
    expect(pieces('Acme founded Marie Curie')).toEqual(['Acme', ' founded', ' Marie Curie'])
    // 2 added ids per distinct name, on top of the 3 special, 8 markup and 2 extra tokens.
    expect(built.stats.addedTokens).toBe(3 + 8 + 2 + 2 * names.length)
    expect(tok.vocabSize).toBe(built.stats.vocabSize)
  })

  it('round-trips any text exactly, a name inside a longer word included', () => {
    for (const s of ['Marie Curies and Acmeville, Zürichsee', 'The population of Zürich is 421878.', 'unseen ÿ text'])
      expect(tok.decode(tok.encode(s))).toBe(s)
  })

  it('leaves the plain tokenizer unchanged when no names are given (same files, bit for bit)', () => {
    expect(JSON.stringify(buildWorldTokenizer(DOCS, { vocabSize: 1024, nameTokens: [] }).tokenizerJson)).toBe(JSON.stringify(buildWorldTokenizer(DOCS, { vocabSize: 1024 }).tokenizerJson))
  })
})

describe("buildWorldTokenizer with mode 'bpe' (model init --tokenizer bpe:DIRS)", () => {
  // Two "worlds" sharing a name generator's parts: the second's names are never seen whole by the first's tokenizer.
  const TRAIN = [...DOCS, 'Marianne Curiel was born in Warszawa.', 'The Lyonnais Corporation of Zürichberg.', 'Lyon is a city; Lyonnais live in Lyon.']
  const built = buildWorldTokenizer(TRAIN, { vocabSize: 600, mode: 'bpe' })
  const dir = mkdtempSync(join(tmpdir(), 'wtok-bpe-'))
  saveTokenizerFiles(dir, built)
  const tok = loadTokenizer(dir)

  it('loads back with the same protocol ids and chat template as words mode', () => {
    const words = buildWorldTokenizer(TRAIN, { vocabSize: 600 })
    expect(built.stats).toMatchObject({ mode: 'bpe', wordTokens: 0, charTokens: 0 })
    expect(built.stats.mergeTokens).toBeGreaterThan(100)
    expect(tok.vocabSize).toBe(built.stats.vocabSize)
    expect(tok.vocabSize).toBeLessThanOrEqual(600)
    for (const t of ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>', '<answer>', '</answer>']) {
      expect(tok.encode(t)).toEqual([tok.tokenToId(t)])
    }
    expect(tok.special.eos).toBe(tok.tokenToId('<|im_end|>'))
    expect(tok.special.toolCallStart).toBeDefined()
    expect(tok.special.stop).toContain(tok.tokenToId('<|endoftext|>'))
    // The same tokenizer_config.json but for the added tokens' ids (the vocabularies differ in size).
    const contents = (c: Record<string, unknown>) => Object.values(c.added_tokens_decoder as Record<string, { content: string; special: boolean }>)
    const { added_tokens_decoder: _b, ...bpeCfg } = built.tokenizerConfig
    const { added_tokens_decoder: _w, ...wordsCfg } = words.tokenizerConfig
    expect(bpeCfg).toEqual(wordsCfg)
    expect(contents(built.tokenizerConfig)).toEqual(contents(words.tokenizerConfig))
    expect(chatTemplateOf(tok).render({ messages: [{ role: 'user', content: 'hi' }], addGenerationPrompt: true })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n')
  })

  it('spells an unseen name in learned sub-word pieces, not in characters', () => {
    // Frequent words are whole through their merges; " Lyonnaise" was never seen but " Lyonnais" was.
    expect(tok.tokens(' Marie Curie')).toEqual(['ĠMarie', 'ĠCurie'])
    const unseen = tok.tokens(' Lyonnaise')
    expect(unseen[0]).toBe('ĠLyonnais')
    expect(unseen.length).toBeLessThan([...' Lyonnaise'].length / 2)
  })

  it("encodes exactly as the reference encoder applies the merges to each pre-token (Hugging Face's BPE, rank order)", () => {
    const json = built.tokenizerJson as { model: { merges: [string, string][]; ignore_merges: boolean } }
    expect(json.model.ignore_merges).toBe(false)
    const rank = mergeRanks(json.model.merges)
    const pre = new Tokenizer(built.tokenizerJson, built.tokenizerConfig).pre_tokenizer!
    for (const s of [...TRAIN, 'Unseen Quixotic zebras of Lyonnaiseville in Ōsaka 東京 🎉!', '{"name": "search", "arguments": {"query": "Curiel"}}']) {
      expect(tok.tokens(s)).toEqual(pre.pre_tokenize_text(s).flatMap((p) => encodeBpe(p, json.model.merges, rank)))
    }
  })

  it('round-trips any text exactly, markup included', () => {
    for (const s of [...TRAIN, 'Unseen ÿ words: 東京 🎉', '<|im_start|>assistant\n<tool_call>\n{"name": "search", "arguments": {"query": "Lyon"}}\n</tool_call><|im_end|>', '<answer>Marianne Curiel</answer>', '  \n\t spaces\r\n'])
      expect(tok.decode(tok.encode(s))).toBe(s)
  })

  it('is deterministic, respects the budget, and keeps name and extra tokens whole', () => {
    expect(JSON.stringify(buildWorldTokenizer(TRAIN, { vocabSize: 600, mode: 'bpe' }).tokenizerJson)).toBe(JSON.stringify(built.tokenizerJson))
    expect(buildWorldTokenizer(TRAIN, { vocabSize: 300, mode: 'bpe' }).stats.vocabSize).toBe(300)
    const named = buildWorldTokenizer(TRAIN, { vocabSize: 600, mode: 'bpe', nameTokens: ['Marianne Curiel'], extraTokens: ['<search>'] })
    const d = mkdtempSync(join(tmpdir(), 'wtok-bpe-names-'))
    saveTokenizerFiles(d, named)
    const t = loadTokenizer(d)
    expect(t.encode(' Marianne Curiel<search>').map((id) => t.decode([id]))).toEqual([' Marianne Curiel', '<search>'])
    expect(() => buildWorldTokenizer(TRAIN, { mode: 'chars' as never })).toThrow(/use words or bpe/)
  })

  it('counts a weighted text as that many copies of it (the name lists against the pages)', () => {
    const lexicon = ' Schmidt Dubois Rossi Lyonnaise'
    const weighted = buildWorldTokenizer(TRAIN, { vocabSize: 600, mode: 'bpe', weightedTexts: [{ text: lexicon, weight: 3 }] })
    const copied = buildWorldTokenizer([...TRAIN, lexicon, lexicon, lexicon], { vocabSize: 600, mode: 'bpe' })
    expect(JSON.stringify(weighted.tokenizerJson)).toBe(JSON.stringify(copied.tokenizerJson))
    expect(weighted.stats.texts).toBe(TRAIN.length)
    expect(JSON.stringify(weighted.tokenizerJson)).not.toBe(JSON.stringify(built.tokenizerJson))
    expect(() => buildWorldTokenizer(TRAIN, { mode: 'bpe', weightedTexts: [{ text: lexicon, weight: 0 }] })).toThrow(/positive number/)
  })
})

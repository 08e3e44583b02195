// infra/engine/chat/codec tests: the encode memo — the same ids as the tokenizer, a fresh array per call (a caller
// that mutates its ids cannot change another's), bounded, and continuation/renderPrompt unchanged through it.
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE } from '../chat-template'
import { TextTokenizer } from '../tokenizer'
import { buildWorldTokenizer } from '../world-tokenizer'
import { ChatCodec, ENCODE_MEMO_SIZE } from './codec'

const files = buildWorldTokenizer(['Marie Curie was born in Warsaw. Warsaw is a city.', 'Marie Curie founded a lab in Warsaw.'], { vocabSize: 400 })
const tok = new TextTokenizer(files.tokenizerJson, files.tokenizerConfig as never)

describe('ChatCodec encode memo', () => {
  it("gives the tokenizer's ids, a fresh array each time, and calls the tokenizer once per text", () => {
    let calls = 0
    const counting = Object.create(tok, { encode: { value: (t: string) => (calls++, tok.encode(t)) } }) as TextTokenizer
    const codec = new ChatCodec(counting, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
    const a = codec.encode('Marie Curie was born in Warsaw.')
    expect(a).toEqual(tok.encode('Marie Curie was born in Warsaw.'))
    a.push(-1)
    expect(codec.encode('Marie Curie was born in Warsaw.')).toEqual(tok.encode('Marie Curie was born in Warsaw.'))
    expect(calls).toBe(1)
    const msgs = [{ role: 'user' as const, content: 'Where was Marie Curie born?' }]
    const p1 = codec.renderPrompt(msgs)
    p1.ids.length = 0
    expect(codec.renderPrompt(msgs).ids).toEqual(tok.encode(codec.renderPrompt(msgs).text))
    expect(calls).toBe(2)
    const cont = (c: ChatCodec) => c.continuation([...msgs, { role: 'assistant', content: 'x' }], [{ role: 'user', content: 'Warsaw is a city.' }], { endedWithStop: true })
    expect(cont(codec)).toEqual(cont(new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))))
  })

  it(`holds at most ${ENCODE_MEMO_SIZE} texts (cleared when full) and stays correct past that`, () => {
    let calls = 0
    const counting = Object.create(tok, { encode: { value: (t: string) => (calls++, tok.encode(t)) } }) as TextTokenizer
    const codec = new ChatCodec(counting, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))
    for (let i = 0; i <= ENCODE_MEMO_SIZE; i++) codec.encode(`Warsaw ${i}`)
    expect(calls).toBe(ENCODE_MEMO_SIZE + 1)
    codec.encode('Warsaw 0') // dropped when the memo filled up: encoded again
    expect(calls).toBe(ENCODE_MEMO_SIZE + 2)
    codec.encode(`Warsaw ${ENCODE_MEMO_SIZE}`) // kept
    expect(calls).toBe(ENCODE_MEMO_SIZE + 2)
    expect(codec.encode('Warsaw 7')).toEqual(tok.encode('Warsaw 7'))
  })
})

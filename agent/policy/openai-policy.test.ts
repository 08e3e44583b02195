// agent/policy/openai-policy.test: the pieces of the OpenAI-compatible policy that need no server — seeded backoff,
// price table, message conversion for both wire protocols, the RAG baseline's URL reading.
import { ChatClient, DEFAULT_CHAT_CLIENT } from './chat-client'
import { toOpenAiMessages } from './messages'
import { urlsIn } from './one-shot-rag'
import { costOf, parsePriceTable } from './pricing'

it('backoff is exponential, capped, jittered in [0.5, 1) of the cap, and deterministic in the seed and call key', () => {
  const c = new ChatClient({ ...DEFAULT_CHAT_CLIENT, baseURL: 'http://127.0.0.1:1/v1', model: 'm', seed: 3, baseBackoffMs: 100, maxBackoffMs: 1000 })
  for (let a = 0; a < 8; a++) {
    const cap = Math.min(1000, 100 * 2 ** a)
    const b = c.backoffMs('q1#2', a)
    expect(b).toBeGreaterThanOrEqual(cap / 2)
    expect(b).toBeLessThan(cap)
    expect(c.backoffMs('q1#2', a)).toBe(b)
  }
  const other = new ChatClient({ ...DEFAULT_CHAT_CLIENT, baseURL: 'http://127.0.0.1:1/v1', model: 'm', seed: 4, baseBackoffMs: 100, maxBackoffMs: 1000 })
  expect(other.backoffMs('q1#2', 3)).not.toBe(c.backoffMs('q1#2', 3))
  expect(c.backoffMs('q2#2', 3)).not.toBe(c.backoffMs('q1#2', 3))
})

it('prices: per-model or wildcard, unknown models cost undefined, bad tables are refused', () => {
  const p = parsePriceTable({ m: { input: 1, output: 2 }, '*': { input: 0.5, output: 0.5 } })
  expect(costOf(p, 'm', 1_000_000, 500_000)).toBeCloseTo(2, 12)
  expect(costOf(p, 'x', 2_000_000, 0)).toBeCloseTo(1, 12)
  expect(costOf(parsePriceTable({ m: { input: 1, output: 1 } }), 'x', 1, 1)).toBeUndefined()
  expect(() => parsePriceTable({ m: { input: 1 } })).toThrow(/input.*output/)
  expect(() => parsePriceTable({ m: { input: 1, output: 1, cached: 0.1 } })).toThrow(/unknown key 'cached'/)
})

it('messages: openai keeps tool_calls and tool messages; hermes turns tool results into <tool_response> user turns', () => {
  const conv = [
    { role: 'system' as const, content: 's' },
    { role: 'user' as const, content: 'q' },
    { role: 'assistant' as const, content: '', tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'search', arguments: '{"query":"x"}' } }] },
    { role: 'tool' as const, tool_call_id: 'c1', content: 'results' },
  ]
  const tools = toOpenAiMessages(conv, 'openai')
  expect(tools[2]).toEqual({ role: 'assistant', content: null, tool_calls: conv[2].tool_calls })
  expect(tools[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'results' })
  const text = toOpenAiMessages(conv, 'hermes')
  expect(text[2]).toEqual({ role: 'assistant', content: '' })
  expect(text[3]).toEqual({ role: 'user', content: '<tool_response>\nresults\n</tool_response>' })
})

it('reads result URLs from any rendering, in order, without duplicates or trailing punctuation', () => {
  expect(urlsIn('[1] A\nURL: https://w.wiki/A\nx\n\n[2] B\nURL: https://w.wiki/B.\n"url":"https://w.wiki/A"')).toEqual(['https://w.wiki/A', 'https://w.wiki/B'])
})

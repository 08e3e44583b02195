// Tests for hermes: tool-call blocks → OpenAI tool_calls; malformed output stays text.
import { formatHermesToolCalls, parseHermesToolCalls } from './hermes'

describe('parseHermesToolCalls', () => {
  it('parses Qwen3-style blocks into OpenAI tool calls and keeps the surrounding text', () => {
    const text = 'Let me search.\n<tool_call>\n{"name": "search", "arguments": {"query": "Acme founder"}}\n</tool_call>'
    const r = parseHermesToolCalls(text)
    expect(r.content).toBe('Let me search.')
    expect(r.malformed).toEqual([])
    expect(r.toolCalls).toHaveLength(1)
    expect(r.toolCalls[0].type).toBe('function')
    expect(r.toolCalls[0].function).toEqual({ name: 'search', arguments: '{"query":"Acme founder"}' })
    expect(r.toolCalls[0].id).toMatch(/^call_[0-9a-f]{24}$/)
  })

  it('parses several calls with distinct, deterministic ids', () => {
    const text = formatHermesToolCalls([
      { function: { name: 'search', arguments: { query: 'a' } } },
      { function: { name: 'access', arguments: '{"url": "https://w/a"}' } },
    ])
    const a = parseHermesToolCalls(text)
    const b = parseHermesToolCalls(text)
    expect(a.content).toBe('')
    expect(a.toolCalls.map((c) => c.function.name)).toEqual(['search', 'access'])
    expect(JSON.parse(a.toolCalls[1].function.arguments)).toEqual({ url: 'https://w/a' })
    expect(a.toolCalls[0].id).not.toBe(a.toolCalls[1].id)
    expect(b.toolCalls.map((c) => c.id)).toEqual(a.toolCalls.map((c) => c.id))
    expect(parseHermesToolCalls(text, 'choice-1').toolCalls[0].id).not.toBe(a.toolCalls[0].id)
  })

  it('accepts "parameters", string-encoded arguments, missing arguments, and an unclosed final block', () => {
    expect(parseHermesToolCalls('<tool_call>{"name":"f","parameters":{"x":1}}</tool_call>').toolCalls[0].function.arguments).toBe('{"x":1}')
    expect(parseHermesToolCalls('<tool_call>{"name":"f","arguments":"{\\"x\\": 2}"}</tool_call>').toolCalls[0].function.arguments).toBe('{"x":2}')
    expect(parseHermesToolCalls('<tool_call>{"name":"f"}</tool_call>').toolCalls[0].function.arguments).toBe('{}')
    const cut = parseHermesToolCalls('ok <tool_call>\n{"name": "search", "arguments": {"query": "q"}}\n')
    expect(cut.content).toBe('ok')
    expect(cut.toolCalls).toHaveLength(1)
  })

  it('leaves malformed blocks as text and says why', () => {
    const bad = [
      '<tool_call>{"name": "search", "arguments": {"query": </tool_call>',
      '<tool_call>["search"]</tool_call>',
      '<tool_call>{"arguments": {}}</tool_call>',
      '<tool_call>{"name": "f", "arguments": [1]}</tool_call>',
      '<tool_call>{"name": "f", "arguments": "nope"}</tool_call>',
      '<tool_call>{"name": "search"',
    ]
    for (const text of bad) {
      const r = parseHermesToolCalls(text)
      expect(r.toolCalls).toEqual([])
      expect(r.content).toBe(text)
      expect(r.malformed).toHaveLength(1)
    }
  })

  it('keeps a good call when another block is malformed', () => {
    const text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n<tool_call>oops</tool_call>'
    const r = parseHermesToolCalls(text)
    expect(r.toolCalls.map((c) => c.function.name)).toEqual(['a'])
    expect(r.content).toBe('<tool_call>oops</tool_call>')
    expect(r.malformed[0]).toMatch(/block 2: not JSON/)
  })

  it('plain text and answers pass through untouched', () => {
    const r = parseHermesToolCalls('  <answer>Marie Curie</answer> ')
    expect(r).toEqual({ content: '<answer>Marie Curie</answer>', toolCalls: [], malformed: [] })
  })
})

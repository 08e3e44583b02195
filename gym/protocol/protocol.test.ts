// gym/protocol tests: each protocol's well-formed calls and answers, and every malformed form it must reject.
import { parseHermesText } from './hermes'
import { parseOpenAiAction } from './openai'
import { parseSearchR1Text } from './search-r1'
import { getProtocol } from './index'
import type { ParsedTurn, ProtocolContext } from './types'

const ctx: ProtocolContext = { tools: ['search', 'access'], maxCallsPerTurn: 1, turn: 3, maxArgChars: 100 }
const tc = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`
const err = (p: ParsedTurn) => (p.kind === 'malformed' ? p.error : p.kind)

describe('hermes', () => {
  const h = (t: string, c: ProtocolContext = ctx) => parseHermesText(t, c)
  it('parses a tool call after thinking', () => {
    expect(h(`<think>I should search.</think>\n${tc('search', { query: ' Glass Orchard author ' })}`)).toEqual({
      kind: 'tools',
      calls: [{ id: 'call_3_0', name: 'search', query: 'Glass Orchard author' }],
    })
    expect(h(tc('access', { url: 'https://x/y' }))).toEqual({ kind: 'tools', calls: [{ id: 'call_3_0', name: 'access', url: 'https://x/y' }] })
  })
  it('parses an answer; an orphan </think> and trailing <|im_end|> are fine', () => {
    expect(h('reasoning...</think>\n<answer> Marie Alder </answer><|im_end|>')).toEqual({ kind: 'answer', answer: 'Marie Alder' })
  })
  it('ignores tags inside thinking', () => {
    expect(err(h('<think><answer>x</answer></think><answer>y</answer>'))).toBe('answer')
  })
  it('accepts arguments as a JSON string and "parameters"', () => {
    expect(err(h(`<tool_call>{"name":"search","arguments":"{\\"query\\":\\"q\\"}"}</tool_call>`))).toBe('tools')
    expect(err(h(`<tool_call>{"name":"search","parameters":{"query":"q"}}</tool_call>`))).toBe('tools')
  })
  const cases: [string, string][] = [
    ['', 'empty_turn'],
    ['   \n\t', 'empty_turn'],
    ['<think>only thinking</think>', 'empty_turn'],
    ['<think>never closed', 'empty_turn'],
    ['I think the answer is Paris.', 'no_action'],
    ['<tool_call>{"name": "search", "arguments": {"query": "x"}</tool_call>', 'bad_json'],
    ['<tool_call>not json</tool_call>', 'bad_json'],
    ['<tool_call>[1,2]</tool_call>', 'bad_tool_call'],
    ['<tool_call>{"arguments": {"query": "x"}}</tool_call>', 'bad_tool_call'],
    [tc('search', [1]), 'bad_tool_call'],
    [tc('browse', { url: 'x' }), 'unknown_tool'],
    [tc('search', {}), 'missing_argument'],
    [tc('search', { q: 'x' }), 'missing_argument'],
    [tc('access', { query: 'x' }), 'missing_argument'],
    [tc('search', { query: 7 }), 'bad_argument'],
    [tc('search', { query: '   ' }), 'bad_argument'],
    [tc('search', { query: 'x'.repeat(101) }), 'bad_argument'],
    [tc('search', { query: 'a' }) + tc('search', { query: 'b' }), 'too_many_calls'],
    ['<answer>a</answer><answer>b</answer>', 'multiple_answers'],
    ['<answer>a</answer> because it is', 'text_after_answer'],
    ['<answer>  </answer>', 'empty_answer'],
    ['<answer>a', 'unclosed_tag'],
    ['<tool_call>{"name":"search","arguments":{"query":"x"}}', 'unclosed_tag'],
    [tc('search', { query: 'a' }) + '<answer>a</answer>', 'answer_with_tool_call'],
  ]
  it.each(cases)('%j → %s', (text, kind) => expect(err(h(text))).toBe(kind))
  it('tool_disabled when access is off; several calls when allowed', () => {
    expect(err(h(tc('access', { url: 'u' }), { ...ctx, tools: ['search'] }))).toBe('tool_disabled')
    const two = h(tc('search', { query: 'a' }) + tc('access', { url: 'u' }), { ...ctx, maxCallsPerTurn: 2 })
    expect(two.kind === 'tools' && two.calls.map((c) => c.id)).toEqual(['call_3_0', 'call_3_1'])
  })
})

describe('openai tool_calls', () => {
  const call = (name: unknown, args: unknown, id: unknown = 'abc') => ({ id, type: 'function', function: { name, arguments: args } })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const o = (text: string, tool_calls?: any) => parseOpenAiAction({ text, tool_calls }, ctx)
  it('parses calls and keeps their ids; answers come from the text', () => {
    expect(o('', [call('search', '{"query":"q"}')])).toEqual({ kind: 'tools', calls: [{ id: 'abc', name: 'search', query: 'q' }] })
    expect(o('', [call('search', '{"query":"q"}', null)])).toEqual({
      kind: 'tools',
      calls: [{ id: 'call_3_0', name: 'search', query: 'q' }],
    })
    expect(o('<answer>Paris</answer>')).toEqual({ kind: 'answer', answer: 'Paris' })
  })
  const cases: [string, string, unknown][] = [
    ['empty', '', undefined],
    ['no action', 'hmm', []],
    ['tool_calls not an array', '', { id: 1 }],
    ['bad json', '', [call('search', '{"query":')]],
    ['no function', '', [{ id: 'a' }]],
    ['unknown tool', '', [call('python', '{}')]],
    ['missing argument', '', [call('search', '{}')]],
    ['too many', '', [call('search', '{"query":"a"}'), call('search', '{"query":"b"}')]],
    ['answer with call', '<answer>x</answer>', [call('search', '{"query":"a"}')]],
    ['two answers', '<answer>x</answer><answer>y</answer>', undefined],
    ['text after answer', '<answer>x</answer>!!', undefined],
  ]
  const want = [
    'empty_turn',
    'no_action',
    'bad_tool_call',
    'bad_json',
    'bad_tool_call',
    'unknown_tool',
    'missing_argument',
    'too_many_calls',
    'answer_with_tool_call',
    'multiple_answers',
    'text_after_answer',
  ]
  it.each(cases.map((c, i) => [...c, want[i]] as const))('%s', (_n, text, tcs, kind) => expect(err(o(text, tcs))).toBe(kind))
  it('malformed turns with calls keep the call ids so every tool_call_id can be answered', () => {
    const p = o('', [call('search', '{"query":"a"}', 'x1'), call('search', '{"query":"b"}', 'x2')])
    expect(p.kind === 'malformed' && p.callIds).toEqual(['x1', 'x2'])
  })
})

describe('search-r1 tags', () => {
  const s = (t: string, c: ProtocolContext = ctx) => parseSearchR1Text(t, c)
  it('parses search, access and answer', () => {
    expect(s('<think>need info</think>\n<search> who wrote the glass orchard </search>')).toEqual({
      kind: 'tools',
      calls: [{ id: 'call_3_0', name: 'search', query: 'who wrote the glass orchard' }],
    })
    expect(err(s('<access>https://x</access>'))).toBe('tools')
    expect(s('<answer> Beijing </answer>')).toEqual({ kind: 'answer', answer: 'Beijing' })
  })
  const cases: [string, string][] = [
    ['', 'empty_turn'],
    ['just text', 'no_action'],
    ['<search>a</search><search>b</search>', 'too_many_calls'],
    ['<search>   </search>', 'bad_argument'],
    ['<search>unclosed', 'unclosed_tag'],
    ['<answer>a</answer><answer>b</answer>', 'multiple_answers'],
    ['<answer>a</answer> more', 'text_after_answer'],
    ['<search>q</search><answer>a</answer>', 'answer_with_tool_call'],
  ]
  it.each(cases)('%j → %s', (text, kind) => expect(err(s(text))).toBe(kind))
  it('access is disabled in the no-Access ablation', () => {
    expect(err(s('<access>https://x</access>', { ...ctx, tools: ['search'] }))).toBe('tool_disabled')
  })
})

describe('brief system prompt', () => {
  it('search-r1 and hermes give one short line naming the tags; access is named only when enabled', () => {
    const brief: ProtocolContext = { ...ctx, prompt: 'brief' }
    const r1 = getProtocol('search-r1').systemPrompt(brief)
    expect(r1).toBe('Search with <search> query </search>, read a page with <access> url </access>, answer with <answer> answer </answer>.')
    expect(getProtocol('search-r1').systemPrompt({ ...brief, tools: ['search'] })).not.toContain('<access>')
    const h = getProtocol('hermes').systemPrompt(brief)
    expect(h).toContain('"name": "access"')
    expect(h.length).toBeLessThan(250)
    expect(getProtocol('search-r1').systemPrompt(ctx).length).toBeGreaterThan(500)
  })
})

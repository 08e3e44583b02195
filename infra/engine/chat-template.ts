// infra/engine/chat-template: renders a model's Jinja chat template (tokenizer_config.json) with @huggingface/jinja —
// messages, OpenAI-style tools passed the way Qwen3's template expects, add_generation_prompt, enable_thinking.
// Knows nothing of token ids (see tokenizer.ts) or of how a model answers.
import { Template } from '@huggingface/jinja'
import { EngineError } from '../errors'

/** One chat message as chat templates receive it (OpenAI shape; structurally the same as gym's ChatMessage). */
export interface TemplateMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  tool_calls?: { id?: string; type?: 'function'; function: { name: string; arguments: string | Record<string, unknown> } }[]
  tool_call_id?: string
  name?: string
  reasoning_content?: string
}

/** An OpenAI tool definition: {type:'function', function:{name, description, parameters}}. Qwen3's template emits it with tojson. */
export interface ToolSpec {
  type: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
}

export interface RenderOptions {
  messages: TemplateMessage[]
  tools?: ToolSpec[]
  /** Append the assistant header so the model writes the next turn. */
  addGenerationPrompt?: boolean
  /** Qwen3: false appends an empty <think></think> block after the generation prompt (no thinking). Undefined: template default. */
  enableThinking?: boolean
}

/** A compiled chat template. */
export class ChatTemplate {
  private readonly template: Template

  constructor(
    readonly source: string,
    private readonly tokens: { bosToken?: string; eosToken?: string } = {},
  ) {
    try {
      this.template = new Template(source)
    } catch (e) {
      throw new EngineError('engine.chat_template_invalid', `the chat template does not parse: ${(e as Error).message}`, { cause: e })
    }
  }

  render(opts: RenderOptions): string {
    if (opts.messages.length === 0) throw new EngineError('engine.chat_empty', 'a chat needs at least one message')
    const context: Record<string, unknown> = {
      messages: opts.messages.map(normaliseMessage),
      add_generation_prompt: opts.addGenerationPrompt ?? false,
      bos_token: this.tokens.bosToken ?? '',
      eos_token: this.tokens.eosToken ?? '',
    }
    // Templates test `if tools` and `enable_thinking is defined`: pass them only when given.
    if (opts.tools && opts.tools.length > 0) context.tools = opts.tools
    if (opts.enableThinking !== undefined) context.enable_thinking = opts.enableThinking
    try {
      return this.template.render(context)
    } catch (e) {
      throw new EngineError('engine.chat_template_render', `the chat template failed to render: ${(e as Error).message}`, { cause: e })
    }
  }
}

/** Tool-call arguments arrive from OpenAI clients as JSON strings; Qwen3's template prints objects with tojson, strings verbatim. */
function normaliseMessage(m: TemplateMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content ?? '' }
  if (m.tool_calls && m.tool_calls.length > 0) {
    out.tool_calls = m.tool_calls.map((c) => ({
      ...(c.id !== undefined ? { id: c.id } : {}),
      type: 'function',
      function: { name: c.function.name, arguments: parseArgs(c.function.arguments) },
    }))
  }
  if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id
  if (m.name !== undefined) out.name = m.name
  if (m.reasoning_content !== undefined) out.reasoning_content = m.reasoning_content
  return out
}

function parseArgs(a: string | Record<string, unknown>): string | Record<string, unknown> {
  if (typeof a !== 'string') return a
  try {
    const v: unknown = JSON.parse(a)
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : a
  } catch {
    return a
  }
}

/**
 * A small Qwen-like template (ChatML with Hermes tools) for tokenizers the project builds itself; it renders the same
 * text as Qwen3's template for system/user/assistant/tool turns without thinking.
 */
export const SIMPLE_QWEN_TEMPLATE = [
  "{%- if tools %}{{- '<|im_start|>system\\n' }}{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}",
  "{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}",
  "{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}",
  "{%- elif messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}",
  '{%- for message in messages %}',
  "{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- elif message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' + message.content }}",
  '{%- if message.tool_calls %}{%- for tool_call in message.tool_calls %}',
  "{%- if (loop.first and message.content) or (not loop.first) %}{{- '\\n' }}{%- endif %}",
  '{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}',
  "{{- '<tool_call>\\n{\"name\": \"' + tool_call.name + '\", \"arguments\": ' }}",
  "{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}",
  "{{- '}\\n</tool_call>' }}{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}",
  "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}",
  '{%- endif %}{%- endfor %}',
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}",
].join('')

/** The chat template of a tokenizer's tokenizer_config.json, or `fallback` (default: none, an error) when it has none. */
export function chatTemplateOf(
  tok: { chatTemplate(): string | undefined; bosToken(): string | undefined; eosToken(): string | undefined },
  fallback?: string,
): ChatTemplate {
  const source = tok.chatTemplate() ?? fallback
  if (source === undefined) {
    throw new EngineError('engine.no_chat_template', 'tokenizer_config.json has no chat_template; add one or pass a fallback template')
  }
  return new ChatTemplate(source, { bosToken: tok.bosToken(), eosToken: tok.eosToken() })
}

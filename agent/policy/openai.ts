// agent/policy/openai: a Policy over any OpenAI-compatible chat endpoint (vLLM, SGLang, OpenAI, DeepSeek, a local engine).
// Native tool_calls with the gym's search/access tools, or the gym's text protocol (the env parses the text either way).
// Endpoint failures are retried by the ChatClient and surface as EndpointError — never as model mistakes.
import type { ChatCompletionTool } from 'openai/resources/chat/completions'
import type { AssistantTurn, ChatMessage, ChatProtocolName, Policy } from '../../gym'
import { ChatClient, DEFAULT_CHAT_CLIENT, type CallRecord, type ChatClientOptions } from './chat-client'
import { toOpenAiMessages } from './messages'
import { toolSchemas } from '../../gym'

/** An assistant turn plus what the call cost; the bench harness records `call` beside the turn. */
export interface RecordedTurn extends AssistantTurn {
  call?: CallRecord
}

export interface OpenAiPolicyOptions extends Partial<Omit<ChatClientOptions, 'baseURL' | 'model'>> {
  baseURL: string
  model: string
  /** 'openai': native tool_calls; 'hermes': the gym's <tool_call> tags in the text, no tools sent. */
  protocol: ChatProtocolName
  /** Function schemas sent with native tool_calls (default: the gym's search + access; only search for no-Access). */
  tools?: ChatCompletionTool[]
}

export class OpenAiPolicy implements Policy {
  readonly name: string
  readonly protocol: ChatProtocolName
  readonly client: ChatClient
  private readonly tools: ChatCompletionTool[]

  constructor(opts: OpenAiPolicyOptions) {
    const { protocol, tools, ...rest } = opts
    this.protocol = protocol
    this.tools = tools ?? toolSchemas(['search', 'access'])
    this.client = new ChatClient({ ...DEFAULT_CHAT_CLIENT, ...rest })
    this.name = `openai:${opts.model}`
  }

  async act(conversation: ChatMessage[], ctx?: { qaId?: string; signal?: AbortSignal }): Promise<RecordedTurn> {
    const messages = toOpenAiMessages(conversation, this.protocol)
    const tools = this.protocol === 'openai' ? this.tools : undefined
    const { message, record } = await this.client.complete(messages, { callKey: `${ctx?.qaId ?? ''}#${conversation.length}`, signal: ctx?.signal, tools })
    const turn: RecordedTurn = {
      text: message.content ?? '',
      usage: { promptTokens: record.promptTokens, completionTokens: record.completionTokens },
      call: record,
    }
    if (this.protocol === 'openai' && message.tool_calls && message.tool_calls.length > 0) {
      turn.tool_calls = []
      let i = 0
      for (const tc of message.tool_calls) {
        // Custom (non-function) tool calls are passed on as a function call with raw input; the env rejects them.
        if (tc.type === 'function') turn.tool_calls.push({ id: tc.id || `call_${i}`, type: 'function', function: { name: tc.function.name, arguments: tc.function.arguments } })
        else turn.tool_calls.push({ id: tc.id || `call_${i}`, type: 'function', function: { name: tc.custom.name, arguments: tc.custom.input } })
        i++
      }
    }
    return turn
  }
}

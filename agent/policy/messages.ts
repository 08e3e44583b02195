// agent/policy/messages: the gym's ChatMessage[] as OpenAI chat messages, for either protocol.
// With native tool_calls, tool results stay `tool` messages tied to their call; with the text protocol every tool
// result becomes a user turn wrapped in <tool_response> (servers reject `tool` messages without a matching call;
// Qwen/Hermes chat templates render tool turns exactly so).
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ChatMessage, ChatProtocolName } from '../../gym'

export function toOpenAiMessages(conversation: readonly ChatMessage[], protocol: ChatProtocolName): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = []
  for (const m of conversation) {
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: m.content })
        break
      case 'user':
        out.push({ role: 'user', content: m.content })
        break
      case 'assistant':
        if (protocol === 'openai' && m.tool_calls && m.tool_calls.length > 0)
          out.push({ role: 'assistant', content: m.content || null, tool_calls: m.tool_calls })
        else out.push({ role: 'assistant', content: m.content })
        break
      case 'tool':
        if (protocol === 'openai' && m.tool_call_id) out.push({ role: 'tool', tool_call_id: m.tool_call_id, content: m.content })
        // As Qwen/Hermes chat templates render a tool turn: a user turn wrapped in <tool_response>.
        else out.push({ role: 'user', content: `<tool_response>\n${m.content}\n</tool_response>` })
        break
    }
  }
  return out
}

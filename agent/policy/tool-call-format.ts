// agent/policy/tool-call-format: how a scripted policy (baselines) writes a tool call or a final answer in the gym's
// protocols — native tool_calls, or the default text protocol (<tool_call>{"name","arguments"}</tool_call>, <answer>).
import type { AssistantTurn, ChatMessage, ChatProtocolName } from '../../gym'

export function toolCallTurn(protocol: ChatProtocolName, name: string, args: Record<string, unknown>, id: string): AssistantTurn {
  if (protocol === 'openai') return { text: '', tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }
  return { text: `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>` }
}

/** The question of an episode: the env's first user message (a leading "Question:" label is dropped). */
export function questionOf(conversation: readonly ChatMessage[]): string {
  const u = conversation.find((m) => m.role === 'user')
  return (u?.content ?? '').replace(/^\s*Question:\s*/i, '').trim()
}

/** Messages after the env's initial observation, i.e. from the first assistant turn on. */
export function afterInitial(conversation: readonly ChatMessage[]): ChatMessage[] {
  const i = conversation.findIndex((m) => m.role === 'assistant')
  return i < 0 ? [] : conversation.slice(i)
}

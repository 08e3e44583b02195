// gym/protocol/openai: OpenAI-style structured `tool_calls` on the assistant message (function.arguments is a JSON
// string), tool results as role 'tool' messages keyed by tool_call_id, the final answer in <answer>…</answer>.
import type { AssistantAction, ChatMessage } from '../types'
import { renderResultsNumbered, taskInstructions } from './hermes'
import { checkAnswer, stripEos, stripThinking } from './text-scan'
import { checkToolCall } from './tools'
import type { GymToolCall, ParsedTurn, Protocol, ProtocolContext } from './types'

function callIdsOf(tcs: unknown[], turn: number): string[] {
  return tcs.map((tc, i) => {
    const id = typeof tc === 'object' && tc !== null ? (tc as { id?: unknown }).id : undefined
    return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : `call_${turn}_${i}`
  })
}

export function parseOpenAiAction(action: AssistantAction, ctx: ProtocolContext): ParsedTurn {
  const raw = typeof action.text === 'string' ? action.text : ''
  const tcsRaw: unknown = action.tool_calls
  if (tcsRaw !== undefined && tcsRaw !== null && !Array.isArray(tcsRaw))
    return { kind: 'malformed', error: 'bad_tool_call', message: 'tool_calls must be an array' }
  const tcs = (tcsRaw ?? []) as unknown[]
  const text = stripThinking(stripEos(raw))
  const ids = callIdsOf(tcs, ctx.turn)
  if (tcs.length === 0) {
    if (stripEos(raw).trim().length === 0) return { kind: 'malformed', error: 'empty_turn', message: 'the turn is empty' }
    const ans = checkAnswer(text)
    if (ans.kind !== 'none') return ans
    return { kind: 'malformed', error: 'no_action', message: 'the turn has neither a tool call nor an <answer>' }
  }
  const ans = checkAnswer(text)
  if (ans.kind !== 'none')
    return {
      kind: 'malformed',
      error: 'answer_with_tool_call',
      message: 'a turn is either tool calls or the final answer, not both',
      callIds: ids,
    }
  if (tcs.length > ctx.maxCallsPerTurn)
    return {
      kind: 'malformed',
      error: 'too_many_calls',
      message: `the turn has ${tcs.length} tool calls; at most ${ctx.maxCallsPerTurn} allowed`,
      callIds: ids,
    }
  const out: GymToolCall[] = []
  for (let i = 0; i < tcs.length; i++) {
    const tc = tcs[i]
    const fn = typeof tc === 'object' && tc !== null ? (tc as { function?: unknown }).function : undefined
    if (typeof fn !== 'object' || fn === null)
      return { kind: 'malformed', error: 'bad_tool_call', message: 'each tool call needs a "function" object', callIds: ids }
    const f = fn as { name?: unknown; arguments?: unknown }
    const c = checkToolCall(f.name, f.arguments, ids[i], ctx)
    if (!c.ok) return { kind: 'malformed', error: c.error, message: c.message, callIds: ids }
    out.push(c.call)
  }
  return { kind: 'tools', calls: out }
}

export const openAiProtocol: Protocol = {
  name: 'openai',
  /** The tool schemas travel in the request's `tools` field (env.tools), so the prompt carries only the task. */
  systemPrompt: (ctx) => taskInstructions(ctx),
  questionMessage: (question) => ({ role: 'user', content: question }),
  parse: parseOpenAiAction,
  renderSearch: renderResultsNumbered,
  toolResult: (call, text): ChatMessage => ({ role: 'tool', tool_call_id: call.id, name: call.name, content: text }),
  corrective(turn) {
    const note = `Format error (${turn.error}): ${turn.message}. Call one of the provided tools, or give the final answer as <answer>...</answer>.`
    // Every tool_call_id of the assistant message must be answered, or an OpenAI-compatible server rejects the chat.
    if (turn.callIds && turn.callIds.length > 0) return turn.callIds.map((id) => ({ role: 'tool', tool_call_id: id, content: note }))
    return [{ role: 'user', content: note }]
  },
}

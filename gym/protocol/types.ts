// gym/protocol/types: how an action protocol turns an assistant turn into tool calls or an answer, and tool results
// back into messages. Protocols know the tool names and argument shapes, not the world or the reward.
import type { AssistantAction, ChatMessage } from '../types'
import type { SearchResult } from '../world-view'

export type ToolName = 'search' | 'access'

/** A validated call of one of the env's tools. */
export type GymToolCall =
  | { id: string; name: 'search'; query: string }
  | { id: string; name: 'access'; url: string; /** 1-based page of a long document (absent = page 1). */ page?: number }

/** Every way a turn can be malformed; each is counted in metrics as `malformed/<kind>`. */
export type MalformedKind =
  | 'empty_turn'
  | 'no_action'
  | 'bad_json'
  | 'bad_tool_call'
  | 'unknown_tool'
  | 'tool_disabled'
  | 'missing_argument'
  | 'bad_argument'
  | 'too_many_calls'
  | 'multiple_answers'
  | 'empty_answer'
  | 'text_after_answer'
  | 'answer_with_tool_call'
  | 'unclosed_tag'

export const MALFORMED_KINDS: readonly MalformedKind[] = [
  'empty_turn',
  'no_action',
  'bad_json',
  'bad_tool_call',
  'unknown_tool',
  'tool_disabled',
  'missing_argument',
  'bad_argument',
  'too_many_calls',
  'multiple_answers',
  'empty_answer',
  'text_after_answer',
  'answer_with_tool_call',
  'unclosed_tag',
]

export type ParsedTurn =
  | { kind: 'tools'; calls: GymToolCall[] }
  | { kind: 'answer'; answer: string }
  | { kind: 'malformed'; error: MalformedKind; message: string; /** OpenAI call ids that still need a tool reply */ callIds?: string[] }

export interface ProtocolContext {
  /** Tools enabled in this env (access is off in the no-Access ablation). */
  tools: readonly ToolName[]
  /** Tool calls allowed in one turn (default 1). */
  maxCallsPerTurn: number
  /** Assistant turn number, 1-based (for generated call ids). */
  turn: number
  /** Longest accepted query / URL, in characters. */
  maxArgChars: number
  /** 'full' (default): the protocol's own system prompt; 'brief': one line naming the tags and the answer format. */
  prompt?: PromptStyle
}

/** System prompt style: the protocol's full instructions, or one line for small models trained from scratch. */
export type PromptStyle = 'full' | 'brief'

export interface Protocol {
  readonly name: ProtocolName
  /** The system prompt: task, tool schemas, call and answer format. */
  systemPrompt(ctx: ProtocolContext): string
  /** The user message carrying the question. */
  questionMessage(question: string): ChatMessage
  parse(action: AssistantAction, ctx: ProtocolContext): ParsedTurn
  /** Text of a search observation (before the observation cap). */
  renderSearch(results: SearchResult[], query: string): string
  /** Messages answering one tool call (text already rendered and capped). */
  toolResult(call: GymToolCall, text: string): ChatMessage
  /** The corrective observation for a malformed turn. */
  corrective(turn: Extract<ParsedTurn, { kind: 'malformed' }>, ctx: ProtocolContext): ChatMessage[]
}

/** Every protocol the gym speaks — the one list of names (configs, flags and HTTP bodies are checked against it). */
export const PROTOCOL_NAMES = ['hermes', 'openai', 'search-r1'] as const
export type ProtocolName = (typeof PROTOCOL_NAMES)[number]
/** The protocols written in the assistant's text (a local model, the oracle, the trainer): all but openai's tool_calls. */
export const TEXT_PROTOCOLS = ['hermes', 'search-r1'] as const satisfies readonly ProtocolName[]
export type TextProtocolName = (typeof TEXT_PROTOCOLS)[number]
/** The protocols a chat-completions endpoint speaks: openai (native tool_calls) or hermes (<tool_call> tags in text). */
export const CHAT_PROTOCOLS = ['openai', 'hermes'] as const satisfies readonly ProtocolName[]
export type ChatProtocolName = (typeof CHAT_PROTOCOLS)[number]

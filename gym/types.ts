// gym/types: what crosses the gym's boundary — chat messages, tool calls, the single-use async Env and its step result.

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface ToolCall {
  id?: string
  name: string
  arguments: Record<string, unknown>
}

export interface ChatMessage {
  role: Role
  content: string
  /** OpenAI-style tool calls on an assistant message. */
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
  /** On a tool message: the call it answers. */
  tool_call_id?: string
  name?: string
}

export type Observation = ChatMessage[]

export type StopReason = 'answer' | 'max_turns' | 'max_tokens' | 'context' | 'time_limit' | 'error'

export interface StepResult {
  /** Messages appended to the conversation (tool results, corrective notes); empty when terminated. */
  observation: Observation
  reward: number
  terminated: boolean
  truncated: boolean
  stopReason?: StopReason
  /** Numeric metrics (counts, F1, EM, latency ms). */
  metrics: Record<string, number>
  /** Diagnostic strings (parse errors, tool errors). */
  logs: Record<string, string>
}

/** One assistant turn as an environment receives it: raw text, or OpenAI-style tool_calls. */
export interface AssistantAction {
  text: string
  tool_calls?: ChatMessage['tool_calls']
  /** Token count of the response if the policy knows it (budgets). */
  numTokens?: number
}

/** Gymnasium semantics, single use: one Env per question and episode. */
export interface Env {
  initialObservation(): Promise<Observation>
  step(action: AssistantAction | string): Promise<StepResult>
}

/** What a policy returns for one turn. */
export interface AssistantTurn {
  text: string
  tool_calls?: ChatMessage['tool_calls']
  tokens?: number[]
  logprobs?: number[]
  usage?: { promptTokens: number; completionTokens: number }
}

export interface Policy {
  readonly name: string
  act(conversation: ChatMessage[], ctx?: { qaId?: string; signal?: AbortSignal }): Promise<AssistantTurn>
}

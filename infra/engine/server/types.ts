// infra/engine/server/types: what crosses the OpenAI-compatible server's boundary — the validated chat request, the
// generator the server drives (one engine, one request at a time), and the OpenAI response shapes.
// The server knows tokens and text; how tokens are sampled is the generator's business.
import type { TemplateMessage, ToolSpec } from '../chat-template'
import type { OpenAIToolCall } from '../chat/hermes'

/** A /v1/chat/completions request after validation, defaults filled in. */
export interface ChatRequest {
  model?: string
  messages: TemplateMessage[]
  tools?: ToolSpec[]
  /** 'none' renders no tools and parses no tool calls. */
  toolChoice: 'auto' | 'none'
  n: number
  temperature: number
  topP: number
  /** vLLM extension; 0 = off. */
  topK: number
  maxTokens: number
  /** False when max_tokens was left out: then it shrinks to the context left instead of failing. */
  maxTokensExplicit: boolean
  stop: string[]
  logprobs: boolean
  seed?: number
  /** vLLM's chat_template_kwargs.enable_thinking (Qwen3); undefined = template default. */
  enableThinking?: boolean
}

/** One sampling job for the generator: n completions of one prompt. */
export interface GenerateParams {
  promptIds: number[]
  n: number
  maxTokens: number
  temperature: number
  topP: number
  topK: number
  seed: number
  /** Generation ends after emitting one of these ids (EOS, <|im_end|>); the id is part of `tokenIds`. */
  stopTokenIds: number[]
  /** Generation may end as soon as the decoded completion contains one of these; the server cuts the text there. */
  stopStrings: string[]
  /** Sample with the LoRA adapter (true) or the base model (false, the reference policy). */
  useAdapter: boolean
}

export interface GeneratedSample {
  /** Every generated id, including a final stop id. */
  tokenIds: number[]
  /** Log-probability of each generated id under the sampling distribution (same length as tokenIds). */
  logprobs: number[]
  /** 'length' when maxTokens ran out before a stop. */
  finish: 'stop' | 'length'
}

/** The engine as the server sees it. Calls are serialised by the server: one generate at a time. */
export interface ChatGenerator {
  /** `signal` (the client's connection): a generator that can stops sampling within one decode step when it fires
   *  and rejects with HttpError 'client_gone'. */
  generate(p: GenerateParams, signal?: AbortSignal): Promise<GeneratedSample[]>
}

export interface ChoiceLogprob {
  token: string
  logprob: number
  bytes: number[]
  top_logprobs: { token: string; logprob: number; bytes: number[] }[]
}

export interface ChatCompletionChoice {
  index: number
  message: { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  logprobs: { content: ChoiceLogprob[] } | null
  finish_reason: 'stop' | 'length' | 'tool_calls'
}

export interface ChatCompletion {
  id: string
  object: 'chat.completion'
  created: number
  model: string
  choices: ChatCompletionChoice[]
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
  system_fingerprint: string
}

/** Log-probabilities of `completionIds` after `promptIds` under the model (with or without the adapter). */
export type ForcedScorer = (promptIds: number[], completionIds: number[], useAdapter: boolean) => Promise<number[]>

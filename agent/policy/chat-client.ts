// agent/policy/chat-client: the policies' view of an OpenAI-compatible chat endpoint, on infra/http/chat-client (which
// owns the HTTP call, the timer, the retry loop and the failure classes): its policy is retries with seeded jitter on
// 429/5xx/network/timeouts (honouring Retry-After), a call record per logical call (attempts, failures by kind, usage,
// price), and the agent's errors (EndpointError, ContextOverflowError). It knows nothing about the gym.
import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { AgentError } from '../../infra/errors'
import { ChatCallError, ChatEndpoint, isContextOverflow, type ChatFailure, type RetryPolicy } from '../../infra/http/chat-client'
import { Rng } from '../../infra/rng'
import { costOf, type PriceTable } from './pricing'

export interface ChatClientOptions {
  baseURL: string
  apiKey?: string
  model: string
  /** Per-request timeout in milliseconds (each attempt). */
  timeoutMs: number
  /** Retries after the first attempt on transient failures (429, 5xx, network, timeout). */
  maxRetries: number
  /** Backoff before retry r (0-based) is min(maxBackoffMs, baseBackoffMs·2^r) scaled by a jitter in [0.5, 1). */
  baseBackoffMs: number
  maxBackoffMs: number
  /** Seed of the jitter; draws are derived per (call key, attempt), so concurrency does not change them. */
  seed: number
  temperature?: number
  maxTokens?: number
  prices?: PriceTable
  /** Extra body fields passed through (e.g. chat_template_kwargs for vLLM). */
  extraBody?: Record<string, unknown>
}

export const DEFAULT_CHAT_CLIENT: Omit<ChatClientOptions, 'baseURL' | 'model'> = {
  timeoutMs: 120_000,
  maxRetries: 5,
  baseBackoffMs: 500,
  maxBackoffMs: 30_000,
  seed: 0,
}

/** What one logical call (all its attempts) cost: the harness records it beside the model's turn. */
export interface CallRecord {
  model: string
  attempts: number
  /** Transient failures that were retried or ended the call, by kind. Apart from model mistakes. */
  rateLimited: number
  serverErrors: number
  networkErrors: number
  timeouts: number
  promptTokens: number
  completionTokens: number
  /** USD when a price table covers the model. */
  cost?: number
  /** Wall time of the whole call including backoff, ms. */
  latencyMs: number
  finishReason?: string
  /** The last transient failure (kind: message, with the socket error code when there is one), for diagnosis. */
  lastTransient?: string
}

export type TransientKind = 'rate_limit' | 'server' | 'network' | 'timeout'

/** Raised when a call still failed after all retries (or failed permanently): an infrastructure failure, not a model mistake. */
export class EndpointError extends AgentError {
  readonly record: CallRecord
  readonly kind: TransientKind | 'permanent'
  constructor(message: string, kind: TransientKind | 'permanent', record: CallRecord, cause?: unknown) {
    super('agent.endpoint', message, { cause })
    this.kind = kind
    this.record = record
  }
}

/** The conversation no longer fits the model's context: the endpoint refused it (a 400 such as OpenAI's and vLLM's
 * `context_length_exceeded`, or `model serve`'s "the prompt has N tokens … context is M"), or a token-in policy found no
 * room left. The model's problem, not the endpoint's: the episode ends as truncated (stop reason `context`) and is
 * scored; it is never retried and never counted as lost to the endpoint. */
export class ContextOverflowError extends AgentError {
  readonly record?: CallRecord
  constructor(message: string, record?: CallRecord, cause?: unknown) {
    super('agent.context_overflow', message, { cause })
    this.record = record
  }
}

export { isContextOverflow }

export interface ChatReply {
  message: OpenAI.Chat.Completions.ChatCompletionMessage
  record: CallRecord
}

export interface CallContext {
  /** Stable label of this call (e.g. question id + turn) from which the jitter stream is derived. */
  callKey?: string
  signal?: AbortSignal
  tools?: ChatCompletionTool[]
}

export class ChatClient {
  readonly options: ChatClientOptions
  private readonly endpoint: ChatEndpoint

  constructor(options: ChatClientOptions) {
    if (!options.baseURL) throw new AgentError('agent.config', 'chat client needs a base URL (e.g. http://127.0.0.1:8000/v1)')
    if (!options.model) throw new AgentError('agent.config', 'chat client needs a model name (--model)')
    this.options = options
    const prices = options.prices
    this.endpoint = new ChatEndpoint({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? 'none',
      timeoutMs: options.timeoutMs,
      ...(prices ? { price: (p: number, c: number) => costOf(prices, options.model, p, c) } : {}),
    })
  }

  /** Backoff before retry `attempt` (0-based) of the call labelled `callKey`; deterministic in the seed. */
  backoffMs(callKey: string, attempt: number): number {
    const o = this.options
    const cap = Math.min(o.maxBackoffMs, o.baseBackoffMs * 2 ** attempt)
    const jitter = 0.5 + 0.5 * Rng.derive(o.seed, 'backoff', callKey, attempt).next()
    return cap * jitter
  }

  async complete(messages: ChatCompletionMessageParam[], ctx: CallContext = {}): Promise<ChatReply> {
    const o = this.options
    const body: ChatCompletionCreateParamsNonStreaming = { model: o.model, messages, ...(o.extraBody ?? {}) }
    if (o.temperature !== undefined) body.temperature = o.temperature
    if (o.maxTokens !== undefined) body.max_tokens = o.maxTokens
    if (ctx.tools && ctx.tools.length > 0) body.tools = ctx.tools
    const t0 = performance.now()
    const retry: RetryPolicy = {
      maxRetries: o.maxRetries,
      retryable: (f) => f.kind !== 'permanent',
      backoffMs: (attempt, f) => Math.min(o.maxBackoffMs, Math.max(this.backoffMs(ctx.callKey ?? '', attempt), f.retryAfterMs ?? 0)),
    }
    try {
      const r = await this.endpoint.complete(body, { retry, ...(ctx.signal ? { signal: ctx.signal } : {}) })
      const record = recordOf(o.model, r.attempts, r.failures)
      record.promptTokens = r.usage?.promptTokens ?? 0
      record.completionTokens = r.usage?.completionTokens ?? 0
      record.finishReason = r.choice?.finish_reason ?? undefined
      if (o.prices) record.cost = r.cost
      record.latencyMs = performance.now() - t0
      return { message: r.choice!.message, record }
    } catch (e) {
      if (!(e instanceof ChatCallError)) throw e
      const f = e.last
      const record = recordOf(o.model, e.attempts, e.failures)
      record.latencyMs = performance.now() - t0
      if (f.kind === 'permanent' && isContextOverflow(f.error))
        throw new ContextOverflowError(`the conversation no longer fits model ${o.model}'s context: ${f.message}`, record, f.error)
      const kind = f.kind as TransientKind | 'permanent'
      const why = kind === 'permanent' ? 'failed' : `still failing (${kind}) after ${e.attempts} attempts`
      throw new EndpointError(`chat request to ${o.baseURL} (model ${o.model}) ${why}: ${f.message}${f.causeCode}`, kind, record, f.error)
    }
  }
}

/** The call record of `attempts` attempts whose failures were `failures` (usage and latency filled in by the caller). */
function recordOf(model: string, attempts: number, failures: ChatFailure[]): CallRecord {
  const record: CallRecord = { model, attempts, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0, promptTokens: 0, completionTokens: 0, latencyMs: 0 }
  for (const f of failures) {
    if (f.kind === 'rate_limit') record.rateLimited++
    else if (f.kind === 'server') record.serverErrors++
    else if (f.kind === 'network') record.networkErrors++
    else if (f.kind === 'timeout') record.timeouts++
    if (f.kind !== 'permanent') record.lastTransient = `${f.kind}: ${f.message}${f.causeCode}`
  }
  return record
}

// agent/policy/chat-client: one OpenAI-compatible chat endpoint through the official `openai` client, with our own
// retries (exponential backoff, seeded jitter) on 429/5xx/network/timeouts, per-request timeout, usage and call stats.
// It knows nothing about the gym: it sends messages and returns the first choice plus what the call cost.
import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { AgentError } from '../../infra/errors'
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

/** True when an endpoint's answer says the request does not fit the model's context (checked on 400/413 only). */
export function isContextOverflow(e: unknown): boolean {
  if (!sdk || !(e instanceof sdk.APIError) || (e.status !== 400 && e.status !== 413)) return false
  const code = e.code ?? (e.error as { code?: unknown } | undefined)?.code
  if (code === 'context_length_exceeded') return true
  return /maximum context length|context length|context window|context is \d+ tokens|prompt is too long|too many tokens/i.test(e.message)
}

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

class MalformedResponse extends Error {}

// The official client (hundreds of modules) is loaded by the first request, not by every command that imports agent.
type Sdk = typeof OpenAI
let sdk: Sdk | undefined
async function loadSdk(): Promise<Sdk> {
  return (sdk ??= (await import('openai')).default)
}

/** ' (ECONNRESET)' etc.: the code of the socket error under a connection error, when the fetch layer gives one. */
function causeCode(e: unknown): string {
  let deepest = ''
  for (let c = (e as { cause?: unknown })?.cause, depth = 0; c && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code
    if (typeof code === 'string') return ` (${code})`
    const m = (c as { message?: unknown }).message
    if (typeof m === 'string' && m !== 'fetch failed') deepest = m
  }
  // No socket code (e.g. fetch's "bad port"): the innermost message says what went wrong.
  return deepest ? ` (${deepest.split('\n')[0]})` : ''
}

function classify(e: unknown): TransientKind | 'permanent' | 'abort' {
  const OpenAI = sdk
  if (!OpenAI) return 'permanent'
  if (e instanceof OpenAI.APIUserAbortError) return 'abort'
  // A body that is not JSON, or JSON without choices: the server misbehaved; retry like a 5xx.
  if (e instanceof SyntaxError || e instanceof MalformedResponse) return 'server'
  if (e instanceof OpenAI.APIConnectionTimeoutError) return 'timeout'
  if (e instanceof OpenAI.APIConnectionError) return 'network'
  if (e instanceof OpenAI.APIError) {
    const s = e.status ?? 0
    if (s === 429) return 'rate_limit'
    if (s === 408) return 'timeout'
    if (s >= 500) return 'server'
    return 'permanent'
  }
  return 'permanent'
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Retry-After in ms if the server sent one we can honour (seconds or HTTP date not supported: seconds only). */
function retryAfterMs(e: unknown): number | undefined {
  if (!sdk || !(e instanceof sdk.APIError) || !e.headers) return undefined
  const v = e.headers.get('retry-after-ms') ?? undefined
  if (v && Number.isFinite(Number(v))) return Number(v)
  const s = e.headers.get('retry-after') ?? undefined
  if (s && Number.isFinite(Number(s))) return Number(s) * 1000
  return undefined
}

export class ChatClient {
  readonly options: ChatClientOptions
  private client: OpenAI | undefined

  constructor(options: ChatClientOptions) {
    if (!options.baseURL) throw new AgentError('agent.config', 'chat client needs a base URL (e.g. http://127.0.0.1:8000/v1)')
    if (!options.model) throw new AgentError('agent.config', 'chat client needs a model name (--model)')
    this.options = options
    // The client's own retries are off: we retry ourselves to count failures and seed the jitter.
  }

  private async sdkClient(): Promise<OpenAI> {
    const Client = await loadSdk()
    const o = this.options
    return (this.client ??= new Client({ baseURL: o.baseURL, apiKey: o.apiKey ?? 'none', timeout: o.timeoutMs, maxRetries: 0 }))
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
    const record: CallRecord = {
      model: o.model,
      attempts: 0,
      rateLimited: 0,
      serverErrors: 0,
      networkErrors: 0,
      timeouts: 0,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: 0,
    }
    const body: ChatCompletionCreateParamsNonStreaming = { model: o.model, messages, ...(o.extraBody ?? {}) }
    if (o.temperature !== undefined) body.temperature = o.temperature
    if (o.maxTokens !== undefined) body.max_tokens = o.maxTokens
    if (ctx.tools && ctx.tools.length > 0) body.tools = ctx.tools
    const t0 = performance.now()
    const client = await this.sdkClient()
    for (let attempt = 0; ; attempt++) {
      record.attempts++
      // Our own per-attempt timer: we know a timeout happened whatever error class the fetch layer raises.
      const ac = new AbortController()
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        ac.abort(new Error(`request timed out after ${o.timeoutMs} ms`))
      }, o.timeoutMs)
      const onOuterAbort = () => ac.abort(ctx.signal?.reason)
      ctx.signal?.addEventListener('abort', onOuterAbort, { once: true })
      try {
        const res = await client.chat.completions.create(body, { signal: ac.signal, timeout: o.timeoutMs + 1000, maxRetries: 0 })
        const choice = res.choices?.[0]
        if (!choice || !choice.message) throw new MalformedResponse(`endpoint ${o.baseURL} returned a response without choices`)
        record.promptTokens = res.usage?.prompt_tokens ?? 0
        record.completionTokens = res.usage?.completion_tokens ?? 0
        record.finishReason = choice.finish_reason ?? undefined
        if (o.prices) record.cost = costOf(o.prices, o.model, record.promptTokens, record.completionTokens)
        record.latencyMs = performance.now() - t0
        return { message: choice.message, record }
      } catch (e) {
        if (ctx.signal?.aborted) throw e
        const kind = timedOut ? 'timeout' : classify(e)
        if (kind === 'abort') throw e
        if (kind === 'rate_limit') record.rateLimited++
        else if (kind === 'server') record.serverErrors++
        else if (kind === 'network') record.networkErrors++
        else if (kind === 'timeout') record.timeouts++
        const msg = e instanceof Error ? e.message : String(e)
        if (kind === 'permanent' && isContextOverflow(e)) {
          record.latencyMs = performance.now() - t0
          throw new ContextOverflowError(`the conversation no longer fits model ${o.model}'s context: ${msg.split('\n')[0]}`, record, e)
        }
        if (kind !== 'permanent') record.lastTransient = `${kind}: ${msg.split('\n')[0]}${causeCode(e)}`
        if (kind === 'permanent' || attempt >= o.maxRetries) {
          record.latencyMs = performance.now() - t0
          const why = kind === 'permanent' ? 'failed' : `still failing (${kind}) after ${attempt + 1} attempts`
          throw new EndpointError(`chat request to ${o.baseURL} (model ${o.model}) ${why}: ${msg.split('\n')[0]}${causeCode(e)}`, kind, record, e)
        }
        const wait = Math.min(o.maxBackoffMs, Math.max(this.backoffMs(ctx.callKey ?? '', attempt), retryAfterMs(e) ?? 0))
        await sleep(wait, ctx.signal)
      } finally {
        clearTimeout(timer)
        ctx.signal?.removeEventListener('abort', onOuterAbort)
      }
    }
  }
}

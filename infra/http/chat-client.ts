// infra/http/chat-client: the one client of OpenAI-compatible chat endpoints — it owns the official `openai` SDK
// (loaded by the first request), the HTTP call with a per-attempt timer, the retry loop, the classification of failures
// (rate limit, server, network with its socket code, timeout, permanent with its status) and the usage/price of a reply.
// Which failures are retried, how long to wait and what a final failure becomes are the caller's policy: the world
// writer (cache, budget, refusals) and the agent's policies (seeded jitter, call records) sit on top of it.
import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions'

export type FailureKind = 'rate_limit' | 'server' | 'network' | 'timeout' | 'permanent' | 'abort'

/** One failed attempt, classified. */
export interface ChatFailure {
  kind: FailureKind
  /** The HTTP status when the endpoint answered with one (an SDK APIError); undefined for anything else. */
  status?: number
  /** First line of the error's message. */
  message: string
  /** ' (ECONNREFUSED)' etc.: the socket error code under a connection error, or the innermost message; '' if none. */
  causeCode: string
  /** The server's Retry-After (ms), when it sent one in seconds or ms. */
  retryAfterMs?: number
  error: unknown
}

export interface RetryPolicy {
  /** Retries after the first attempt, at most. */
  maxRetries: number
  /** Whether this failure may be retried (when retries are left). */
  retryable(f: ChatFailure): boolean
  /** Wait before retry `attempt` (0-based). */
  backoffMs(attempt: number, f: ChatFailure): number
  /** Called before each wait. */
  onRetry?(f: ChatFailure, attempt: number, waitMs: number): void
  /** Default: a timer the call's signal cancels. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>
}

export interface ChatEndpointOptions {
  baseURL: string
  apiKey: string
  /** Per-attempt timeout, ms (our own timer: a timeout is known whatever error the fetch layer raises). */
  timeoutMs: number
  /** Dollars of a reply's usage (the pricing hook); undefined when no price is known. */
  price?: (promptTokens: number, completionTokens: number) => number | undefined
}

export interface ChatUsage {
  promptTokens: number
  completionTokens: number
}

export interface ChatResult {
  response: OpenAI.Chat.Completions.ChatCompletion
  /** The first choice (present unless the call was made with requireChoice false). */
  choice: OpenAI.Chat.Completions.ChatCompletion.Choice | undefined
  /** The endpoint's usage, undefined when it sent none. */
  usage: ChatUsage | undefined
  /** `price` of the usage (none sent counts as zero tokens), when a price function is set and knows the model. */
  cost?: number
  attempts: number
  /** Every failed attempt before the success, in order. */
  failures: ChatFailure[]
}

/** A call that ended without a reply: `last` is the failure that ended it (permanent, or retries spent). */
export class ChatCallError extends Error {
  constructor(
    readonly last: ChatFailure,
    readonly attempts: number,
    readonly failures: ChatFailure[],
  ) {
    super(last.message, { cause: last.error })
  }
}

export interface ChatCallOptions {
  retry: RetryPolicy
  signal?: AbortSignal
  /** A response without a first choice counts as a server failure (default true). */
  requireChoice?: boolean
}

class MalformedResponse extends Error {}

type Sdk = typeof OpenAI
let sdk: Sdk | undefined
/** The official client (hundreds of modules), loaded by the first request, not by every command that imports us. */
export async function loadSdk(): Promise<Sdk> {
  return (sdk ??= (await import('openai')).default)
}

/** ' (ECONNRESET)' etc.: the code of the socket error under a connection error, when the fetch layer gives one. */
export function causeCodeOf(e: unknown): string {
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

function kindOf(e: unknown): FailureKind {
  const S = sdk
  if (!S) return 'permanent'
  if (e instanceof S.APIUserAbortError) return 'abort'
  // A body that is not JSON, or JSON without choices: the server misbehaved; like a 5xx.
  if (e instanceof SyntaxError || e instanceof MalformedResponse) return 'server'
  if (e instanceof S.APIConnectionTimeoutError) return 'timeout'
  if (e instanceof S.APIConnectionError) return 'network'
  if (e instanceof S.APIError) {
    const s = e.status ?? 0
    if (s === 429) return 'rate_limit'
    if (s === 408) return 'timeout'
    if (s >= 500) return 'server'
  }
  return 'permanent'
}

/** Retry-After in ms if the server sent one we can honour (seconds, or retry-after-ms; HTTP dates are not). */
function retryAfterOf(e: unknown): number | undefined {
  if (!sdk || !(e instanceof sdk.APIError) || !e.headers) return undefined
  const v = e.headers.get('retry-after-ms') ?? undefined
  if (v && Number.isFinite(Number(v))) return Number(v)
  const s = e.headers.get('retry-after') ?? undefined
  if (s && Number.isFinite(Number(s))) return Number(s) * 1000
  return undefined
}

export function classifyFailure(e: unknown, timedOut = false): ChatFailure {
  const status = sdk && e instanceof sdk.APIError ? e.status : undefined
  return {
    kind: timedOut ? 'timeout' : kindOf(e),
    ...(status !== undefined ? { status } : {}),
    message: (e instanceof Error ? e.message : String(e)).split('\n')[0],
    causeCode: causeCodeOf(e),
    ...(retryAfterOf(e) !== undefined ? { retryAfterMs: retryAfterOf(e) } : {}),
    error: e,
  }
}

/** True when an endpoint's answer says the request does not fit the model's context (checked on 400/413 only). */
export function isContextOverflow(e: unknown): boolean {
  if (!sdk || !(e instanceof sdk.APIError) || (e.status !== 400 && e.status !== 413)) return false
  const code = e.code ?? (e.error as { code?: unknown } | undefined)?.code
  if (code === 'context_length_exceeded') return true
  return /maximum context length|context length|context window|context is \d+ tokens|prompt is too long|too many tokens/i.test(e.message)
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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

export class ChatEndpoint {
  private client: OpenAI | undefined

  constructor(readonly options: ChatEndpointOptions) {}

  private async sdkClient(): Promise<OpenAI> {
    const OpenAI = await loadSdk()
    const o = this.options
    // The SDK's own retries are off: the retry policy is ours, to count failures and choose the waits.
    return (this.client ??= new OpenAI({ baseURL: o.baseURL, apiKey: o.apiKey, timeout: o.timeoutMs, maxRetries: 0 }))
  }

  /** One logical call: attempts until a reply, a failure the policy does not retry, or retries spent (ChatCallError).
   * An abort of `signal` rethrows the abort as it came. */
  async complete(body: ChatCompletionCreateParamsNonStreaming, call: ChatCallOptions): Promise<ChatResult> {
    const o = this.options
    const client = await this.sdkClient()
    const failures: ChatFailure[] = []
    for (let attempt = 0; ; attempt++) {
      const ac = new AbortController()
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        ac.abort(new Error(`request timed out after ${o.timeoutMs} ms`))
      }, o.timeoutMs)
      const onOuterAbort = () => ac.abort(call.signal?.reason)
      call.signal?.addEventListener('abort', onOuterAbort, { once: true })
      try {
        const response = await client.chat.completions.create(body, { signal: ac.signal, timeout: o.timeoutMs + 1000, maxRetries: 0 })
        const choice = response.choices?.[0]
        if ((call.requireChoice ?? true) && (!choice || !choice.message)) throw new MalformedResponse(`endpoint ${o.baseURL} returned a response without choices`)
        const usage = response.usage ? { promptTokens: response.usage.prompt_tokens ?? 0, completionTokens: response.usage.completion_tokens ?? 0 } : undefined
        const cost = o.price?.(usage?.promptTokens ?? 0, usage?.completionTokens ?? 0)
        return { response, choice, usage, ...(cost !== undefined ? { cost } : {}), attempts: attempt + 1, failures }
      } catch (e) {
        if (call.signal?.aborted) throw e
        const f = classifyFailure(e, timedOut)
        if (f.kind === 'abort') throw e
        failures.push(f)
        if (!call.retry.retryable(f) || attempt >= call.retry.maxRetries) throw new ChatCallError(f, attempt + 1, failures)
        const wait = call.retry.backoffMs(attempt, f)
        call.retry.onRetry?.(f, attempt, wait)
        await (call.retry.sleep ?? abortableSleep)(wait, call.signal)
      } finally {
        clearTimeout(timer)
        call.signal?.removeEventListener('abort', onOuterAbort)
      }
    }
  }
}

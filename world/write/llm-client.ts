// world/write/llm-client: the world writer's chat calls, on infra/http/chat-client (which owns the HTTP call, the
// retry loop and the failure classes), behind the world's call cache (a cached prompt is never sent again): its policy
// is exponential backoff on 408/409/429/5xx and dropped connections, refusals (other 4xx) the caller falls back on,
// a per-world token/dollar budget, and usage counters per stage. Knows nothing of documents.
import { WorldError } from '../../infra/errors'
import { canonicalJson, sha256 } from '../../infra/hash'
import { ChatCallError, ChatEndpoint, type RetryPolicy } from '../../infra/http/chat-client'
import type { Db } from '../../infra/store'
import { cacheGet, cachePut, cacheTotals, type CachedReply } from './llm-cache'
import type { WriteConfig } from './write-config'

export interface LlmPrompt {
  system: string
  user: string
}

export type LlmOutcome =
  | { kind: 'reply'; text: string; cached: boolean }
  /** Not sent: the world's budget is spent. */
  | { kind: 'budget' }
  /** The endpoint refused this one prompt (a 4xx other than 401/403/404/429): the caller falls back. */
  | { kind: 'refused'; reason: string }

/** Counters of one stage in this run (calls = requests that got a reply; tokens/cost of those calls only). */
export interface StageUsage {
  calls: number
  cacheHits: number
  promptTokens: number
  completionTokens: number
  retries: number
  budgetSkips: number
  refused: number
}

const emptyUsage = (): StageUsage => ({ calls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, retries: 0, budgetSkips: 0, refused: 0 })
const MAX_BACKOFF_MS = 30_000

export interface LlmClientOptions {
  env?: NodeJS.ProcessEnv
  log?: (m: string) => void
  /** Injected for tests; default setTimeout. */
  sleep?: (ms: number) => Promise<void>
}

export class LlmClient {
  readonly usage = new Map<string, StageUsage>()
  private readonly endpoint: ChatEndpoint
  private readonly inFlight = new Map<string, Promise<LlmOutcome>>()
  private spentPrompt: number
  private spentCompletion: number
  private readonly sleep: (ms: number) => Promise<void>

  constructor(
    private readonly db: Db,
    private readonly cfg: WriteConfig,
    private readonly opts: LlmClientOptions = {},
  ) {
    const key = (opts.env ?? process.env)[cfg.keyEnv]
    // A local server needs no key; the client insists on one, so an unset variable sends a placeholder.
    this.endpoint = new ChatEndpoint({
      baseURL: cfg.baseUrl,
      apiKey: key && key.length > 0 ? key : 'unset',
      timeoutMs: 300_000,
      price: (p, c) => this.cost(p, c),
    })
    const t = cacheTotals(db)
    this.spentPrompt = t.promptTokens
    this.spentCompletion = t.completionTokens
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
  }

  /** Dollars for a number of prompt and completion tokens at the configured prices. */
  cost(promptTokens: number, completionTokens: number): number {
    return (promptTokens * this.cfg.price.inputPerMillion + completionTokens * this.cfg.price.outputPerMillion) / 1e6
  }

  /** Tokens and dollars of every call this world has recorded (earlier runs included). */
  spent(): { tokens: number; dollars: number } {
    return { tokens: this.spentPrompt + this.spentCompletion, dollars: this.cost(this.spentPrompt, this.spentCompletion) }
  }

  overBudget(): boolean {
    const b = this.cfg.budget
    const s = this.spent()
    return (b.tokens > 0 && s.tokens >= b.tokens) || (b.dollars > 0 && s.dollars >= b.dollars)
  }

  stageUsage(stage: string): StageUsage {
    let u = this.usage.get(stage)
    if (!u) this.usage.set(stage, (u = emptyUsage()))
    return u
  }

  /** The reply to `prompt`: from the cache when this (model, prompt) was answered before, else one call. */
  complete(prompt: LlmPrompt, stage: string): Promise<LlmOutcome> {
    const body = { system: prompt.system, user: prompt.user, temperature: this.cfg.temperature, max_tokens: this.cfg.maxTokensPerCall }
    const hash = sha256(canonicalJson(body))
    const u = this.stageUsage(stage)
    const hit = cacheGet(this.db, this.cfg.model, hash)
    if (hit) {
      u.cacheHits++
      return Promise.resolve({ kind: 'reply', text: hit.text, cached: true })
    }
    const pending = this.inFlight.get(hash)
    if (pending) return pending
    const p = this.call(body, hash, u).finally(() => this.inFlight.delete(hash))
    this.inFlight.set(hash, p)
    return p
  }

  private async call(body: { system: string; user: string; temperature: number; max_tokens: number }, hash: string, u: StageUsage): Promise<LlmOutcome> {
    if (this.overBudget()) {
      u.budgetSkips++
      return { kind: 'budget' }
    }
    const cfg = this.cfg
    const retry: RetryPolicy = {
      maxRetries: cfg.maxRetries,
      retryable: (f) => isTransient(f.status),
      backoffMs: (attempt) => Math.min(MAX_BACKOFF_MS, cfg.backoffMs * 2 ** attempt),
      onRetry: (f, attempt, wait) => {
        u.retries++
        this.opts.log?.(`write: ${f.status === undefined ? 'connection failed' : `HTTP ${f.status}`}; retry ${attempt + 1}/${cfg.maxRetries} in ${wait} ms`)
      },
      sleep: (ms) => this.sleep(ms),
    }
    try {
      const res = await this.endpoint.complete(
        {
          model: cfg.model,
          messages: [
            { role: 'system', content: body.system },
            { role: 'user', content: body.user },
          ],
          temperature: body.temperature,
          max_tokens: body.max_tokens,
        },
        { retry, requireChoice: false },
      )
      const text = res.choice?.message?.content ?? ''
      // An endpoint without usage is charged an estimate (4 characters a token) so that budgets still bind.
      const reply: CachedReply = {
        text,
        promptTokens: res.usage?.promptTokens ?? Math.ceil((body.system.length + body.user.length) / 4),
        completionTokens: res.usage?.completionTokens ?? Math.ceil(text.length / 4),
      }
      cachePut(this.db, cfg.model, hash, canonicalJson(body), reply)
      u.calls++
      u.promptTokens += reply.promptTokens
      u.completionTokens += reply.completionTokens
      this.spentPrompt += reply.promptTokens
      this.spentCompletion += reply.completionTokens
      return { kind: 'reply', text, cached: false }
    } catch (e) {
      if (!(e instanceof ChatCallError)) throw e
      const { status, message } = e.last
      const line = message.slice(0, 200)
      if (status === 401 || status === 403)
        throw new WorldError('world.write_auth', `the LLM endpoint ${cfg.baseUrl} refused the key (HTTP ${status}): set $${cfg.keyEnv} to a valid API key (or write.keyEnv)`, { cause: e.last.error })
      if (status === 404)
        throw new WorldError('world.write_model', `the LLM endpoint ${cfg.baseUrl} has no model '${cfg.model}' or no /chat/completions (HTTP 404): check write.model and write.baseUrl`, { cause: e.last.error })
      if (!isTransient(status)) {
        u.refused++
        return { kind: 'refused', reason: `HTTP ${status}: ${line}` }
      }
      throw new WorldError(
        'world.write_unavailable',
        `the LLM endpoint ${cfg.baseUrl} failed ${e.attempts} times (${status === undefined ? 'no connection' : `HTTP ${status}`}: ${line}); every finished call is cached: rerun the same build to resume`,
        { cause: e.last.error },
      )
    }
  }
}

/** The world writer retries dropped connections (no status), 408, 409, 429 and 5xx; any other status is final. */
function isTransient(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500
}

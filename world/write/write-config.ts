// world/write/write-config: the `write` section of WorldConfig (the optional LLM writer) — its defaults and the check
// between its keys (their own bounds are in world/config-fields). Plain data; knows nothing of HTTP or documents.
import { ConfigError } from '../../infra/errors'

export interface WriteConfig {
  /** Model name at the endpoint; '' = no writer (the template documents stand, no call is made). */
  model: string
  /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 (needed with a model). */
  baseUrl: string
  /** Name of the environment variable holding the API key (an unset variable sends no key: local servers). */
  keyEnv: string
  /** With a model: also reword every served question (stage 'rephrase'); documents are always rewritten. */
  questions: boolean
  /** Calls in flight at once. */
  concurrency: number
  /** Retries of one call on 429, 5xx or a dropped connection, with exponential backoff (then the build stops). */
  maxRetries: number
  /** First backoff in milliseconds (doubled on every retry, capped at 30 s). */
  backoffMs: number
  /** max_tokens of one call. */
  maxTokensPerCall: number
  /** Sampling temperature sent with every call (0 = the endpoint's most deterministic). */
  temperature: number
  /** Per-world budget over every call this world ever made (cached calls included); 0 = no limit. Over budget,
   *  no new call is made and the remaining documents keep their template text (counted as 'budget'). */
  budget: { tokens: number; dollars: number }
  /** Prices in US dollars per million tokens, for the cost in the report and the dollar budget. */
  price: { inputPerMillion: number; outputPerMillion: number }
}

export const DEFAULT_WRITE_CONFIG: WriteConfig = {
  model: '',
  baseUrl: '',
  keyEnv: 'OPENAI_API_KEY',
  questions: true,
  concurrency: 4,
  maxRetries: 5,
  backoffMs: 500,
  maxTokensPerCall: 1200,
  temperature: 0,
  budget: { tokens: 0, dollars: 0 },
  price: { inputPerMillion: 0, outputPerMillion: 0 },
}

/** The check between the section's keys (each key's own type and bounds are world/config-fields'): a model needs an
 *  http(s) base URL. Throws ConfigError (one line); returns the section. */
export function validateWriteConfig(w: WriteConfig): WriteConfig {
  if (w.model !== '' && !/^https?:\/\/\S+$/.test(w.baseUrl))
    throw new ConfigError('config.write', `config.write.baseUrl must be an http(s) URL when a model is set (write.baseUrl), got ${JSON.stringify(w.baseUrl)}`)
  return w
}

// world/write/cli-options: the `--llm-*` options of `searchgym world build` and how they land in config.write.
// Thin: the flags only fill the config; the write stage reads nothing else.
import type { Argv } from 'yargs'
import { ConfigError } from '../../infra/errors'
import type { WorldConfig } from '../config'
import { validateWriteConfig } from './write-config'

export interface LlmArgs {
  llmBaseUrl?: string
  llmModel?: string
  llmKeyEnv?: string
  llmConcurrency?: number
  llmBudgetTokens?: number
  llmBudgetUsd?: number
  llmPriceIn?: number
  llmPriceOut?: number
  llmMaxTokens?: number
}

export function llmOptions<T>(y: Argv<T>): Argv<T> {
  return y
    .option('llm-base-url', { type: 'string', describe: 'OpenAI-compatible endpoint that rewrites every document (e.g. http://127.0.0.1:8000/v1); needs --llm-model' })
    .option('llm-model', { type: 'string', describe: 'model name at --llm-base-url; without it the template documents stand and no call is made' })
    .option('llm-key-env', { type: 'string', describe: 'environment variable holding the endpoint API key (default OPENAI_API_KEY; unset = no key, for local servers)' })
    .option('llm-concurrency', { type: 'number', describe: 'LLM calls in flight at once (default 4)' })
    .option('llm-budget-tokens', { type: 'number', describe: 'per-world token budget over all calls, cached ones included (0 = none); over it, documents keep the template text' })
    .option('llm-budget-usd', { type: 'number', describe: 'per-world budget in US dollars at --llm-price-in/--llm-price-out (0 = none)' })
    .option('llm-price-in', { type: 'number', describe: 'US dollars per million prompt tokens (for the cost report and --llm-budget-usd)' })
    .option('llm-price-out', { type: 'number', describe: 'US dollars per million completion tokens' })
    .option('llm-max-tokens', { type: 'number', describe: 'max_tokens of one call (default 1200)' })
}

/** config with the given --llm-* flags applied (a flag overrides the config file); throws ConfigError on bad input. */
export function applyLlmArgs(config: WorldConfig, a: LlmArgs): WorldConfig {
  const w = { ...config.write, budget: { ...config.write.budget }, price: { ...config.write.price } }
  if (a.llmBaseUrl !== undefined) w.baseUrl = a.llmBaseUrl
  if (a.llmModel !== undefined) w.model = a.llmModel
  if (a.llmKeyEnv !== undefined) w.keyEnv = a.llmKeyEnv
  if (a.llmConcurrency !== undefined) w.concurrency = a.llmConcurrency
  if (a.llmBudgetTokens !== undefined) w.budget.tokens = a.llmBudgetTokens
  if (a.llmBudgetUsd !== undefined) w.budget.dollars = a.llmBudgetUsd
  if (a.llmPriceIn !== undefined) w.price.inputPerMillion = a.llmPriceIn
  if (a.llmPriceOut !== undefined) w.price.outputPerMillion = a.llmPriceOut
  if (a.llmMaxTokens !== undefined) w.maxTokensPerCall = a.llmMaxTokens
  if (w.model === '' && a.llmBaseUrl !== undefined) throw new ConfigError('config.write', '--llm-base-url needs --llm-model (the model name at that endpoint)')
  validateWriteConfig(w)
  return { ...config, write: w }
}

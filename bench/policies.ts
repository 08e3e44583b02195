// bench/policies: turn a run config into a policy per question — openai, closed-book, one-shot-rag over one shared
// ChatClient, a local model + adapter in process (engine), or the gym's oracle — and the optional judge. Reads the API key from the named environment variable.
import { toolSchemas, type Policy } from '../gym'
import type { Qa } from '../world'
import { ChatClient, ClosedBookPolicy, DEFAULT_CHAT_CLIENT, OneShotRagPolicy, OpenAiPolicy, openLocalEngine, type ChatClientOptions } from '../agent'
import { BenchError } from '../infra/errors'
import { LlmJudge } from './judge'
import { chatProtocol, type BenchRunConfig, type BenchWorld } from './types'

export interface ClientTuning {
  baseBackoffMs?: number
  maxBackoffMs?: number
}

function clientOptions(config: BenchRunConfig, env: NodeJS.ProcessEnv, tuning: ClientTuning): ChatClientOptions {
  if (!config.model) throw new BenchError('bench.args', `--policy ${config.policy} needs --model`)
  if (!config.baseURL) throw new BenchError('bench.args', `--policy ${config.policy} needs --base-url (e.g. http://127.0.0.1:8000/v1)`)
  const o: ChatClientOptions = {
    ...DEFAULT_CHAT_CLIENT,
    ...tuning,
    baseURL: config.baseURL,
    apiKey: env[config.apiKeyEnv] || 'none',
    model: config.model,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    seed: config.seed,
  }
  if (config.temperature !== null) o.temperature = config.temperature
  if (config.maxTokens !== null) o.maxTokens = config.maxTokens
  if (config.prices) o.prices = config.prices
  return o
}

export function policyFactory(config: BenchRunConfig, world: BenchWorld, env: NodeJS.ProcessEnv = process.env, tuning: ClientTuning = {}): (qa: Qa) => Policy {
  switch (config.policy) {
    case 'oracle': {
      const oracle = world.oracle?.bind(world)
      if (!oracle) throw new BenchError('bench.no_oracle', `world ${world.dir} cannot give an oracle (it needs the world's gold graph)`)
      return (qa) => oracle(qa)
    }
    case 'openai': {
      const { baseURL, model, ...rest } = clientOptions(config, env, tuning)
      // The no-Access ablation (gym option access: false) offers only search.
      const tools = toolSchemas(config.gym?.access === false ? ['search'] : ['search', 'access'])
      const p = new OpenAiPolicy({ ...rest, baseURL, model, protocol: chatProtocol(config.protocol), tools })
      return () => p
    }
    case 'engine': {
      // A local model folder (+ adapter) in process, token in / token out; greedy unless --temperature.
      if (!config.model) throw new BenchError('bench.args', '--policy engine needs --model DIR (a model folder)')
      const e = openLocalEngine({ model: config.model, adapter: config.adapter, backend: config.backend ?? 'auto', temperature: config.temperature ?? 0, maxTokensPerTurn: config.maxTokens ?? 256, seed: config.seed })
      return (qa) => e.policyFor(qa.id)
    }
    case 'closed-book': {
      const p = new ClosedBookPolicy(new ChatClient(clientOptions(config, env, tuning)))
      return () => p
    }
    case 'one-shot-rag': {
      const p = new OneShotRagPolicy(new ChatClient(clientOptions(config, env, tuning)), { protocol: chatProtocol(config.protocol), docs: config.ragDocs, maxDocChars: 4000 })
      return () => p
    }
  }
}

export function makeJudge(config: BenchRunConfig, env: NodeJS.ProcessEnv = process.env, tuning: ClientTuning = {}): LlmJudge | undefined {
  if (!config.judge) return undefined
  const j = config.judge
  return new LlmJudge(
    new ChatClient({ ...DEFAULT_CHAT_CLIENT, ...tuning, baseURL: j.baseURL, model: j.model, apiKey: env[j.apiKeyEnv] || 'none', timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, seed: config.seed, temperature: 0, ...(config.prices ? { prices: config.prices } : {}) }),
  )
}

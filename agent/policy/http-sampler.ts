// agent/policy/http-sampler: a TokenSampler over an inference server's POST /v1/completions with token-id prompts
// and per-token log-probs (the shape vLLM and SGLang serve, and `searchgym model serve`): ids in, ids + log-probs
// out, one request per prompt with n samples (the server shares the prefill). Nothing is decoded and re-encoded.
import { AgentError } from '../../infra/errors'
import type { SampledCompletion, TokenSampler } from './engine-policy'

export interface HttpSamplerOptions {
  /** Base URL ending in /v1. */
  baseURL: string
  model?: string
  temperature: number
  topP: number
  topK: number
  timeoutMs?: number
}

interface Choice {
  token_ids?: number[]
  logprobs?: { tokens?: string[]; token_logprobs?: number[] } | null
  finish_reason?: string
}

export class HttpSampler implements TokenSampler {
  readonly name = 'http'
  constructor(private readonly o: HttpSamplerOptions) {}

  async sample(prompts: number[][], p: { n: number; maxTokens: number; seed: number }): Promise<SampledCompletion[][]> {
    return Promise.all(prompts.map((prompt, i) => this.one(prompt, p.n, p.maxTokens, (p.seed + i) % 2 ** 31)))
  }

  private async one(prompt: number[], n: number, maxTokens: number, seed: number): Promise<SampledCompletion[]> {
    const body = { model: this.o.model, prompt, n, max_tokens: maxTokens, temperature: this.o.temperature, top_p: this.o.topP, top_k: this.o.topK, seed, logprobs: 1, return_tokens_as_token_ids: true }
    const res = await fetch(`${this.o.baseURL.replace(/\/$/, '')}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.o.timeoutMs ?? 600_000),
    })
    const text = await res.text()
    if (!res.ok) throw new AgentError('sampler.http', `POST ${this.o.baseURL}/completions answered ${res.status}: ${text.slice(0, 300)}`)
    const json = JSON.parse(text) as { choices?: Choice[] }
    if (!Array.isArray(json.choices) || json.choices.length !== n) throw new AgentError('sampler.http', `the server returned ${json.choices?.length ?? 0} choices for n = ${n}`)
    return json.choices.map((c) => {
      const lps = c.logprobs?.token_logprobs
      // token_ids (SGLang / vLLM return_token_ids) or "token_id:N" tokens (vLLM return_tokens_as_token_ids)
      const ids = c.token_ids ?? c.logprobs?.tokens?.map((t) => Number(/^token_id:(\d+)$/.exec(t)?.[1] ?? NaN))
      if (!ids || !lps || ids.length !== lps.length || ids.some((x) => !Number.isInteger(x)))
        throw new AgentError('sampler.http', 'the server did not return token ids with one log-prob each; it needs token-id output (vLLM: return_tokens_as_token_ids)')
      return { tokenIds: ids, logprobs: lps, finish: c.finish_reason === 'length' ? 'length' : 'stop' }
    })
  }
}

// agent/policy/engine-sampler: the in-process TokenSampler — the engine's generateBatch on a CausalLM (LoRA on),
// ids in, ids + the log-probs of the policy it samples from out: log softmax(logits / T) at the sampling temperature T
// (the model's own at T = 1; at T = 0, greedy, the model's T = 1 numbers) — what Learner.forwardBackward recomputes at
// that temperature, so the PPO ratio starts at 1 on-policy. With top-k / top-p on they are the truncated
// distribution's (the true behaviour policy), so the first ratio is then ≤ 1 on purpose. Stops at the tokenizer's stop ids. Sampling runs on the backend's batched path
// (one forwardCached per prefill / decode step for all rows); the samples' KV caches are kept in a prefix cache, so
// the next turn of an episode (its whole sequence + an observation, as PolicyBatch sends it) prefills only the new
// tokens. The cache drops its entries when the adapter's values change (each optimizer step).
import { KvPrefixCache, generateBatch } from '../../infra/engine'
import type { CausalLM } from '../../infra/engine'
import type { SampledCompletion, TokenSampler } from './engine-policy'

export interface EngineSamplerParams {
  temperature: number
  topP: number
  topK: number
  stopIds: number[]
}

export class EngineSampler implements TokenSampler {
  readonly name = 'local'
  /** KV caches of earlier samples (prompt tokens reused / prefilled are counted there). */
  readonly prefixCache: KvPrefixCache
  constructor(
    private readonly model: CausalLM,
    private readonly params: EngineSamplerParams,
    opts: { prefixCacheBytes?: number } = {},
  ) {
    this.prefixCache = new KvPrefixCache(opts.prefixCacheBytes)
  }

  async sample(prompts: number[][], p: { n: number; maxTokens: number; seed: number }): Promise<SampledCompletion[][]> {
    const out = generateBatch(this.model, prompts, {
      n: p.n,
      maxNewTokens: p.maxTokens,
      temperature: this.params.temperature,
      topP: this.params.topP,
      topK: this.params.topK,
      seed: p.seed,
      eosTokenIds: this.params.stopIds,
      useLora: this.model.adapter !== undefined,
      prefixCache: this.prefixCache,
    })
    // At T = 1 with nothing truncated both fields are the same number; modelLogprobs keeps earlier runs bit-identical.
    const tempered = this.params.temperature > 0 && (this.params.temperature !== 1 || this.params.topK > 0 || this.params.topP < 1)
    return out.map((ps) => ps.map((s) => ({ tokenIds: s.tokens, logprobs: tempered ? s.logprobs : s.modelLogprobs, finish: s.finishReason === 'length' ? 'length' : 'stop' })))
  }
}

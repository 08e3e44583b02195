// infra/engine/server/engine-generator: the server's ChatGenerator on the local engine — sample.ts's generate() with
// the tokenizer's stop ids, stop strings as token sequences, adapter on/off; and the forced-token scorer that gives
// fixture replies the model's real log-probabilities. Knows nothing of HTTP.
import { type CausalLM, forward, targetLogprobs } from '../model'
import { generate } from '../sample'
import type { TextTokenizer } from '../tokenizer'
import type { ForcedScorer } from './types'
import type { ChatGenerator, GeneratedSample, GenerateParams } from './types'

export class EngineChatGenerator implements ChatGenerator {
  constructor(
    private readonly model: CausalLM,
    private readonly tok: TextTokenizer,
  ) {}

  /** On the server's own thread a signal cannot fire while sampling runs; only the worker (worker-generator) cancels. */
  async generate(p: GenerateParams): Promise<GeneratedSample[]> {
    return this.generateUntil(p)
  }

  /** `shouldStop` (a worker's cancel flag) is checked before every decode step; true ends sampling there. */
  async generateUntil(p: GenerateParams, shouldStop?: () => boolean): Promise<GeneratedSample[]> {
    // Stop strings end sampling when their usual tokenisation appears; the server also cuts the decoded text, which
    // catches other tokenisations of the same string (at the cost of sampling on to max_tokens in that case).
    const stopSequences = p.stopStrings.map((s) => this.tok.encode(s)).filter((ids) => ids.length > 0)
    const samples = generate(this.model, p.promptIds, {
      n: p.n,
      maxNewTokens: p.maxTokens,
      temperature: p.temperature,
      topP: p.topP,
      topK: p.topK,
      seed: p.seed,
      stopSequences,
      eosTokenIds: p.stopTokenIds,
      useLora: p.useAdapter && this.model.adapter !== undefined,
      shouldStop,
    })
    // OpenAI/vLLM report the model's own log-probabilities (temperature 1, nothing truncated), not the sampling policy's.
    return samples.map((s) => ({ tokenIds: s.tokens, logprobs: s.modelLogprobs, finish: s.finishReason === 'length' ? 'length' : 'stop' }))
  }

  /** log p(completion | prompt) per completion token under the model, for fixture replies (forced decoding). */
  readonly score: ForcedScorer = async (promptIds, completionIds, useAdapter) => {
    if (completionIds.length === 0) return []
    const all = [...promptIds, ...completionIds]
    const f = forward(this.model, [{ tokens: all.slice(0, -1) }], { useLora: useAdapter && this.model.adapter !== undefined })
    const lp = targetLogprobs(this.model, f.hidden, Int32Array.from(all.slice(1)))
    return Array.from(lp.subarray(promptIds.length - 1))
  }
}

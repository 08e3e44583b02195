// agent/policy/fixture-sampler: TEST FIXTURE TokenSampler — answers each prompt with one of a list of scripted
// replies (chosen by a seeded draw per prompt and sample), encoded and ended with the end-of-turn id, carrying the
// REAL model's log-probs of those tokens (forced decoding through Learner.computeLogprobs, adapter on, at the
// run's sampling temperature). Lets tests
// drive the whole GRPO path (mixed rewards, real ratios, real updates) on a random tiny model, the way
// `model serve --fixture-replies` does for the bench. Never used outside tests and demos that name it.
import { readFileSync } from 'node:fs'
import { AgentError } from '../../infra/errors'
import { Rng } from '../../infra/rng'
import type { ChatCodec } from '../../infra/engine'
import type { Learner } from '../../infra/engine'
import type { SampledCompletion, TokenSampler } from './engine-policy'

export function readReplies(file: string): string[] {
  let v: unknown
  try {
    v = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw new AgentError('fixture.replies', `cannot read fixture replies ${file}: ${(e as Error).message}`)
  }
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string'))
    throw new AgentError('fixture.replies', `${file} must hold a non-empty JSON array of reply strings`)
  return v as string[]
}

export class FixtureSampler implements TokenSampler {
  readonly name = 'fixture'
  constructor(
    private readonly learner: Learner,
    private readonly codec: ChatCodec,
    private readonly replies: readonly string[],
    /** The temperature the log-probs are taken at (the trainer's sampling temperature; default 1). */
    private readonly temperature = 1,
  ) {}

  async sample(prompts: number[][], p: { n: number; maxTokens: number; seed: number }): Promise<SampledCompletion[][]> {
    return prompts.map((prompt, pi) =>
      Array.from({ length: p.n }, (_, j) => {
        const text = this.replies[Rng.derive(p.seed, 'fixture', pi, j).int(0, this.replies.length - 1)]
        let ids = [...this.codec.tokenizer.encode(text), this.codec.endOfTurnId()]
        let finish: 'stop' | 'length' = 'stop'
        if (ids.length > p.maxTokens) {
          ids = ids.slice(0, p.maxTokens)
          finish = 'length'
        }
        const lp = this.learner.computeLogprobs([...prompt, ...ids], { temperature: this.temperature > 0 ? this.temperature : 1 })
        return { tokenIds: ids, logprobs: lp.slice(prompt.length - 1), finish }
      }),
    )
  }
}

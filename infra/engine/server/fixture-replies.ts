// infra/engine/server/fixture-replies: a TEST FIXTURE generator — instead of sampling, it answers with canned assistant
// texts (in order, cycling), tokenised like model output and ended with EOS. With a scorer it reports the real model's
// log-probabilities of those forced tokens. It exists so tests can drive the server's tool_calls path, which a random
// model never takes; `model serve --fixture-replies FILE` names it as such.
import { readFileSync } from 'node:fs'
import { EngineError } from '../../errors'
import type { TextTokenizer } from '../tokenizer'
import type { ChatGenerator, GeneratedSample, GenerateParams } from './types'

/** Log-probabilities of `completionIds` after `promptIds` under the model (with or without the adapter). */
export type ForcedScorer = (promptIds: number[], completionIds: number[], useAdapter: boolean) => Promise<number[]>

export class FixtureReplyGenerator implements ChatGenerator {
  private next = 0

  constructor(
    private readonly tok: TextTokenizer,
    private readonly replies: string[],
    private readonly score?: ForcedScorer,
  ) {
    if (replies.length === 0) throw new EngineError('engine.fixture_empty', 'fixture replies: the list is empty; give at least one reply text')
  }

  async generate(p: GenerateParams): Promise<GeneratedSample[]> {
    const out: GeneratedSample[] = []
    for (let i = 0; i < p.n; i++) {
      const reply = this.replies[this.next++ % this.replies.length]
      let ids = [...this.tok.encode(reply), this.tok.special.eos]
      let finish: 'stop' | 'length' = 'stop'
      if (ids.length > p.maxTokens) {
        ids = ids.slice(0, p.maxTokens)
        finish = 'length'
      }
      const logprobs = this.score ? await this.score(p.promptIds, ids, p.useAdapter) : ids.map(() => 0)
      out.push({ tokenIds: ids, logprobs, finish })
    }
    return out
  }
}

/** Read a fixture file: a JSON array of reply strings. */
export function readFixtureReplies(path: string): string[] {
  let v: unknown
  try {
    v = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new EngineError('engine.fixture_invalid', `fixture replies ${path}: cannot read a JSON array of strings (${(e as Error).message})`, { cause: e })
  }
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string')) {
    throw new EngineError('engine.fixture_invalid', `fixture replies ${path}: expected a non-empty JSON array of strings`)
  }
  return v as string[]
}

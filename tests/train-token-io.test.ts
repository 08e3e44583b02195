// tests/train-token-io: the engine policy is token in / token out — over the real gym env (fixture world), the
// episode's id sequence is the prompt's ids, then EXACTLY the sampler's ids for each turn (with its log-probs), then
// the template's continuation ids for the tool observation; the sequence decodes to the chat template's rendering of
// the whole conversation, and sampled ids are never re-encoded (a reply whose ids are not the tokenizer's own
// encoding of its text survives unchanged). The N rollouts of one question share the first prefill (n = N call).
import { makeEnv, scoreAnswer } from '../gym'
import { ChatCodec } from '../infra/engine/chat/codec'
import { chatTemplateOf, SIMPLE_QWEN_TEMPLATE, type TemplateMessage } from '../infra/engine/chat-template'
import { TextTokenizer } from '../infra/engine/tokenizer'
import { buildWorldTokenizer } from '../infra/engine/world-tokenizer'
import { PolicyBatch, type SampledCompletion, type TokenSampler } from '../agent/policy/engine-policy'
import { rolloutBatch } from '../agent/rollout/group'
import { makeFixtureWorldData } from './fixtures/bench-fixture-world'
import { openFixtureWorld } from './fixtures/gym-fixture-world'

const data = makeFixtureWorldData(4)
const files = buildWorldTokenizer(data.docs.map((d) => `${d.title}\n${d.text}`), { vocabSize: 600 })
const tok = new TextTokenizer(files.tokenizerJson, files.tokenizerConfig as never)
const codec = new ChatCodec(tok, chatTemplateOf(tok, SIMPLE_QWEN_TEMPLATE))

/** TEST FIXTURE sampler: turn 1 a search call, turn 2 the answer; records each call's (prompts, n). */
class ScriptedSampler implements TokenSampler {
  readonly name = 'scripted'
  calls: { prompts: number; n: number }[] = []
  constructor(private readonly turns: number[][]) {}
  async sample(prompts: number[][], p: { n: number }): Promise<SampledCompletion[][]> {
    const ids = this.turns[this.calls.length]
    this.calls.push({ prompts: prompts.length, n: p.n })
    return prompts.map(() => Array.from({ length: p.n }, () => ({ tokenIds: [...ids, codec.endOfTurnId()], logprobs: ids.map((_, i) => -0.1 * (i + 1)).concat([-0.01]), finish: 'stop' as const })))
  }
}

it('keeps the exact prompt, sampled and observation ids; nothing is decoded and re-encoded between turns', async () => {
  const world = openFixtureWorld({ docs: data.docs, qa: data.qa })
  const qa = data.qa[0]
  const search = `<tool_call>\n{"name": "search", "arguments": {"query": "Arin Castell0"}}\n</tool_call>`
  // The answer's ids are spelled character by character: decode gives the same text, encode would give fewer ids.
  const answerText = `<answer>${qa.answer}</answer>`
  const answerIds = [...tok.encode('<answer>'), ...[...qa.answer].flatMap((ch) => tok.encode(ch)), ...tok.encode('</answer>')]
  expect(answerIds).not.toEqual(tok.encode(answerText))
  expect(tok.decode(answerIds)).toBe(answerText)
  const sampler = new ScriptedSampler([tok.encode(search), answerIds])
  const N = 3
  const items = Array.from({ length: N }, (_, j) => ({ qa, env: makeEnv(world, qa, { protocol: 'hermes', episode: j }) }))
  const batch = new PolicyBatch(codec, sampler, N, { maxTokensPerTurn: 200, maxContext: 100_000, seed: 0 })
  const rs = await rolloutBatch(items, batch, { scorer: scoreAnswer })
  expect(sampler.calls).toEqual([{ prompts: 1, n: N }, { prompts: 1, n: N }]) // one shared prefill per round (identical prompts)
  for (const r of rs) {
    expect(r.record.status).toBe('ok')
    expect(r.record.em).toBe(1)
    const { ids, sampled, logprobs } = r.seq
    const turns = r.record.turns
    // The sampled positions hold exactly the sampler's ids (answer ids as sampled, not re-encoded) and log-probs.
    const sampledIds = ids.filter((_, t) => sampled[t] === 1)
    expect(sampledIds).toEqual([...tok.encode(search), codec.endOfTurnId(), ...answerIds, codec.endOfTurnId()])
    expect(turns[1].tokens).toEqual([...answerIds, codec.endOfTurnId()])
    expect(logprobs.filter((_, t) => sampled[t] === 1)).toEqual([...turns[0].logprobs!, ...turns[1].logprobs!])
    // The whole sequence decodes to the template's rendering of the conversation.
    const conv: TemplateMessage[] = [...(r.record.initial as TemplateMessage[]), { role: 'assistant', content: search }, ...(turns[0].observation as TemplateMessage[]), { role: 'assistant', content: answerText }]
    const rendered = codec.template.render({ messages: conv })
    expect(tok.decode(ids)).toBe(rendered.slice(0, rendered.lastIndexOf('<|im_end|>') + '<|im_end|>'.length))
    // Prompt + observation ids are the tokenizer's encoding of their own text pieces.
    expect(ids.slice(0, sampled.indexOf(1))).toEqual(codec.renderPrompt(r.record.initial as TemplateMessage[]).ids)
  }
  await world.close()
})

// Tests for the server app (in-process, hono's app.request; the over-HTTP test with the openai client is in tests/):
// validation errors with codes, stop handling, usage, logprobs, Hermes tool calls, model routing.
import { ChatTemplate, SIMPLE_QWEN_TEMPLATE } from '../chat-template'
import { TextTokenizer } from '../tokenizer'
import { buildWorldTokenizer } from '../world-tokenizer'
import { createServerApp } from './app'
import { ChatService } from './chat-service'
import { FixtureReplyGenerator } from '../../../tests/fixtures/fixture-replies'
import type { ChatGenerator, GenerateParams, GeneratedSample } from './types'

const built = buildWorldTokenizer(['Marie Curie founded Acme Corporation in Zürich. Marie Curie founded Acme Corporation.'], { vocabSize: 600 })
const tok = new TextTokenizer(built.tokenizerJson, built.tokenizerConfig)
const template = new ChatTemplate(SIMPLE_QWEN_TEMPLATE)

/** Returns the given texts as token ids (+ EOS unless the text is cut by maxTokens) and records each call. */
class Scripted implements ChatGenerator {
  calls: GenerateParams[] = []
  constructor(private readonly texts: string[], private readonly eos = true) {}
  async generate(p: GenerateParams): Promise<GeneratedSample[]> {
    this.calls.push(p)
    return Array.from({ length: p.n }, (_, i) => {
      let ids = tok.encode(this.texts[i % this.texts.length])
      if (this.eos) ids.push(tok.special.eos)
      const finish = ids.length > p.maxTokens ? 'length' : 'stop'
      ids = ids.slice(0, p.maxTokens)
      return { tokenIds: ids, logprobs: ids.map((_, j) => -0.5 - j), finish }
    })
  }
}

function setup(gen: ChatGenerator, extra: { adapterId?: string; maxContext?: number } = {}) {
  const service = new ChatService({ modelId: 'tiny', tokenizer: tok, template, generator: gen, maxContext: extra.maxContext ?? 512, adapterId: extra.adapterId, seed: 7 })
  const app = createServerApp(service)
  const post = async (body: unknown) => {
    const res = await app.request('/v1/chat/completions', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } })
    return { status: res.status, json: (await res.json()) as Record<string, any> }
  }
  return { app, post }
}

const user = [{ role: 'user', content: 'Who founded Acme Corporation?' }]

describe('POST /v1/chat/completions', () => {
  it('answers with text, usage and finish_reason stop; passes sampling parameters through', async () => {
    const gen = new Scripted(['<answer>Marie Curie</answer>'])
    const { post } = setup(gen)
    const { status, json } = await post({ model: 'tiny', messages: user, temperature: 0.7, top_p: 0.9, top_k: 20, max_tokens: 50, seed: 3 })
    expect(status).toBe(200)
    expect(json.object).toBe('chat.completion')
    expect(json.choices[0].message).toEqual({ role: 'assistant', content: '<answer>Marie Curie</answer>' })
    expect(json.choices[0].finish_reason).toBe('stop')
    expect(json.choices[0].logprobs).toBeNull()
    const promptIds = tok.encode('<|im_start|>user\nWho founded Acme Corporation?<|im_end|>\n<|im_start|>assistant\n')
    expect(json.usage).toEqual({ prompt_tokens: promptIds.length, completion_tokens: tok.encode('<answer>Marie Curie</answer>').length + 1, total_tokens: promptIds.length + tok.encode('<answer>Marie Curie</answer>').length + 1 })
    expect(gen.calls[0]).toMatchObject({ promptIds, n: 1, temperature: 0.7, topP: 0.9, topK: 20, maxTokens: 50, seed: 3, useAdapter: false })
    expect(gen.calls[0].stopTokenIds).toContain(tok.special.eos)
  })

  it('returns n choices, per-token logprobs, and finish_reason length', async () => {
    const { post } = setup(new Scripted(['Marie Curie founded Acme Corporation'], false))
    const { json } = await post({ messages: user, n: 3, max_tokens: 2, logprobs: true })
    expect(json.choices).toHaveLength(3)
    for (const c of json.choices) {
      expect(c.finish_reason).toBe('length')
      expect(c.message.content).toBe('Marie Curie')
      expect(c.logprobs.content.map((x: { token: string }) => x.token)).toEqual(['Marie', ' Curie'])
      expect(c.logprobs.content.map((x: { logprob: number }) => x.logprob)).toEqual([-0.5, -1.5])
      expect(c.logprobs.content[1].bytes).toEqual([...Buffer.from(' Curie')])
    }
    expect(json.usage.completion_tokens).toBe(6)
  })

  it('cuts the text at a stop string', async () => {
    const { post } = setup(new Scripted(['Thinking. <answer>Marie Curie</answer> trailing']))
    const { json } = await post({ messages: user, stop: ['</answer>'], logprobs: true })
    expect(json.choices[0].message.content).toBe('Thinking. <answer>Marie Curie')
    expect(json.choices[0].finish_reason).toBe('stop')
    const toks = json.choices[0].logprobs.content.map((x: { token: string }) => x.token).join('')
    expect(toks.startsWith('Thinking. <answer>Marie Curie')).toBe(true)
    expect(toks).toContain('</answer>')
    expect(toks).not.toContain('trailing')
  })

  it('parses Hermes tool calls into tool_calls with finish_reason tool_calls when tools are given', async () => {
    const reply = 'I will search.\n<tool_call>\n{"name": "search", "arguments": {"query": "Acme founder"}}\n</tool_call>'
    const tools = [{ type: 'function', function: { name: 'search', description: 'Search.', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }]
    const gen = new FixtureReplyGenerator(tok, [reply])
    const { post } = setup(gen)
    const { json } = await post({ messages: user, tools })
    const c = json.choices[0]
    expect(c.finish_reason).toBe('tool_calls')
    expect(c.message.content).toBe('I will search.')
    expect(c.message.tool_calls).toHaveLength(1)
    expect(c.message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'search', arguments: '{"query":"Acme founder"}' } })
    // Without tools (or with tool_choice none) the same output stays text.
    const plain = await post({ messages: user })
    expect(plain.json.choices[0].message.content).toBe(reply)
    expect(plain.json.choices[0].finish_reason).toBe('stop')
    const none = await post({ messages: user, tools, tool_choice: 'none' })
    expect(none.json.choices[0].message.tool_calls).toBeUndefined()
  })

  it('renders tools and previous tool turns into the prompt', async () => {
    const gen = new Scripted(['ok'])
    const { post } = setup(gen)
    const messages = [
      ...user,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"query": "x"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'Acme was founded by Marie Curie.' },
    ]
    await post({ messages, tools: [{ type: 'function', function: { name: 'search' } }] })
    const prompt = tok.decode(gen.calls[0].promptIds)
    expect(prompt).toContain('<tools>\n{"type": "function", "function": {"name": "search"}}\n</tools>')
    expect(prompt).toContain('<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call><|im_end|>')
    expect(prompt).toContain('<tool_response>\nAcme was founded by Marie Curie.\n</tool_response>')
    expect(prompt.endsWith('<|im_start|>assistant\n')).toBe(true)
  })

  it('chooses adapter or base weights by model name', async () => {
    const gen = new Scripted(['ok'])
    const { post } = setup(gen, { adapterId: 'tiny-lora' })
    await post({ messages: user })
    await post({ messages: user, model: 'tiny' })
    const r = await post({ messages: user, model: 'tiny-lora' })
    expect(gen.calls.map((c) => c.useAdapter)).toEqual([true, false, true])
    expect(r.json.model).toBe('tiny-lora')
    const missing = await post({ messages: user, model: 'gpt-4' })
    expect(missing.status).toBe(404)
    expect(missing.json.error.code).toBe('model_not_found')
  })

  it('draws a seed per request when none is given, deterministically per server seed', async () => {
    const a = new Scripted(['ok'])
    const b = new Scripted(['ok'])
    const sa = setup(a)
    const sb = setup(b)
    for (let i = 0; i < 3; i++) {
      await sa.post({ messages: user })
      await sb.post({ messages: user })
    }
    expect(a.calls.map((c) => c.seed)).toEqual(b.calls.map((c) => c.seed))
    expect(new Set(a.calls.map((c) => c.seed)).size).toBe(3)
  })

  it.each([
    [{ messages: [] }, 'messages', 'invalid_type'],
    [{ messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role', 'invalid_value'],
    [{ messages: user, n: 0 }, 'n', 'invalid_value'],
    [{ messages: user, n: 1.5 }, 'n', 'invalid_type'],
    [{ messages: user, temperature: 3 }, 'temperature', 'invalid_value'],
    [{ messages: user, top_p: 0 }, 'top_p', 'invalid_value'],
    [{ messages: user, max_tokens: 0 }, 'max_tokens', 'invalid_value'],
    [{ messages: user, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', 'invalid_type'],
    [{ messages: user, stream: true }, 'stream', 'unsupported_parameter'],
    [{ messages: user, top_logprobs: 5, logprobs: true }, 'top_logprobs', 'unsupported_parameter'],
    [{ messages: user, tool_choice: 'required' }, 'tool_choice', 'unsupported_parameter'],
    [{ messages: user, tools: [{ type: 'function' }] }, 'tools[0]', 'invalid_type'],
    [{ messages: user, temprature: 1 }, 'temprature', 'unknown_parameter'],
    [{ messages: user, max_tokens: 10_000 }, 'messages', 'context_length_exceeded'],
  ])('rejects %j with a JSON error (param %s, code %s)', async (body, param, code) => {
    const gen = new Scripted(['ok'])
    const { post } = setup(gen)
    const { status, json } = await post(body)
    expect(status).toBe(400)
    expect(json.error).toMatchObject({ param, code, type: 'invalid_request_error' })
    expect(typeof json.error.message).toBe('string')
    expect(gen.calls).toHaveLength(0)
  })

  it('rejects a body that is not JSON, and answers unknown routes with 404 JSON', async () => {
    const { post, app } = setup(new Scripted(['ok']))
    const r = await post('{nope')
    expect(r.status).toBe(400)
    expect(r.json.error.code).toBe('invalid_json')
    const nf = await app.request('/v1/embeddings', { method: 'POST' })
    expect(nf.status).toBe(404)
    expect(((await nf.json()) as { error: { code: string } }).error.code).toBe('not_found')
  })

  it('turns a generator failure into a 500 JSON error', async () => {
    const { post } = setup({ generate: async () => { throw new Error('out of memory') } })
    const r = await post({ messages: user })
    expect(r.status).toBe(500)
    expect(r.json.error).toMatchObject({ code: 'internal_error', type: 'server_error' })
    expect(r.json.error.message).toContain('out of memory')
  })
})

describe('GET routes', () => {
  it('lists models and reports health', async () => {
    const { app } = setup(new Scripted(['ok']), { adapterId: 'lora' })
    const models = (await (await app.request('/v1/models')).json()) as { data: { id: string }[] }
    expect(models.data.map((m) => m.id)).toEqual(['tiny', 'lora'])
    const health = (await (await app.request('/health')).json()) as { status: string; queue: number }
    expect(health).toMatchObject({ status: 'ok', queue: 0 })
  })
})

describe('bodies that nest too deep', () => {
  it('tool-call arguments 20,000 levels deep are a 400 naming the bound, not a stack overflow (500)', async () => {
    const { app } = setup(new Scripted(['ok']))
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)
    const body = `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":${deep}}}]},{"role":"tool","tool_call_id":"c1","content":"x"}],"max_tokens":2}`
    for (const path of ['/v1/chat/completions', '/v1/completions']) {
      const res = await app.request(path, { method: 'POST', body: path === '/v1/completions' ? `{"prompt":[1],"x":${deep}}` : body, headers: { 'content-type': 'application/json' } })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('nests deeper than 64 levels')
    }
  })
})

describe('request log lines (issue 47)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
  class Failing implements ChatGenerator {
    constructor(private readonly err: () => Error) {}
    async generate(): Promise<GeneratedSample[]> {
      await sleep(60)
      throw this.err()
    }
  }
  async function logged(gen: ChatGenerator) {
    const lines: { status: number; ms: number }[] = []
    const service = new ChatService({ modelId: 'tiny', tokenizer: tok, template, generator: gen, maxContext: 512, seed: 7 })
    const app = createServerApp(service, { onRequest: (i) => lines.push({ status: i.status, ms: i.ms }) })
    await app.request('/v1/chat/completions', { method: 'POST', body: JSON.stringify({ messages: user }), headers: { 'content-type': 'application/json' } })
    return lines
  }

  it('a generation cut because the client left is logged 499 (not 400) with its real duration', async () => {
    const { HttpError } = await import('../../http/errors')
    const [l] = await logged(new Failing(() => new HttpError(400, 'client_gone', 'the client disconnected; its generation was stopped')))
    expect(l.status).toBe(499)
    expect(l.ms).toBeGreaterThanOrEqual(50)
  })

  it('an engine failure is logged with its real duration, not 0 ms', async () => {
    const [l] = await logged(new Failing(() => new Error('boom')))
    expect(l.status).toBe(500)
    expect(l.ms).toBeGreaterThanOrEqual(50)
  })
})

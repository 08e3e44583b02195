// tests/model-serve: `searchgym model serve` as a real child process on 127.0.0.1 (free port), driven over HTTP by the
// official `openai` client (v7). A tiny random Qwen3 with a world tokenizer samples for real; a random model never
// writes tool calls, so the tool_calls path is driven by a second server started from the test-only entry that injects
// the scripted-replies TEST FIXTURE (tests/fixtures/scripted-cli.mjs: canned reply texts forced through the model, which
// still scores them — the log-probs are the model's).
import OpenAI from 'openai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../infra/rng'
import { initModel } from '../infra/engine/init-model'
import { createLoraAdapter, saveLoraAdapter } from '../infra/engine/lora'
import { loadModelConfig } from '../infra/engine/config'
import { createTsBackend } from '../infra/engine/ts-backend'
import { startServe, type ServeProcess } from './helpers/cli-process'
import { scriptedRepliesEnv } from './fixtures/scripted-replies'
import { writeTinyWorld } from './fixtures/docs-only-world'
import { worldTokenizer } from './helpers/world-texts'

const tmp = mkdtempSync(join(tmpdir(), 'model-serve-'))
const modelDir = join(tmp, 'tiny')
const adapterDir = join(tmp, 'tiny-lora')
const searchTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the world for documents.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
}
const question: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a search agent.' },
  { role: 'user', content: 'Who founded Acme Corporation?' },
]

let sampling: ServeProcess
let fixture: ServeProcess

beforeAll(async () => {
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(writeTinyWorld(join(tmp, 'world'))), out: modelDir, seed: 1 })
  // An adapter with B ≠ 0, so sampling with it differs from the base model.
  const be = createTsBackend()
  const rng = new Rng(9)
  const adapter = createLoraAdapter(be, loadModelConfig(modelDir), { rank: 4, alpha: 8, targets: ['q', 'v', 'down'] }, rng)
  for (const p of adapter.params()) {
    if (!p.name.includes('lora_B')) continue
    const host = Float32Array.from({ length: p.tensor.shape[0] * p.tensor.shape[1] }, () => rng.normal(0, 0.5))
    be.writeRows(p.tensor, 0, be.fromHost(host, p.tensor.shape))
  }
  saveLoraAdapter(adapterDir, adapter, be, modelDir)
  writeFileSync(
    join(tmp, 'replies.json'),
    JSON.stringify([
      'I will search first.\n<tool_call>\n{"name": "search", "arguments": {"query": "Acme Corporation founder"}}\n</tool_call>',
      '<answer>Marie Curie</answer>',
    ]),
  )
  ;[sampling, fixture] = await Promise.all([
    startServe([modelDir, '--adapter', adapterDir, '--set', 'seed=5', '--set', 'quiet=true']),
    startServe([modelDir, '--name', 'tiny-fixture', '--quiet'], 60_000, scriptedRepliesEnv(join(tmp, 'replies.json'))),
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([sampling?.stop(), fixture?.stop()])
  rmSync(tmp, { recursive: true, force: true })
})

const client = (s: ServeProcess) => new OpenAI({ baseURL: s.baseURL, apiKey: 'local', maxRetries: 0, timeout: 60_000 })

describe('model serve (sampling a tiny random Qwen3)', () => {
  it('lists the base model and the adapter', async () => {
    const models = await client(sampling).models.list()
    expect(models.data.map((m) => m.id)).toEqual(['tiny', 'tiny-lora'])
  })

  it('answers chat completions with n choices, logprobs, usage and length/stop finish reasons', async () => {
    const r = await client(sampling).chat.completions.create({ model: 'tiny-lora', messages: question, tools: [searchTool], n: 2, max_tokens: 8, temperature: 1, top_p: 0.95, logprobs: true, seed: 11 })
    expect(r.object).toBe('chat.completion')
    expect(r.model).toBe('tiny-lora')
    expect(r.choices).toHaveLength(2)
    let completion = 0
    for (const c of r.choices) {
      expect(['stop', 'length', 'tool_calls']).toContain(c.finish_reason)
      const lp = c.logprobs?.content ?? []
      expect(lp.length).toBeGreaterThan(0)
      expect(lp.length).toBeLessThanOrEqual(8)
      for (const t of lp) {
        expect(Number.isFinite(t.logprob)).toBe(true)
        expect(t.logprob).toBeLessThanOrEqual(0)
      }
      completion += c.finish_reason === 'length' ? 8 : lp.length + 1
    }
    expect(r.usage!.prompt_tokens).toBeGreaterThan(50) // the tools block of the system turn
    expect(r.usage!.completion_tokens).toBe(completion)
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens)
  })

  it('same seed gives the same completion; the adapter and the base model differ', async () => {
    const ask = (model: string, seed: number) =>
      client(sampling).chat.completions.create({ model, messages: question, max_tokens: 12, seed, logprobs: true })
    const a = await ask('tiny-lora', 21)
    const b = await ask('tiny-lora', 21)
    const base = await ask('tiny', 21)
    const lps = (r: OpenAI.Chat.Completions.ChatCompletion) => r.choices[0].logprobs!.content!.map((t) => t.logprob)
    expect(b.choices[0].message.content).toBe(a.choices[0].message.content)
    expect(lps(b)).toEqual(lps(a))
    expect(lps(base)).not.toEqual(lps(a))
  })

  it('queues concurrent requests to the single engine and answers them all', async () => {
    const c = client(sampling)
    const rs = await Promise.all([1, 2, 3].map((seed) => c.chat.completions.create({ model: 'tiny-lora', messages: question, max_tokens: 4, seed })))
    expect(rs.map((r) => r.choices.length)).toEqual([1, 1, 1])
  })

  it('rejects bad requests with OpenAI-style errors carrying a code', async () => {
    const c = client(sampling)
    await expect(c.chat.completions.create({ model: 'tiny', messages: question, temperature: 5 })).rejects.toMatchObject({ status: 400, code: 'invalid_value', param: 'temperature' })
    await expect(c.chat.completions.create({ messages: question, model: 'gpt-9' })).rejects.toMatchObject({ status: 404, code: 'model_not_found' })
    await expect(c.chat.completions.create({ model: 'tiny', messages: question, max_tokens: 100_000 })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' })
    await expect(c.chat.completions.create({ model: 'tiny', messages: [] })).rejects.toBeInstanceOf(OpenAI.BadRequestError)
  })

  it('answers /health', async () => {
    const res = await fetch(sampling.baseURL.replace(/\/v1$/, '/health'))
    expect(await res.json()).toMatchObject({ status: 'ok', models: ['tiny', 'tiny-lora'] })
  })
})

describe('model serve with scripted replies (TEST FIXTURE: forced replies, real model log-probs)', () => {
  it('returns Hermes output as OpenAI tool_calls, then the final answer after the tool result', async () => {
    const c = client(fixture)
    const first = await c.chat.completions.create({ model: 'tiny-fixture', messages: question, tools: [searchTool], logprobs: true })
    const choice = first.choices[0]
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.content).toBe('I will search first.')
    const call = choice.message.tool_calls![0]
    expect(call.type).toBe('function')
    if (call.type !== 'function') throw new Error('expected a function call')
    expect(call.function.name).toBe('search')
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'Acme Corporation founder' })
    // The forced tokens are scored by the real model: finite, negative, not all equal.
    const lps = choice.logprobs!.content!.map((t) => t.logprob)
    expect(lps.every((x) => Number.isFinite(x) && x < 0)).toBe(true)
    expect(new Set(lps).size).toBeGreaterThan(1)
    expect(choice.logprobs!.content!.map((t) => t.token).join('')).toContain('<tool_call>')

    const second = await c.chat.completions.create({
      model: 'tiny-fixture',
      messages: [...question, choice.message, { role: 'tool', tool_call_id: call.id, content: 'Acme Corporation was founded by Marie Curie.' }],
      tools: [searchTool],
    })
    expect(second.choices[0].finish_reason).toBe('stop')
    expect(second.choices[0].message.content).toBe('<answer>Marie Curie</answer>')
    expect(second.choices[0].message.tool_calls).toBeUndefined()
    expect(second.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens)
  })

  it('a stop string cuts the reply (the unclosed final tool call still parses)', async () => {
    const r = await client(fixture).chat.completions.create({ model: 'tiny-fixture', messages: question, tools: [searchTool], stop: ['</tool_call>'] })
    // The fixture cycles: this request gets reply 1 again after the two above.
    expect(r.choices[0].finish_reason).toBe('tool_calls')
    expect(r.choices[0].message.tool_calls).toHaveLength(1)
  })
})

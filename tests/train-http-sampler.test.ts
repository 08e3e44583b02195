// tests/train-http-sampler: `model serve`'s POST /v1/completions over real HTTP (loopback) with token-id prompts and
// per-token log-probs, read by the trainer's HttpSampler: the same ids and log-probs as the in-process engine
// sampler for the same prompt and seed; a text prompt or an unknown key is a 400 with a clear message.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { initModel, loadModel, serveModel, type ServedModel } from '../infra/engine'
import { HttpSampler } from '../agent/policy/http-sampler'
import { EngineSampler } from '../agent/policy/engine-sampler'
import { loadTokenizer } from '../infra/engine/tokenizer'
import { writeTinyWorld } from './fixtures/docs-only-world'
import { worldTokenizer } from './helpers/world-texts'

const dir = mkdtempSync(join(tmpdir(), 'sg-http-sampler-'))
let server: ServedModel | undefined
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

it('/v1/completions answers token-id prompts with the ids and log-probs the in-process sampler gives', async () => {
  const w = writeTinyWorld(join(dir, 'w'))
  const modelDir = join(dir, 'model')
  initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(w), out: modelDir, seed: 0 })
  server = await serveModel({ dir: modelDir, port: 0, seed: 0 })
  const tok = loadTokenizer(modelDir)
  const prompt = tok.encode('<|im_start|>user\nWho founded Acme Corporation?<|im_end|>\n<|im_start|>assistant\n')
  const params = { temperature: 1, topP: 1, topK: 0 }
  const http = new HttpSampler({ baseURL: `${server.url}/v1`, ...params })
  const local = new EngineSampler(loadModel(modelDir), { ...params, stopIds: tok.special.stop })
  const a = await http.sample([prompt], { n: 2, maxTokens: 12, seed: 7 })
  const b = await local.sample([prompt], { n: 2, maxTokens: 12, seed: 7 })
  expect(a[0]).toHaveLength(2)
  expect(a[0].map((s) => s.tokenIds)).toEqual(b[0].map((s) => s.tokenIds))
  a[0].forEach((s, i) => s.logprobs.forEach((lp, t) => expect(lp).toBeCloseTo(b[0][i].logprobs[t], 4)))
  expect(a[0][0].tokenIds.length).toBeGreaterThan(0)

  const bad = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'text, not ids', max_tokens: 4 }) })
  expect(bad.status).toBe(400)
  expect(JSON.stringify(await bad.json())).toMatch(/token ids, not text/)
  const unk = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, bogus: 1 }) })
  expect(unk.status).toBe(400)
  expect(JSON.stringify(await unk.json())).toMatch(/unknown parameter 'bogus'/)
}, 300_000)

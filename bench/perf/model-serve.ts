// bench/perf/model-serve: the serving path around the engine — tokenizer speed (real Qwen3), world-tokenizer build, and
// /v1/chat/completions over real HTTP (infra/http/chat-client, the official openai client) against direct engine.generate() on the same prompt,
// so the server's overhead (template, tokenizer, queue, HTTP, JSON) is visible. Usage:
//   node bin/run-ts.mjs bench/perf/model-serve.ts [--tokens 32] [--reps 3]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatTemplateOf } from '../../infra/engine/chat-template'
import { ChatEndpoint, type RetryPolicy } from '../../infra/http/chat-client'
import { initModel } from '../../infra/engine/init-model'
import { loadModel } from '../../infra/engine/model'
import { generate } from '../../infra/engine/sample'
import { serveModel } from '../../infra/engine/serve-model'
import { loadQwen3Tokenizer, loadTokenizer } from '../../infra/engine/tokenizer'
import { buildWorldTokenizer } from '../../infra/engine/world-tokenizer'
import { Rng } from '../../infra/rng'
import { buildTinyWorld, perfArgs, worldTokenizer } from './perf-kit'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/model-serve.ts [--tokens 32] [--reps 3]', {
  tokens: { type: 'string', default: '32' },
  reps: { type: 'string', default: '3' },
})
const maxTokens = Number(opt.tokens)
const reps = Number(opt.reps)
const ms = (t0: number) => performance.now() - t0
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

// Synthetic English-like corpus from a seeded word list (no network, deterministic).
const rng = new Rng(1)
const syll = ['ac', 'me', 'cor', 'po', 'ra', 'tion', 'ma', 'rie', 'cu', 'zu', 'rich', 'war', 'saw', 'lin', 'den', 'ton', 'ber', 'gen']
const words = Array.from({ length: 3000 }, () => Array.from({ length: rng.int(1, 3) }, () => rng.pick(syll)).join(''))
const docs = Array.from({ length: 2000 }, () => Array.from({ length: 120 }, () => rng.pick(words)).join(' ') + '.')
const corpusChars = docs.reduce((a, d) => a + d.length, 0)

let t0 = performance.now()
const qwen = loadQwen3Tokenizer()
const qwenLoadMs = ms(t0)
t0 = performance.now()
let nTok = 0
const sample = docs.slice(0, 300)
const encoded = sample.map((d) => qwen.encode(d))
for (const e of encoded) nTok += e.length
const encMs = ms(t0)
t0 = performance.now()
for (const e of encoded) qwen.decode(e)
const decMs = ms(t0)
t0 = performance.now()
const world = buildWorldTokenizer(docs, { vocabSize: 4096 })
const worldMs = ms(t0)

const tmp = mkdtempSync(join(tmpdir(), 'bench-serve-'))
const rows: string[] = []
try {
  for (const tk of ['world', 'qwen3'] as const) {
    const dir = join(tmp, tk)
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: tk === 'qwen3' ? { kind: 'qwen3' } : worldTokenizer(await buildTinyWorld(tmp)), out: dir, seed: 1 })
    const tok = loadTokenizer(dir)
    const model = loadModel(dir)
    const messages = [{ role: 'system' as const, content: 'You are a search agent.' }, { role: 'user' as const, content: 'Who founded Acme Corporation?' }]
    const promptIds = tok.encode(chatTemplateOf(tok).render({ messages, addGenerationPrompt: true }))
    const direct: number[] = []
    for (let i = 0; i < reps; i++) {
      t0 = performance.now()
      // eosTokenIds [] so every run generates exactly maxTokens.
      generate(model, promptIds, { maxNewTokens: maxTokens, seed: i, eosTokenIds: [] })
      direct.push(ms(t0))
    }
    const server = await serveModel({ dir, port: 0 })
    const client = new ChatEndpoint({ baseURL: `${server.url}/v1`, apiKey: 'local', timeoutMs: 600_000 })
    const once: RetryPolicy = { maxRetries: 0, retryable: () => false, backoffMs: () => 0 }
    const http: number[] = []
    let completion = 0
    for (let i = 0; i < reps; i++) {
      t0 = performance.now()
      const r = await client.complete({ model: tk, messages, max_tokens: maxTokens, seed: i, logprobs: true }, { retry: once })
      http.push(ms(t0))
      completion = r.usage!.completionTokens
    }
    await server.close()
    const d = median(direct)
    const h = median(http)
    rows.push(
      `| tiny, ${tk} tokenizer (V=${model.config.vocabSize}) | ${promptIds.length} | ${maxTokens} | ${d.toFixed(0)} ms (${((maxTokens * 1000) / d).toFixed(1)} tok/s) | ` +
        `${h.toFixed(0)} ms (${((completion * 1000) / h).toFixed(1)} tok/s, ${completion} tokens) | ${(h / d).toFixed(2)} |`,
    )
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}

console.log(`## model serve and tokenizers (bench/perf/model-serve.ts, --tokens ${maxTokens} --reps ${reps}, medians)\n`)
console.log(`- Qwen3 tokenizer: load ${qwenLoadMs.toFixed(0)} ms; encode ${((nTok * 1000) / encMs / 1000).toFixed(0)}k tokens/s, decode ${((nTok * 1000) / decMs / 1000).toFixed(0)}k tokens/s (${nTok} tokens)`)
console.log(`- world tokenizer build: ${docs.length} docs, ${(corpusChars / 1e6).toFixed(2)} M chars, vocab ${world.stats.vocabSize} (${world.stats.wordTokens} words) in ${worldMs.toFixed(0)} ms`)
console.log(`\n| model | prompt tokens | new tokens | engine.generate direct | POST /v1/chat/completions (openai client) | HTTP / direct |\n| --- | --- | --- | --- | --- | --- |`)
for (const r of rows) console.log(r)

// tests/model-cli: `searchgym model init` as a real child process — the real Qwen3 tokenizer with Qwen3's embedding rows,
// a world tokenizer from a world folder, and one-line errors with a non-zero exit for bad input.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadTokenizer, qwen3TokenizerDir } from '../infra/engine/tokenizer'
import { readSafetensorsHeader } from '../infra/engine/safetensors'
import { runCli } from './helpers/cli-process'
import { writeTinyWorld } from './fixtures/docs-only-world'
import Database from 'better-sqlite3'

const tmp = mkdtempSync(join(tmpdir(), 'model-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

test('model init --tokenizer qwen3: the real tokenizer, vocab_size 151936, loadable weights', async () => {
  const out = join(tmp, 'tiny-qwen3')
  const r = await runCli(['model', 'init', '--set', 'arch=qwen3', '--preset', 'tiny', '--tokenizer', 'qwen3', '--out', out, '--seed', '3', '--set', 'dtype=bf16'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/model init: .*qwen3 tiny, 9\.80M parameters .*V=151936.*151669 ids/)
  const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Record<string, unknown>
  expect(cfg).toMatchObject({ model_type: 'qwen3', vocab_size: 151936, eos_token_id: [151645, 151643], torch_dtype: 'bfloat16', tie_word_embeddings: true })
  const header = readSafetensorsHeader(join(out, 'model.safetensors'))
  expect(JSON.stringify(header)).toContain('"model.embed_tokens.weight"')
  const tok = loadTokenizer(out)
  expect(tok.encode('Hello world')).toEqual([9707, 1879])
  expect(tok.chatTemplate()).toContain('enable_thinking')
  expect(JSON.parse(readFileSync(join(out, 'generation_config.json'), 'utf8')).eos_token_id).toEqual([151645, 151643])
})

test('model init --tokenizer world:DIR builds the world tokenizer', async () => {
  const world = writeTinyWorld(join(tmp, 'world'))
  const out = join(tmp, 'tiny-world')
  const r = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', out])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/words from 4 docs/)
  expect(loadTokenizer(out).tokens(' Marie Curie')).toEqual(['ĠMarie', 'ĠCurie'])
})

test('bad input: one line on stderr and a non-zero exit', async () => {
  const r = await runCli(['model', 'init', '--tokenizer', 'gpt2', '--out', join(tmp, 'x')])
  expect(r.code).not.toBe(0)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).toMatch(/^searchgym: error: tokenizer \(--tokenizer\) 'gpt2' is not understood/)
  expect(existsSync(join(tmp, 'x', 'model.safetensors'))).toBe(false)
  const s = await runCli(['model', 'serve', join(tmp, 'nowhere')])
  expect(s.code).not.toBe(0)
  expect(s.stderr).toMatch(/^searchgym: error: no config.json in /)
})

test('model serve refuses a tokenizer larger than the model vocabulary', async () => {
  const world = writeTinyWorld(join(tmp, 'world-mismatch'))
  const out = join(tmp, 'mismatch')
  expect((await runCli(['model', 'init', '--tokenizer', `world:${world}`, '--out', out])).code).toBe(0)
  // Swap in the real Qwen3 tokenizer (151,669 ids) for the world one.
  const q = qwen3TokenizerDir()
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) writeFileSync(join(out, f), readFileSync(join(q, f)))
  const r = await runCli(['model', 'serve', out, '--port', '0'])
  expect(r.code).not.toBe(0)
  expect(r.stderr).toMatch(/the tokenizer has 151669 ids but the model only \d+ embedding rows/)
})

test('model init nameTokens, tagTokens (old flags --name-tokens --tag-tokens): each entity name and search-r1 tag is one token; without a world, one-line errors', async () => {
  const world = writeTinyWorld(join(tmp, 'world-names'))
  const db = new Database(join(world, 'world.db'))
  db.exec("CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL); INSERT INTO entities VALUES ('e1', 'Marie Curie'), ('e2', 'Acme Corporation')")
  db.close()
  const out = join(tmp, 'tiny-names')
  const r = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}@2048`, '--name-tokens', '--tag-tokens', '--out', out])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/words from 4 docs, 21 added tokens\)/)
  const tok = loadTokenizer(out)
  expect(tok.tokens('<search> Marie Curie </search>')).toEqual(['<search>', ' Marie Curie', 'Ġ', '</search>'])
  expect(tok.tokens('Acme Corporation')).toEqual(['Acme Corporation'])
  const q = await runCli(['model', 'init', '--tokenizer', 'qwen3', '--set', 'nameTokens=true', '--out', join(tmp, 'names-qwen3')])
  expect(q.code).not.toBe(0)
  expect(q.stderr.trim().split('\n')).toHaveLength(1)
  expect(q.stderr).toMatch(/^searchgym: error: nameTokens \(--set\) needs a world tokenizer/)
  const bare = writeTinyWorld(join(tmp, 'world-no-entities'))
  const n = await runCli(['model', 'init', '--tokenizer', `world:${bare}`, '--set', 'nameTokens=true', '--out', join(tmp, 'names-bare')])
  expect(n.code).not.toBe(0)
  expect(n.stderr.trim().split('\n')).toHaveLength(1)
  expect(n.stderr).toMatch(/has no readable entities\(id, name\) table/)
})

test('model init --tokenizer bpe:DIR1,DIR2@VOCAB, ropeTheta, headDim: sub-word pieces of both worlds and the name lists', async () => {
  const a = writeTinyWorld(join(tmp, 'bpe-a'))
  const b = writeTinyWorld(join(tmp, 'bpe-b'))
  const out = join(tmp, 'tiny-bpe')
  const r = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `bpe:${a},${b}@2048`, '--set', 'ropeTheta=10000', '--set', 'headDim=24', '--out', out])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/D=24 V=2048, rope θ 10000\), tokenizer bpe:.*\(2048 ids, \d+ merges from 8 docs \+ the name lists\)/)
  const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Record<string, unknown>
  expect(cfg).toMatchObject({ rope_theta: 10000, head_dim: 24, vocab_size: 2048 })
  // q_proj: heads × head dim (4 × 24) rows of hidden (64) columns.
  expect(readSafetensorsHeader(join(out, 'model.safetensors')).entries['model.layers.0.self_attn.q_proj.weight'].shape).toEqual([96, 64])
  const tok = loadTokenizer(out)
  // Names never in the pages, from the name generator's lists (German, French, Italian, Spanish last names): pieces,
  // not letters — at most 4 ids each and half an id per character overall.
  const unseen = [' Schmidt', ' Dubois', ' Müller', ' Rossi', ' García']
  for (const name of unseen) expect(tok.tokens(name).length).toBeLessThanOrEqual(4)
  expect(unseen.reduce((n, s) => n + tok.tokens(s).length, 0)).toBeLessThanOrEqual(unseen.join('').length / 2)
  expect(tok.decode(tok.encode('<tool_call> Zürichsee Ōsaka'))).toBe('<tool_call> Zürichsee Ōsaka')
  const bad = await runCli(['model', 'init', '--tokenizer', `bpe:${a}`, '--set', 'headDim=15', '--out', join(tmp, 'bpe-bad')])
  expect(bad.code).not.toBe(0)
  expect(bad.stderr.trim().split('\n')).toHaveLength(1)
  expect(bad.stderr).toMatch(/^searchgym: error: headDim \(--set\) must be even \(RoPE rotates pairs\), got 15/)
})

// Tests for init-model: random model folders with a world tokenizer load back as model + tokenizer. (The Qwen3-tokenizer
// case runs as a CLI child process in tests/model-cli.test.ts: its 9.8M random weights are slow inside jest's VM.)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTinyWorld } from '../../tests/fixtures/docs-only-world'
import { chatTemplateOf } from './chat-template'
import { initModel } from './init-model'
import { parseTokenizerSource } from './init-config'
import { loadModel } from './model'
import { loadTokenizer } from './tokenizer'
import { worldTokenizer } from '../../tests/helpers/world-texts'

const tmp = mkdtempSync(join(tmpdir(), 'init-model-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('initModel', () => {
  it('world tokenizer: a loadable tiny Qwen3 with a small vocabulary and a chat template', () => {
    const world = writeTinyWorld(join(tmp, 'world'))
    const out = join(tmp, 'tiny-world')
    const r = initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out, seed: 1 })
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json']) {
      expect(existsSync(join(out, f))).toBe(true)
    }
    const tok = loadTokenizer(out)
    expect(r.config.vocabSize % 64).toBe(0)
    expect(r.config.vocabSize).toBeGreaterThanOrEqual(tok.vocabSize)
    expect(r.config.vocabSize).toBeLessThan(4096)
    const model = loadModel(out)
    expect(model.config).toEqual(r.config)
    const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Record<string, unknown>
    expect(cfg).toMatchObject({ model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], vocab_size: r.config.vocabSize, eos_token_id: tok.special.stop })
    const gen = JSON.parse(readFileSync(join(out, 'generation_config.json'), 'utf8')) as Record<string, unknown>
    expect(gen.eos_token_id).toEqual(tok.special.stop)
    expect(chatTemplateOf(tok).render({ messages: [{ role: 'user', content: 'hi' }], addGenerationPrompt: true })).toContain('<|im_start|>assistant\n')
    expect(tok.tokens(' Marie Curie')).toEqual(['ĠMarie', 'ĠCurie'])
  })

  it('same seed gives the same bytes; another seed other weights', () => {
    const world = writeTinyWorld(join(tmp, 'world2'))
    const a = join(tmp, 'a'), b = join(tmp, 'b'), c = join(tmp, 'c')
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: a, seed: 5 })
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: b, seed: 5 })
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: c, seed: 6 })
    for (const f of ['model.safetensors', 'tokenizer.json', 'config.json']) {
      expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f)))).toBe(true)
    }
    expect(readFileSync(join(a, 'model.safetensors')).equals(readFileSync(join(c, 'model.safetensors')))).toBe(false)
  })

  it('embedStd scales the embedding draws and qkNormWeight sets the q/k-norm gains; every other weight is unchanged', () => {
    const world = writeTinyWorld(join(tmp, 'world4'))
    const a = join(tmp, 'scale-default'), b = join(tmp, 'scale-demo')
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: a, seed: 5 })
    initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: b, seed: 5, embedStd: 0.25, qkNormWeight: 2.5 })
    const tensors = (dir: string): Map<string, Float32Array> => {
      const buf = readFileSync(join(dir, 'model.safetensors'))
      const n = Number(buf.readBigUInt64LE(0))
      const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8')) as Record<string, { dtype: string; data_offsets: [number, number] }>
      const out = new Map<string, Float32Array>()
      for (const [name, t] of Object.entries(header)) {
        if (name === '__metadata__') continue
        expect(t.dtype).toBe('F32')
        const bytes = buf.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1])
        out.set(name, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)))
      }
      return out
    }
    const ta = tensors(a), tb = tensors(b)
    expect([...tb.keys()].sort()).toEqual([...ta.keys()].sort())
    for (const [name, x] of ta) {
      const y = tb.get(name)!
      if (name === 'model.embed_tokens.weight') {
        for (let i = 0; i < x.length; i += 97) expect(y[i]).toBeCloseTo(x[i] * 12.5, 5)
      } else if (name.endsWith('q_norm.weight') || name.endsWith('k_norm.weight')) {
        expect([...x].every((v) => v === 1)).toBe(true)
        expect([...y].every((v) => v === 2.5)).toBe(true)
      } else expect(Buffer.from(y.buffer).equals(Buffer.from(x.buffer))).toBe(true)
    }
  })

  it('other architectures switch their flags', () => {
    const world = writeTinyWorld(join(tmp, 'world3'))
    const r = initModel({ arch: 'qwen2', preset: 'tiny', tokenizer: worldTokenizer(world), out: join(tmp, 'q2'), seed: 1 })
    expect(r.config).toMatchObject({ arch: 'qwen2', qkNorm: false, qkvBias: true })
    expect(loadModel(join(tmp, 'q2')).config.arch).toBe('qwen2')
  })

  it('refuses a non-empty folder unless forced, and explains bad tokenizer sources', () => {
    const out = join(tmp, 'busy')
    writeTinyWorld(out)
    expect(() => initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(out), out, seed: 1 })).toThrow(/not empty/)
    expect(() => parseTokenizerSource('gpt2')).toThrow(/use qwen3 or world:DIR/)
    expect(parseTokenizerSource('world:worlds/a')).toEqual({ kind: 'world', dir: 'worlds/a' })
    expect(parseTokenizerSource('world:worlds/a@2048')).toEqual({ kind: 'world', dir: 'worlds/a', vocabSize: 2048 })
    expect(parseTokenizerSource('bpe:worlds/a')).toEqual({ kind: 'bpe', dirs: ['worlds/a'] })
    expect(parseTokenizerSource('bpe:worlds/a,worlds/b@8192')).toEqual({ kind: 'bpe', dirs: ['worlds/a', 'worlds/b'], vocabSize: 8192 })
    expect(() => parseTokenizerSource('bpe:worlds/a,,worlds/b')).toThrow(/empty world folder/)
    expect(() => parseTokenizerSource('bpe:')).toThrow(/or bpe:DIR1,DIR2/)
    writeFileSync(join(tmp, 'empty.db'), '')
    expect(() => initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(join(tmp, 'nowhere')), out: join(tmp, 'x'), seed: 1 })).toThrow(/no world database/)
  })

  it('--rope-theta and --head-dim replace the preset\'s; bad values are refused before anything is written', () => {
    const world = writeTinyWorld(join(tmp, 'world-attn'))
    const out = join(tmp, 'attn')
    const r = initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out, seed: 1, ropeTheta: 10000, headDim: 24 })
    expect(r.config).toMatchObject({ ropeTheta: 10000, headDim: 24, hiddenSize: 64, numHeads: 4 })
    expect(loadModel(out).config).toEqual(r.config)
    for (const bad of [{ headDim: 15 }, { headDim: 0 }, { ropeTheta: -1 }, { ropeTheta: Number.NaN }]) {
      const o = join(tmp, `attn-bad-${Object.values(bad)[0]}`)
      expect(() => initModel({ arch: 'qwen3', preset: 'tiny', tokenizer: worldTokenizer(world), out: o, seed: 1, ...bad })).toThrow(/headDim must be|ropeTheta must be/)
      expect(existsSync(o)).toBe(false)
    }
  })
})

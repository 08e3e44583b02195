/** @jest-environment ./world/search/embed/ort-jest-environment.cjs */
// world/search/embed/embedder.test: the ONNX embedder (real onnxruntime-node, real model file written here) against a
// reference computed independently with plain TypeScript matrix code over the same weights; settings and errors.
import { Tokenizer } from '@huggingface/tokenizers'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { contractCorpus } from '../search-index.contract'
import { Embedder } from './embedder'
import { writeTinyEmbedder, type TinyModelWeights } from './tiny-model'

let dir: string
let weights: TinyModelWeights
const texts = contractCorpus().map((d) => `${d.title}\n${d.text}`)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sg-embed-'))
  weights = writeTinyEmbedder(dir, { texts, hidden: 48, seed: 5, settings: { queryPrefix: 'query: ', passagePrefix: 'passage: ' } })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Reference: tanh(E[id]·W + b)·gain[id] per token, mean (or first token), L2-normalised — plain loops over the weights. */
function reference(ids: number[], pooling: 'mean' | 'cls', normalize = true): number[] {
  const { hidden: h, embedding: E, dense: W, bias: b, gain: g } = weights
  const rows = ids.map((id) => {
    const out: number[] = []
    for (let j = 0; j < h; j++) {
      let s = b[j]
      for (let i = 0; i < h; i++) s += E[id * h + i] * W[i * h + j]
      out.push(Math.tanh(s) * g[id])
    }
    return out
  })
  const pooled = pooling === 'cls' ? rows[0] : rows[0].map((_, j) => rows.reduce((a, r) => a + r[j], 0) / rows.length)
  if (!normalize) return pooled
  const n = Math.hypot(...pooled)
  return pooled.map((x) => x / n)
}

function refIds(text: string): number[] {
  const tok = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {})
  return tok.encode(text, { add_special_tokens: true }).ids
}

describe('Embedder', () => {
  it('equals the plain-TypeScript reference (mean pooling, query/passage prefixes, normalised)', async () => {
    const e = await Embedder.load(dir)
    try {
      expect(e.dim).toBe(48)
      expect(e.identity.fileHash).toMatch(/^[0-9a-f]{64}$/)
      const [q] = await e.embedQueries(['Where was Mabel Smith born?'])
      const [p, p2] = await e.embedPassages(['Zoë Müller is a composer from Zürich.', 'Twin Hall'])
      const cases: [Float32Array, string][] = [
        [q, 'query: Where was Mabel Smith born?'],
        [p, 'passage: Zoë Müller is a composer from Zürich.'],
        [p2, 'passage: Twin Hall'],
      ]
      for (const [got, text] of cases) {
        const ids = refIds(text)
        expect(ids.length).toBeGreaterThan(2)
        const want = reference(ids, 'mean')
        expect(got.length).toBe(want.length)
        for (let j = 0; j < want.length; j++) expect(Math.abs(got[j] - want[j])).toBeLessThan(1e-5)
      }
      // The normaliser folds case and accents: the same ids, hence the same vector.
      expect(refIds('zoe muller')).toEqual(refIds('ZOË MÜLLER'))
    } finally {
      await e.close()
    }
  })

  it('supports CLS pooling and no normalisation, and batching does not change a vector', async () => {
    const e = await Embedder.load(dir, { settings: { pooling: 'cls', normalize: false, queryPrefix: '' }, batchSize: 2 })
    try {
      const qs = ['river market', 'river bridge', 'a much longer question about the village near the river', 'river market']
      const many = await e.embedQueries(qs)
      for (let i = 0; i < qs.length; i++) {
        const want = reference(refIds(qs[i]), 'cls', false)
        for (let j = 0; j < want.length; j++) expect(Math.abs(many[i][j] - want[j])).toBeLessThan(1e-5)
        expect(Array.from((await e.embedQueries([qs[i]]))[0])).toEqual(Array.from(many[i]))
      }
    } finally {
      await e.close()
    }
  })

  it('names a missing or incompatible model file', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'sg-embed-bad-'))
    try {
      await expect(Embedder.load(join(bad, 'nope'))).rejects.toThrow(/does not exist/)
      await expect(Embedder.load(bad)).rejects.toThrow(/no ONNX model in .*model\.onnx or onnx\/model\.onnx/)
      writeFileSync(join(bad, 'model.onnx'), 'not a model')
      await expect(Embedder.load(bad)).rejects.toThrow(/no tokenizer\.json/)
      writeFileSync(join(bad, 'tokenizer.json'), readFileSync(join(dir, 'tokenizer.json')))
      await expect(Embedder.load(bad)).rejects.toThrow(/model\.onnx is not a loadable ONNX model/)
      writeFileSync(join(bad, 'model.onnx'), readFileSync(join(dir, 'model.onnx')))
      writeFileSync(join(bad, 'searchgym-embedder.json'), '{"pooling":"max"}')
      await expect(Embedder.load(bad)).rejects.toThrow(/pooling must be 'mean' or 'cls'/)
      writeFileSync(join(bad, 'searchgym-embedder.json'), '{"poolin":"cls"}')
      await expect(Embedder.load(bad)).rejects.toThrow(/unknown key 'poolin'/)
    } finally {
      rmSync(bad, { recursive: true, force: true })
    }
  })
})

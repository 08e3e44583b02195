/** @jest-environment ./world/search/embed/ort-jest-environment.cjs */
// world/search/dense.test: the dense and hybrid engines pass the shared SearchIndex contract (with a tiny seeded ONNX
// embedder written here, run by the real onnxruntime-node), plus IVF recall against exact search and RRF details.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../../infra/rng'
import { contractCorpus, runSearchIndexContract } from './search-index.contract'
import { DenseIndex } from './dense'
import { Embedder } from './embed/embedder'
import { writeTinyEmbedder } from './embed/tiny-model'
import { EmbeddedIndex } from './embedded'
import { HybridIndex, reciprocalRankFusion } from './hybrid'

const dir = mkdtempSync(join(tmpdir(), 'sg-dense-'))
const extra = ['Dorchester is now a quokka sanctuary.', 'Notable people']
writeTinyEmbedder(dir, { texts: [...contractCorpus().map((d) => `${d.title}\n${d.text}`), ...extra], hidden: 512, seed: 11 })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const dense = async () => new DenseIndex(await Embedder.load(dir), { quiet: true })

runSearchIndexContract({ name: 'dense (tiny ONNX embedder)', make: dense, ranksEveryDoc: true })
runSearchIndexContract({ name: 'hybrid (BM25F + dense, RRF)', make: async () => new HybridIndex(new EmbeddedIndex(), await dense()), ranksEveryDoc: true })

describe('DenseIndex approximate (IVF) search', () => {
  it('has recall@5 >= 0.9 against exact search, equals it when every list is probed; the Gemm scan equals the loop', async () => {
    const rng = new Rng(21)
    const words = [...new Set(contractCorpus().flatMap((d) => d.text.toLowerCase().split(/[^a-z]+/)))].filter((w) => w.length > 2)
    // Topical documents (as a world's are: people, places, works): 12 topics of 12 words, 80% of a doc's words from its topic.
    const topics = Array.from({ length: 12 }, () => Array.from({ length: 12 }, () => rng.pick(words)))
    const draw = (t: string[]) => (rng.bool(0.8) ? rng.pick(t) : rng.pick(words))
    const docs = Array.from({ length: 600 }, (_, i) => {
      const t = rng.pick(topics)
      return { url: `https://w.test/wiki/D${String(i).padStart(4, '0')}`, title: `${draw(t)} ${draw(t)}`, text: Array.from({ length: 30 }, () => draw(t)).join(' ') }
    })
    const idx = new DenseIndex(await Embedder.load(dir), { quiet: true, ann: 'ivf', ivf: { seed: 3 } })
    try {
      await idx.upsert(docs)
      expect(idx.approximate).toBe(true)
      const queries = Array.from({ length: 40 }, () => {
        const t = rng.pick(topics)
        return `${draw(t)} ${draw(t)} ${draw(t)}`
      })
      const qv = await idx.embedQueries(queries)
      let found = 0
      for (const q of qv) {
        const exact = new Set(idx.rank(q, 5, true).map((s) => s.doc))
        for (const s of idx.rank(q, 5, false)) if (exact.has(s.doc)) found++
      }
      const recall = found / (5 * queries.length)
      process.stderr.write(`IVF recall@5 vs exact: ${recall.toFixed(3)} (${idx.ivfIndex().lists} lists, nprobe ${idx.ivfIndex().nprobe})\n`)
      expect(recall).toBeGreaterThanOrEqual(0.9)
      expect(recall).toBeLessThanOrEqual(1)
      // The ONNX Gemm scan (searchMany's exact path) ranks as the plain loop does, scores equal to float32 precision.
      const gemm = await idx.rankExact(qv, 5)
      qv.forEach((q, i) => {
        const loop = idx.rank(q, 5, true)
        expect(gemm[i].map((s) => s.doc)).toEqual(loop.map((s) => s.doc))
        gemm[i].forEach((s, j) => expect(Math.abs(s.score - loop[j].score)).toBeLessThan(1e-5))
      })
      const ivf = idx.ivfIndex()
      expect(ivf.lists).toBeGreaterThan(1)
      expect(ivf.nprobe).toBeLessThan(ivf.lists)
      ivf.nprobe = ivf.lists
      for (const q of qv) expect(idx.rank(q, 5, false)).toEqual(idx.rank(q, 5, true))
    } finally {
      await idx.close()
    }
  })
})

describe('reciprocalRankFusion', () => {
  const h = (url: string, score: number) => ({ url, title: url, snippet: '', score })
  it('adds weighted 1/(k + rank), tied scores sharing a rank', () => {
    const fused = reciprocalRankFusion(
      [
        { hits: [h('a', 3), h('b', 3), h('c', 1)], weight: 1 },
        { hits: [h('c', 0.9), h('a', 0.5)], weight: 2 },
      ],
      60,
    )
    expect(fused.get('a')).toBeCloseTo(1 / 61 + 2 / 62, 12)
    expect(fused.get('b')).toBeCloseTo(1 / 61, 12)
    expect(fused.get('c')).toBeCloseTo(1 / 63 + 2 / 61, 12)
  })
  it('rejects bad weights', async () => {
    const d = await dense()
    try {
      expect(() => new HybridIndex(new EmbeddedIndex(), d, { denseWeight: -1 })).toThrow(/denseWeight must be a finite number >= 0/)
    } finally {
      await d.close()
    }
  })
})

describe('DenseIndex vectors', () => {
  it('are deterministic: two indexes of the same documents hold identical passage vectors (what a world file stores)', async () => {
    const a = await dense()
    const b = await dense()
    try {
      await a.upsert(contractCorpus())
      await b.upsert([...contractCorpus()].reverse())
      const va = new Map([...a.entries()].map(([d, v]) => [d.url, v.map((x) => Array.from(x))]))
      const vb = new Map([...b.entries()].map(([d, v]) => [d.url, v.map((x) => Array.from(x))]))
      expect(va.size).toBe(contractCorpus().length)
      for (const [url, v] of va) expect(vb.get(url)).toEqual(v)
      // The 400-word document is cut into passages of at most 100 words.
      expect(va.get('https://w.test/wiki/Long_Chronicle')!.length).toBeGreaterThanOrEqual(4)
    } finally {
      await a.close()
      await b.close()
    }
  })
})

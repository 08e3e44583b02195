/** @jest-environment ./world/search/embed/ort-jest-environment.cjs */
// tests/meili-hybrid: Meilisearch's own hybrid search with user-provided vectors (the real 1.21 server started by the
// project, a tiny seeded ONNX embedder FIXTURE written here) passes the SearchIndex contract; the vectors reach it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { contractCorpus, runSearchIndexContract } from '../world/search/search-index.contract'
import { Embedder } from '../world/search/embed/embedder'
import { writeTinyEmbedder } from '../world/search/embed/tiny-model'
import { openMeiliHybrid } from '../world/search/hybrid-meili'
import { startMeiliServer, type MeiliServer } from '../world/search/meili-server'

const dir = mkdtempSync(join(tmpdir(), 'sg-meili-hybrid-'))
writeTinyEmbedder(dir, { texts: [...contractCorpus().map((d) => `${d.title}\n${d.text}`), 'Dorchester is now a quokka sanctuary.', 'Notable people'], hidden: 512, seed: 11 })
let server: Promise<MeiliServer> | undefined
let n = 0
const getServer = () => (server ??= startMeiliServer())
const embedders: Embedder[] = []

afterAll(async () => {
  if (server) await (await server).stop()
  for (const e of embedders) await e.close()
  rmSync(dir, { recursive: true, force: true })
})

const make = async () => {
  const s = await getServer()
  const embedder = await Embedder.load(dir)
  embedders.push(embedder)
  return openMeiliHybrid({ url: s.url, apiKey: s.masterKey, indexUid: `hybrid_${++n}`, fresh: true, embedder })
}

runSearchIndexContract({ name: 'meili-hybrid (real 1.21 server, user-provided vectors)', make, ranksEveryDoc: true })

describe('Meilisearch hybrid', () => {
  it('names its engine and ranks by meaning too: a semantic-only query finds documents without shared keywords', async () => {
    const s = await getServer()
    const embedder = await Embedder.load(dir)
    embedders.push(embedder)
    const idx = await openMeiliHybrid({ url: s.url, apiKey: s.masterKey, indexUid: `hybrid_${++n}`, fresh: true, embedder, semanticRatio: 1 })
    try {
      expect(idx.engine).toBe('meili-hybrid')
      await idx.upsert(contractCorpus())
      // Fully semantic: every document is a candidate, so k hits come back even for words in one document only.
      const hits = await idx.search('zanzibar expedition', { k: 5 })
      expect(hits.length).toBe(5)
      expect(hits[0].url).toBe('https://w.test/wiki/Long_Chronicle')
    } finally {
      await idx.close()
    }
  })
})

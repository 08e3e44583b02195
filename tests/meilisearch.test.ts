// tests/meilisearch: the real Meilisearch 1.21 (bundled binary, started by the project) passes the SearchIndex
// contract; plus its server manager, settings choice and error messages. Not skipped anywhere: CI runs it too.
import { runSearchIndexContract } from '../world/search/search-index.contract'
import { MeiliIndex } from '../world/search/meilisearch'
import { checkMeiliBinary, freePort, meiliBinary, MEILI_BINARY_SHA256, startMeiliServer, type MeiliServer } from '../world/search/meili-server'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let server: Promise<MeiliServer> | undefined
let n = 0
const getServer = () => (server ??= startMeiliServer())

afterAll(async () => {
  if (server) await (await server).stop()
})

runSearchIndexContract({
  name: 'meilisearch (real 1.21 server)',
  make: async () => {
    const s = await getServer()
    return MeiliIndex.open({ url: s.url, apiKey: s.masterKey, indexUid: `contract_${++n}`, fresh: true })
  },
})

describe('local Meilisearch server', () => {
  it('runs a checksum-verified executable copy of the packaged binary, and refuses a wrong binary', async () => {
    const bin = await meiliBinary()
    expect(statSync(bin).mode & 0o111).not.toBe(0)
    await expect(checkMeiliBinary(bin)).resolves.toBeUndefined()
    const dir = mkdtempSync(join(tmpdir(), 'searchgym-fake-meili-'))
    try {
      writeFileSync(join(dir, 'meilisearch'), 'not a meilisearch binary')
      await expect(checkMeiliBinary(join(dir, 'meilisearch'))).rejects.toThrow(new RegExp(`expected ${MEILI_BINARY_SHA256}`))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('runs on 127.0.0.1 with a temp data folder and a master key', async () => {
    const s = await getServer()
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(existsSync(s.dataDir)).toBe(true)
    const res = await fetch(`${s.url}/indexes`)
    expect(res.status).toBe(401) // the master key is required
    const ok = await fetch(`${s.url}/version`, { headers: { Authorization: `Bearer ${s.masterKey}` } })
    expect(((await ok.json()) as { pkgVersion: string }).pkgVersion).toBe('1.21.0')
  })

  it('stops and removes its data folder', async () => {
    const s = await startMeiliServer()
    await s.stop()
    expect(existsSync(s.dataDir)).toBe(false)
    await expect(fetch(`${s.url}/health`)).rejects.toThrow()
    await s.stop() // idempotent
  })

  it('says clearly when the key is wrong', async () => {
    const s = await getServer()
    await expect(MeiliIndex.open({ url: s.url, apiKey: 'not-the-key', indexUid: 'x' })).rejects.toThrow(/refused the API key/)
  })

  it('says clearly when the server is unreachable', async () => {
    const port = await freePort()
    await expect(MeiliIndex.open({ url: `http://127.0.0.1:${port}`, apiKey: 'k', indexUid: 'x' })).rejects.toThrow(
      /cannot reach Meilisearch at http:\/\/127\.0\.0\.1:\d+/,
    )
  })

  it('with Meilisearch defaults the question finds nothing; with the chosen settings it does', async () => {
    const s = await getServer()
    const docs = [
      { url: 'https://w.test/Mabel_Smith', title: 'Mabel Smith', text: 'Mabel Smith is a novelist. Mabel Smith was born in Dorchester.' },
      { url: 'https://w.test/Dorchester', title: 'Dorchester', text: 'Dorchester is a town in the south.' },
    ]
    const plain = await MeiliIndex.open({
      url: s.url, apiKey: s.masterKey, indexUid: `defaults_${++n}`, fresh: true, choice: { matchingStrategy: 'last', stopWords: [] },
    })
    const chosen = await MeiliIndex.open({ url: s.url, apiKey: s.masterKey, indexUid: `chosen_${++n}`, fresh: true })
    try {
      await plain.upsert(docs)
      await chosen.upsert(docs)
      expect(await plain.search('where was Mabel Smith born')).toEqual([])
      const hits = await chosen.search('where was Mabel Smith born')
      expect(hits[0]?.url).toBe('https://w.test/Mabel_Smith')
      // Typo tolerance: a misspelt name still finds the document.
      expect((await chosen.search('Dorchestr'))[0]?.url).toBe('https://w.test/Dorchester')
    } finally {
      await plain.close()
      await chosen.close()
    }
  })
})

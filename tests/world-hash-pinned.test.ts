// tests/world-hash-pinned: the README promise "the same seed and config give the same content hash on any machine",
// pinned as literals for the tiny preset at two seeds (built through the library pipeline, as `buildWorld` does).
// A change to either hash must be deliberate: update the literal AND the "Pinned constants" table in bench/RESULTS.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world'
import { presetConfig } from '../world/config'

const PINNED: Record<number, string> = {
  11: 'f0b102eed9274fe9f3f76f4da2dd996159ceb2d7b0acf1dad73d814248a42758',
  12: 'ab6e599ad7075c3b24d9b80316a82fcfd448b97496de41c7f0f6a6de07e95722',
}

const root = mkdtempSync(join(tmpdir(), 'sg-world-pin-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test.each([11, 12])('tiny preset, seed %i: the content hash is the pinned literal', async (seed) => {
  const r = await buildWorld({ config: { ...presetConfig('tiny'), seed }, dir: join(root, `tiny-${seed}`), quiet: true })
  expect(r.hash).toBe(PINNED[seed])
  // every section went to the content-hash worker (world/build/prehash): the sealed stages' while the qa stage ran, the
  // others as each was done (no model: the rephrase stage changes no question) — and the digest is the same
  expect(r.prehashed).toEqual(['graph', 'docs', 'write', 'index', 'verify', 'qa', 'split', 'rephrase'])
})

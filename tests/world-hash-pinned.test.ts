// tests/world-hash-pinned: the README promise "the same seed and config give the same content hash on any machine",
// pinned as literals for the tiny preset at two seeds (built through the library pipeline, as `buildWorld` does).
// A change to either hash must be deliberate: update the literal AND the "Pinned constants" table in bench/RESULTS.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world'
import { presetConfig } from '../world/config'

const PINNED: Record<number, string> = {
  11: '4fb3a8462604824613987917bd2007074be6f61f78b5190e559f052ffa057e57',
  12: 'c370d0e69a5655f60b0f7b90375d5c5986b2c6211a38ca72a7c7b22fe0f5e434',
}

const root = mkdtempSync(join(tmpdir(), 'sg-world-pin-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test.each([11, 12])('tiny preset, seed %i: the content hash is the pinned literal', async (seed) => {
  const r = await buildWorld({ config: { ...presetConfig('tiny'), seed }, dir: join(root, `tiny-${seed}`), quiet: true })
  expect(r.hash).toBe(PINNED[seed])
})

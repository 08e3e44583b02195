// tests/world-hash-pinned: the README promise "the same seed and config give the same content hash on any machine",
// pinned as literals for the tiny preset at two seeds (built through the library pipeline, as `buildWorld` does).
// A change to either hash must be deliberate: update the literal AND the "Pinned constants" table in bench/RESULTS.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world'
import { presetConfig } from '../world/config'

const PINNED: Record<number, string> = {
  11: 'db71eee773a8410c355df36d3a9ccc6c8bda97b26ccb90ad8fdc02eefd684d0e',
  12: 'fbafe8277143f632c9bb4682d308c48cf71c67b93efeda5e9601ecf22cd5e2ce',
}

const root = mkdtempSync(join(tmpdir(), 'sg-world-pin-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test.each([11, 12])('tiny preset, seed %i: the content hash is the pinned literal', async (seed) => {
  const r = await buildWorld({ config: { ...presetConfig('tiny'), seed }, dir: join(root, `tiny-${seed}`), quiet: true })
  expect(r.hash).toBe(PINNED[seed])
})

// tests/world-hash-pinned: the README promise "the same seed and config give the same content hash on any machine",
// pinned as literals for the tiny preset at two seeds (built through the library pipeline, as `buildWorld` does).
// A change to either hash must be deliberate: update the literal AND the "Pinned constants" table in bench/RESULTS.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world'
import { presetConfig } from '../world/config'

const PINNED: Record<number, string> = {
  11: '3d531222011efc3e079c3a35986b5c9639f0445a43be006ac92fa1e410d871e7',
  12: '2f756ae2a9d6d176b2950e13337cfe93e3ffbd40dbe48182681644a53a39f1e7',
}

const root = mkdtempSync(join(tmpdir(), 'sg-world-pin-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test.each([11, 12])('tiny preset, seed %i: the content hash is the pinned literal', async (seed) => {
  const r = await buildWorld({ config: { ...presetConfig('tiny'), seed }, dir: join(root, `tiny-${seed}`), quiet: true })
  expect(r.hash).toBe(PINNED[seed])
})

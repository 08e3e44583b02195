// tests/world-determinism: same seed + config ⇒ same content hash; another seed ⇒ another hash; a finished world
// is not rebuilt; a folder of a different config is refused; openWorld reads what was built.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildWorld } from '../world/build/build'
import { presetConfig, type WorldConfig } from '../world/config'
import { openWorld } from '../world/store/open'

const root = mkdtempSync(join(tmpdir(), 'sg-world-det-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const withSeed = (preset: string, seed: number): WorldConfig => ({ ...presetConfig(preset), seed })
const build = (config: WorldConfig, name: string) => buildWorld({ config, dir: join(root, name), quiet: true })

test.each(['tiny', 'small'])('%s: same seed twice gives the same hash, another seed a different one', async (preset) => {
  const a = await build(withSeed(preset, 11), `${preset}-a`)
  const b = await build(withSeed(preset, 11), `${preset}-b`)
  const c = await build(withSeed(preset, 12), `${preset}-c`)
  expect(a.hash).toMatch(/^[0-9a-f]{64}$/)
  expect(b.hash).toBe(a.hash)
  expect(c.hash).not.toBe(a.hash)
})

test('a finished world is skipped on rebuild; a different config is refused; openWorld reads it', async () => {
  const cfg = withSeed('tiny', 5)
  const first = await build(cfg, 'reuse')
  const again = await build(cfg, 'reuse')
  expect(again.hash).toBe(first.hash)
  expect(again.stages.every((s) => s.outcome === 'skipped')).toBe(true)
  await expect(build(withSeed('tiny', 6), 'reuse')).rejects.toThrow(/different config \(differs in: seed\)/)

  const w = openWorld(join(root, 'reuse'))
  try {
    expect(w.complete).toBe(true)
    expect(w.hash).toBe(first.hash)
    expect(w.config.seed).toBe(5)
    const e = w.entities()[0]
    expect(w.entity(e.id)?.name).toBe(e.name)
    expect(w.entityByUrl(e.url)?.id).toBe(e.id)
    expect(w.entitiesByName(e.name).map((x) => x.id)).toContain(e.id)
    expect(w.findEntities(e.url)[0].id).toBe(e.id)
    const doc = w.doc(e.url)!
    expect(doc.entityId).toBe(e.id)
    expect(doc.facts.length).toBeGreaterThan(0)
    for (const f of doc.facts) expect(doc.text).toContain(f.sentence)
    const { out, in: inc } = w.edgesOf(e.id)
    expect(out.length + inc.length).toBeGreaterThan(0)
    expect(w.edge(w.edges()[0].id)).toEqual(w.edges()[0])
  } finally {
    w.close()
  }
})

test('homonymRate gives same-name pairs with distinct URLs', async () => {
  const cfg = withSeed('small', 3)
  cfg.graph.homonymRate = 0.2
  await build(cfg, 'homonyms')
  const w = openWorld(join(root, 'homonyms'))
  try {
    const people = w.entities().filter((e) => e.type === 'Person')
    const byName = new Map<string, number>()
    for (const p of people) byName.set(p.name, (byName.get(p.name) ?? 0) + 1)
    const shared = people.filter((p) => byName.get(p.name)! > 1).length
    expect(shared / people.length).toBeGreaterThan(0.15)
    expect(shared / people.length).toBeLessThan(0.25)
    expect(new Set(w.entities().map((e) => e.url)).size).toBe(w.entities().length)
  } finally {
    w.close()
  }
})

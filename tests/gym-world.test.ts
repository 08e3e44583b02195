// tests/gym-world: the gym on a real (tiny) world — openGymWorld over the built folder, the oracle solving every
// question through the real env, `searchgym gym check` as a child process, and /retrieve on the real engine.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkWithOracle } from '../agent/oracle/oracle-check'
import { worldOracleKnowledge } from '../agent/oracle/oracle-knowledge'
import { openGymWorld } from '../gym/open-gym-world'
import { startGymServer } from '../gym/server'
import type { GymWorld } from '../gym/world-view'
import { buildWorld } from '../world/build/build'
import { presetConfig } from '../world/config'
import { openWorld } from '../world/store/open'

const BIN = new URL('../bin/searchgym.mjs', import.meta.url).pathname
const dir = join(mkdtempSync(join(tmpdir(), 'searchgym-gym-world-')), 'tiny')

describe('gym on a tiny world', () => {
  let world: GymWorld
  beforeAll(async () => {
    await buildWorld({ config: presetConfig('tiny'), dir, quiet: true })
    world = await openGymWorld(dir)
  })
  afterAll(() => world.close())

  it('serves the QA and the documents of the world', async () => {
    const qas = world.listQa()
    expect(qas.length).toBeGreaterThan(50)
    expect(world.listQa('bench').length + world.listQa('train').length).toBe(qas.length)
    const hits = await world.search(qas[0].question, 5)
    expect(hits.length).toBeGreaterThan(0)
    const page = await world.access(hits[0].url)
    expect(page?.url).toBe(hits[0].url)
    expect(page?.text.length).toBeGreaterThan(50)
  })

  it('the oracle solves every question through the real env (F1 = 1)', async () => {
    const w = openWorld(dir)
    try {
      const r = await checkWithOracle(world, worldOracleKnowledge(w), world.listQa(), { quiet: true })
      expect(r.failures.map((f) => `${f.qaId}: ${f.failure}`)).toEqual([])
      expect(r.meanF1).toBe(1)
    } finally {
      w.close()
    }
  })

  it('`searchgym gym check` reports it', () => {
    const r = spawnSync(process.execPath, [BIN, 'gym', 'check', dir, '--limit', '40'], { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^oracle check of .*: 40\/40 solved \(100\.00%\), mean F1 1\.0000\n/)
  })

  it("answers Search-R1's /retrieve from the world's engine", async () => {
    const s = await startGymServer(world)
    try {
      const q = world.listQa()[0].question
      const res = await fetch(`${s.url}/retrieve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queries: [q], topk: 3, return_scores: true }) })
      const j = (await res.json()) as { result: { document: { id: string; contents: string }; score: number }[][] }
      expect(j.result[0]).toHaveLength(3)
      const page = await world.access(j.result[0][0].document.id)
      expect(j.result[0][0].document.contents).toBe(`${page!.title}\n${page!.text}`)
    } finally {
      await s.close()
    }
  })
})

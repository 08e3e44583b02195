// tests/reader-v1-start: the shipped reader start v1 (curriculum/starts/reader-v1) — its files' sha256 pinned here and
// in its SHA256SUMS, every committed phase checkpoint present, and its funnel on a small pinned slice of a world it never
// trained on (seed 101 of its recipe, 20 one-hop questions), through the real CLI on the native backend with its own
// gym (bench funnel's default, READER_GYM): the same counts, scores and losses as when it was shipped.
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'
import { readReaderConfig } from '../curriculum/reading/config'
import { phaseFingerprint } from '../curriculum/reading/run'

const LONG = 600_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const START = join(ROOT, 'curriculum/starts/reader-v1')
const CONFIG = join(ROOT, 'bench/perf/configs/world-small2x-1to2.json')
const root = mkdtempSync(join(tmpdir(), 'sg-reader-v1-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const PINNED: Record<string, string> = {
  'config.json': '6f050a08c8bb987a455d1c2263756bbfa048f219e02e4cc2207f2939aad5bf5f',
  'model.safetensors': 'cb40305047954721173c73ed2a3b53c14f07caf83aa18276bca094b54e0f6caa',
  'tokenizer.json': '61a73be44f0cd45a86df5cad31e862c4c6a94d97587359524b17fd98ebe85074',
}

test('the shipped start is the pinned one; every phase of the recipe is committed with its fingerprint', () => {
  const sums = readFileSync(join(START, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.split('  '))
  expect(sums.length).toBeGreaterThanOrEqual(3)
  for (const [hash, file] of sums) expect(createHash('sha256').update(readFileSync(join(START, file))).digest('hex')).toBe(hash)
  for (const [file, hash] of Object.entries(PINNED)) expect(sums.find((s) => s[1] === file)?.[0]).toBe(hash)
  const recipe = readReaderConfig(join(ROOT, 'curriculum/recipes/reader-v1.json'))
  recipe.phases.forEach((p, i) => {
    for (const f of ['config.json', 'model.safetensors', 'phase.json']) expect([p.name, f, existsSync(join(START, 'phases', p.name, f))]).toEqual([p.name, f, true])
    // Adopted by `train reader --committed` only while its fingerprint is the recipe's phase's.
    expect([p.name, (JSON.parse(readFileSync(join(START, 'phases', p.name, 'phase.json'), 'utf8')) as { fingerprint: string }).fingerprint]).toEqual([p.name, phaseFingerprint(recipe, i)])
  })
  // The last phase's model is the start.
  const last = recipe.phases[recipe.phases.length - 1].name
  expect(readFileSync(join(START, 'phases', last, 'model.safetensors')).equals(readFileSync(join(START, 'model.safetensors')))).toBe(true)
})

test('its funnel on 20 one-hop questions of an unseen world (seed 101) is the shipped one', async () => {
  const world = join(root, 'w101')
  expect((await runCli(['world', 'build', '--preset', 'small', '--config', CONFIG, '--seed', '101', '--out', world, '--quiet'], LONG)).code).toBe(0)
  const json = join(root, 'f.json')
  const r = await runCli(['bench', 'funnel', '--model', START, '--world', world, '--hops', '1', '--questions', '20', '--backend', 'native', '--json', json], LONG)
  expect(r.code).toBe(0)
  const f = Object.values((JSON.parse(readFileSync(json, 'utf8')) as { results: Record<string, { hops1: Record<string, number> }> }).results)[0].hops1
  // Measured when the start was shipped (2026-12-05, native backend): 19 of 20 first searches find the page, 18 open it.
  expect({ n: f.n, search: f.search, opened: f.opened, noOracle: f.noOracle }).toEqual({ n: 20, search: 19, opened: 18, noOracle: 0 })
  expect(f.f1).toBeCloseTo(0.66494, 4)
  expect(f.em).toBeCloseTo(0.6, 6)
  expect(f.readEm).toBeCloseTo(0.65, 6)
  expect(f.factEm).toBeCloseTo(0.9, 6)
  expect(f.answerLoss).toBeCloseTo(0.2277, 3)
  expect(f.factLoss).toBeCloseTo(0.0667, 3)
}, LONG)

// tests/reader-start: the shipped reader start (curriculum/starts/reader-v0) — its files' sha256 pinned here and in
// its SHA256SUMS, and its funnel on a small pinned slice of a world it never trained on (seed 101 of its recipe),
// through the real CLI on the native backend: the same counts and losses as when it was shipped.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'

const LONG = 600_000
const START = fileURLToPath(new URL('../curriculum/starts/reader-v0', import.meta.url))
const CONFIG = fileURLToPath(new URL('../bench/perf/configs/world-small2x-1to2.json', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-reader-start-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const PINNED: Record<string, string> = {
  'config.json': '6f050a08c8bb987a455d1c2263756bbfa048f219e02e4cc2207f2939aad5bf5f',
  'model.safetensors': 'a306763b4c84179e812daf5b1bb63a5d6eff6519f1ea05ddab55243d7cc491e5',
  'tokenizer.json': '61a73be44f0cd45a86df5cad31e862c4c6a94d97587359524b17fd98ebe85074',
}

test('the shipped start is the pinned one: every file matches SHA256SUMS and the pins here', () => {
  const sums = readFileSync(join(START, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.split('  '))
  expect(sums.length).toBeGreaterThanOrEqual(3)
  for (const [hash, file] of sums) expect(createHash('sha256').update(readFileSync(join(START, file))).digest('hex')).toBe(hash)
  for (const [file, hash] of Object.entries(PINNED)) expect(sums.find((s) => s[1] === file)?.[0]).toBe(hash)
})

test('its funnel on 20 one-hop questions of an unseen world (seed 101) is the shipped one', async () => {
  const world = join(root, 'w101')
  expect((await runCli(['world', 'build', '--preset', 'small', '--config', CONFIG, '--seed', '101', '--out', world, '--quiet'], LONG)).code).toBe(0)
  const json = join(root, 'f.json')
  // reader-v0's gym (trained before the leadSpace option; bench funnel's default is now the reader-v1 gym, READER_GYM).
  const gym = '{"topK":3,"observationCap":2000,"prompt":"brief","accessByTitle":true}'
  const r = await runCli(['bench', 'funnel', '--model', START, '--world', world, '--hops', '1', '--questions', '20', '--gym-options', gym, '--backend', 'native', '--json', json], LONG)
  expect(r.code).toBe(0)
  const f = (Object.values((JSON.parse(readFileSync(json, 'utf8')) as { results: Record<string, { hops1: Record<string, number> }> }).results)[0]).hops1
  // Measured when the start was shipped (2026-12-03, native backend): 10 of 20 first searches find the page, 2 open it.
  expect({ n: f.n, search: f.search, opened: f.opened, noOracle: f.noOracle }).toEqual({ n: 20, search: 10, opened: 2, noOracle: 0 })
  expect(f.f1).toBeCloseTo(0.00909, 4)
  expect(f.answerLoss).toBeCloseTo(2.5907, 3)
  expect(f.factF1).toBeCloseTo(0.3206, 3)
  expect(f.factLoss).toBeCloseTo(1.7413, 3)
}, LONG)

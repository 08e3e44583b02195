// tests/world-content-check: a world whose rows were edited after the build (an SQL update of a bench question's
// answer, through better-sqlite3) no longer matches its manifest's hash, and the three commands that open worlds for
// use say so (issue 47): `world stats` prints its stats and flags it (one warning line, exit 1), `gym serve` and
// `bench run` refuse it in one line before serving or running anything. An untouched copy passes all three.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const dir = mkdtempSync(join(tmpdir(), 'sg-content-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let edited = ''
let clean = ''
let hash = ''

beforeAll(async () => {
  const w = await sharedTinyWorld()
  hash = w.hash
  clean = join(dir, 'clean')
  edited = join(dir, 'edited')
  cpSync(w.dir, clean, { recursive: true })
  cpSync(w.dir, edited, { recursive: true })
  const db = new Database(join(edited, 'world.db'))
  const n = db.prepare("UPDATE qa SET answer = 'Somebody Else' WHERE seq = (SELECT MIN(seq) FROM qa WHERE split = 'bench')").run().changes
  db.close()
  expect(n).toBe(1)
}, 300_000)

const MISMATCH = /its rows hash to [0-9a-f]{64}, not to the [0-9a-f]{64} its manifest claims/

test('world stats flags the edited world (stats printed, one warning line, exit 1); the clean copy exits 0', async () => {
  const bad = await runCli(['world', 'stats', edited])
  expect(bad.code).toBe(1)
  expect(bad.stdout).toContain(hash) // the stats as before, with the hash the manifest claims…
  expect(bad.stderr).toMatch(MISMATCH) // …and the warning that the rows no longer match it
  expect(bad.stderr.trim().split('\n')).toHaveLength(1)
  const good = await runCli(['world', 'stats', clean])
  expect(good.code).toBe(0)
  expect(good.stderr).toBe('')
})

test('bench run refuses the edited world in one line and writes no run folder', async () => {
  const out = join(dir, 'run-edited')
  const r = await runCli(['bench', 'run', edited, '--policy', 'oracle', '--limit', '2', '--bootstrap', '20', '--out', out])
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(MISMATCH)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(existsSync(out)).toBe(false)
  const ok = await runCli(['bench', 'run', clean, '--policy', 'oracle', '--limit', '2', '--bootstrap', '20', '--out', join(dir, 'run-clean')])
  expect(ok.code).toBe(0)
})

test('gym serve refuses the edited world before it listens', async () => {
  const r = await runCli(['gym', 'serve', edited, '--port', '0', '--workers', '1'], 60_000)
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(MISMATCH)
  expect(r.stderr).not.toMatch(/listening|http:\/\//)
})

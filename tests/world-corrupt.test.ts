// tests/world-corrupt: a damaged copy of the shared tiny world (one 4 KiB page of world.db flipped) is refused with
// one line by `world stats`, `gym serve` and `bench run` (SQLite quick_check on open), and `world verify --deep`
// names what is wrong (integrity_check, the unreadable table, the content hash); a copy whose rows were edited in
// place (structure intact) is caught by --deep's recomputed content hash. The intact world passes --deep.
import { cpSync, mkdtempSync, openSync, readSync, statSync, writeSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const tmp = mkdtempSync(join(tmpdir(), 'sg-corrupt-'))
let intact = ''
let broken = ''
let edited = ''

/** Flip every bit of the 4 KiB page in the middle of the file. */
function flipMiddlePage(file: string): void {
  const page = 4096
  const at = Math.floor(statSync(file).size / page / 2) * page
  const fd = openSync(file, 'r+')
  const b = Buffer.alloc(page)
  readSync(fd, b, 0, page, at)
  for (let i = 0; i < page; i++) b[i] ^= 0xff
  writeSync(fd, b, 0, page, at)
  closeSync(fd)
}

/** The last non-empty stderr line and how many there are (a one-line error has one). */
const errLines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '')

beforeAll(async () => {
  intact = (await sharedTinyWorld()).dir
  broken = join(tmp, 'broken')
  edited = join(tmp, 'edited')
  cpSync(intact, broken, { recursive: true })
  cpSync(intact, edited, { recursive: true })
  flipMiddlePage(join(broken, 'world.db'))
  const db = new Database(join(edited, 'world.db'))
  db.prepare("UPDATE docs SET text = text || ' (edited)' WHERE rowid = (SELECT min(rowid) FROM docs)").run()
  db.close()
}, 300_000)

test('world stats refuses the damaged world with one line', async () => {
  const r = await runCli(['world', 'stats', broken, '--json'])
  expect(r.code).not.toBe(0)
  expect(r.stdout).toBe('')
  const lines = errLines(r.stderr)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/is corrupted \(SQLite quick_check: .*\); see searchgym world verify --deep/)
})

test('gym serve refuses it with one line and never listens', async () => {
  const r = await runCli(['gym', 'serve', broken, '--port', '0'], 60_000)
  expect(r.code).not.toBe(0)
  const lines = errLines(r.stderr)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/is corrupted/)
  expect(r.stderr).not.toMatch(/on http:/)
})

test('bench run refuses it with one line', async () => {
  const r = await runCli(['bench', 'run', '--world', broken, '--policy', 'oracle', '--limit', '1', '--out', join(tmp, 'run'), '--quiet'], 120_000)
  expect(r.code).not.toBe(0)
  const lines = errLines(r.stderr)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/is corrupted/)
}, 150_000)

test('world verify --deep names what is wrong: integrity, the table, the hash', async () => {
  const r = await runCli(['world', 'verify', '--deep', broken])
  expect(r.code).not.toBe(0)
  expect(r.stdout).toMatch(/^SQLite integrity_check: /m)
  expect(r.stdout).toMatch(/^table \w+ cannot be read in full: /m)
  expect(r.stdout).toMatch(/content hash/)
  expect(errLines(r.stderr)).toHaveLength(1)
})

test('rows edited in place (a sound file) are caught by --deep as a content hash mismatch', async () => {
  const r = await runCli(['world', 'verify', '--deep', edited, '--json'])
  expect(r.code).not.toBe(0)
  const j = JSON.parse(r.stdout) as { ok: boolean; sqlite: string[]; manifestHash: string; recomputedHash: string; problems: string[] }
  expect(j.ok).toBe(false)
  expect(j.sqlite).toEqual([])
  expect(j.recomputedHash).not.toBe(j.manifestHash)
  expect(j.problems).toEqual([expect.stringMatching(/^content hash mismatch: the manifest says [0-9a-f]{64}, the rows hash to [0-9a-f]{64}/)])
})

test('the intact world passes --deep', async () => {
  const r = await runCli(['world', 'verify', '--deep', intact])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/^ok: SQLite integrity_check passes and the rows hash to the manifest's [0-9a-f]{64}$/m)
})

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
  const r = await runCli(['bench', 'run', edited, '--policy', 'oracle', '--limit', '2', '--set', 'bootstrap=20', '--out', out])
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(MISMATCH)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(existsSync(out)).toBe(false)
  const ok = await runCli(['bench', 'run', clean, '--policy', 'oracle', '--limit', '2', '--set', 'bootstrap=20', '--out', join(dir, 'run-clean')])
  expect(ok.code).toBe(0)
})

test('gym serve refuses the edited world before it listens', async () => {
  const r = await runCli(['gym', 'serve', edited, '--port', '0', '--workers', '1'], 60_000)
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(MISMATCH)
  expect(r.stderr).not.toMatch(/listening|http:\/\//)
})

// Issue 59, item 5: every other command that opens a world for use checks it too (c3906aa ran each of these on the
// edited rows and exited 0). Each refuses in one line, exit 1, before it writes anything.
describe('every command that opens a world for use refuses the edited one', () => {
  let model = ''
  beforeAll(async () => {
    model = join(dir, 'model')
    const m = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${clean}`, '--out', model, '--seed', '0'], 300_000)
    expect(m.code).toBe(0)
  }, 300_000)

  const refused = async (args: string[], out?: string) => {
    const r = await runCli(args, 120_000)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(MISMATCH)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    if (out) expect(existsSync(out)).toBe(false)
  }

  test('train, train sft (and its --eval-world), model pretrain (and --eval-world), bench funnel', async () => {
    await refused(['train', '--world', edited, '--model', model, '--out', join(dir, 'train-edited'), '--steps', '1', '--quiet'], join(dir, 'train-edited'))
    await refused(['train', 'sft', '--world', edited, '--model', model, '--out', join(dir, 'sft-edited'), '--set', 'questions=1'], join(dir, 'sft-edited'))
    await refused(['train', 'sft', '--world', clean, '--set', `eval.worlds=${edited}`, '--model', model, '--out', join(dir, 'sft-eval-edited'), '--set', 'questions=1'], join(dir, 'sft-eval-edited'))
    await refused(['model', 'pretrain', '--model', model, '--world', edited, '--out', join(dir, 'pre-edited'), '--steps', '1'], join(dir, 'pre-edited'))
    await refused(['model', 'pretrain', '--model', model, '--world', clean, '--eval-world', edited, '--out', join(dir, 'pre-eval-edited'), '--steps', '1'], join(dir, 'pre-eval-edited'))
    await refused(['bench', 'funnel', '--model', model, '--world', edited, '--questions', '1', '--hops', '1'])
  }, 600_000)

  test('gym check, gym mcp, world export, view --world', async () => {
    await refused(['gym', 'check', edited, '--limit', '1'])
    await refused(['gym', 'mcp', edited])
    await refused(['world', 'export', edited, '--format', 'jsonl', '--out', join(dir, 'export-edited')], join(dir, 'export-edited'))
    await refused(['view', '--world', edited, '--port', '0'])
  }, 300_000)

  test('world stats labels the hash it prints: checked, or the manifest\'s claim that the rows do not match', async () => {
    const good = await runCli(['world', 'stats', clean])
    expect(good.stdout).toMatch(new RegExp(`^hash +${hash} \\(rows checked\\)$`, 'm'))
    const bad = await runCli(['world', 'stats', edited])
    expect(bad.stdout).toMatch(new RegExp(`^manifest hash ${hash} \\(NOT the rows' hash`, 'm'))
    expect(bad.stdout).not.toMatch(/^hash /m)
    expect(JSON.parse((await runCli(['world', 'stats', edited, '--json'])).stdout)).toMatchObject({ hash, hashChecked: false })
    expect(JSON.parse((await runCli(['world', 'stats', clean, '--json'])).stdout)).toMatchObject({ hash, hashChecked: true })
  }, 120_000)
})

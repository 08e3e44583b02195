// tests/reader-recipe: curriculum/recipes/reader.sh at toy size (READER_SMOKE=1: tiny worlds, a few steps) as a real
// process — every phase runs and is timed in times.tsv, a rerun skips the finished phases, and reader-card ships the
// SFT model folder with a model card and SHA256SUMS that match the files; a card for an unfinished run is refused.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-reader-recipe-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const recipe = (out: string) => spawnSync('bash', ['curriculum/recipes/reader.sh', out], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, READER_SMOKE: '1', SEARCHGYM_QUIET: '1' } })
const card = (out: string, dest: string) => spawnSync(process.execPath, ['bin/run-ts.mjs', 'curriculum/recipes/reader-card.ts', out, dest], { cwd: ROOT, encoding: 'utf8' })
const PHASES = ['worlds', 'init', 'pretrain', 'sft', 'funnel-unseen', 'funnel-heldout']

test('the recipe runs every phase, times it, skips it on a rerun, and its card ships the model with matching sha256', () => {
  const out = join(root, 'run')
  const r = recipe(out)
  expect(r.status).toBe(0)
  const times = readFileSync(join(out, 'times.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'))
  expect(times[0]).toEqual(['phase', 'wall_s', 'user_s', 'sys_s'])
  expect(times.slice(1).map((t) => t[0])).toEqual(PHASES)
  for (const t of times.slice(1)) for (const x of t.slice(1)) expect(Number(x)).toBeGreaterThanOrEqual(0)
  const again = recipe(out)
  expect(again.status).toBe(0)
  for (const p of PHASES) expect(again.stdout).toContain(`reader: ${p} done before, skipped`)
  expect(readFileSync(join(out, 'times.tsv'), 'utf8').trim().split('\n')).toHaveLength(PHASES.length + 1)
  const dest = join(root, 'ship')
  const c = card(out, dest)
  expect(c.status).toBe(0)
  const readme = readFileSync(join(dest, 'README.md'), 'utf8')
  expect(readme).toMatch(/^---\nlicense: apache-2.0/)
  expect(readme).toMatch(/\*\*Status:\*\* (meets|below) the reader target/)
  expect(readme).toContain('| unseen w9 | 1 |')
  for (const l of readFileSync(join(dest, 'SHA256SUMS'), 'utf8').trim().split('\n')) {
    const [hash, file] = l.split('  ')
    expect(createHash('sha256').update(readFileSync(join(dest, file))).digest('hex')).toBe(hash)
    expect(readFileSync(join(dest, file)).equals(readFileSync(join(out, 'sft', 'model', file)))).toBe(true)
  }
  const bad = card(join(root, 'nothing'), join(root, 'x'))
  expect(bad.status).toBe(2)
  expect(bad.stderr).toMatch(/reader-card: error: .* has no pretrain\/pretrain.json: finish the recipe first/)
  expect(() => execFileSync('test', ['-e', join(root, 'x')])).toThrow()
}, 600_000)

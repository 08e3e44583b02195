// tests/bench-canonical: `bench run --bench NAME` on the tiny canonical benchmark (searchgymbench-tiny-v1: the same
// mechanism as searchgymbench-v1 on the tiny preset) — with no world argument it builds worlds/NAME once with the
// pinned seed, checks the content hash and prints name, version and hash in the summary and report.md; a world of
// another seed is refused before anything is scored. Real CLI processes, real builds.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CANONICAL_BENCHES } from '../bench/canonical'

const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const cwd = mkdtempSync(join(tmpdir(), 'bench-canonical-'))
afterAll(() => rmSync(cwd, { recursive: true, force: true }))
const HASH = CANONICAL_BENCHES['searchgymbench-tiny-v1'].hash

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, SEARCHGYM_QUIET: '1' } })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

test('no world given: builds worlds/NAME with the pinned seed, checks the hash, prints name, version and hash', async () => {
  const r = await cli(['bench', 'run', '--bench', 'searchgymbench-tiny-v1', '--policy', 'oracle', '--limit', '3', '--bootstrap', '50', '--out', 'runs/c', '--quiet'])
  expect(r.stderr).toMatch(/building the searchgymbench-tiny-v1 world \(preset tiny, seed 11\)/)
  expect(r.code).toBe(0)
  expect(existsSync(join(cwd, 'worlds/searchgymbench-tiny-v1/world.db'))).toBe(true)
  expect(r.stdout).toContain(`benchmark searchgymbench-tiny-v1 (version 1), world hash ${HASH} — a sample of 3 (--limit)`)
  expect(readFileSync(join(cwd, 'runs/c/report.md'), 'utf8')).toContain(`Benchmark **searchgymbench-tiny-v1** (version 1), world content hash \`${HASH}\``)
  // A second run finds the world (no build line) and scores the whole bench split.
  const again = await cli(['bench', 'run', '--bench', 'searchgymbench-tiny-v1', '--policy', 'oracle', '--bootstrap', '50', '--out', 'runs/c-all', '--quiet'])
  expect(again.code).toBe(0)
  expect(again.stderr).not.toMatch(/building/)
  expect(again.stdout).toMatch(new RegExp(`^benchmark searchgymbench-tiny-v1 \\(version 1\\), world hash ${HASH}$`, 'm'))
}, 600_000)

test('a world of another seed is refused before scoring; unknown names and changed protocols too', async () => {
  const b = await cli(['world', 'build', '--preset', 'tiny', '--seed', '12', '--out', 'worlds/tiny-12', '--quiet'])
  expect(b.code).toBe(0)
  const r = await cli(['bench', 'run', 'worlds/tiny-12', '--bench', 'searchgymbench-tiny-v1', '--policy', 'oracle', '--out', 'runs/wrong', '--quiet'])
  expect(r.code).toBe(1)
  expect(r.stderr.trim()).toMatch(/^searchgym: error: \S+tiny-12 has content hash [0-9a-f]{12}…, not searchgymbench-tiny-v1's pinned e2aa67711510…/)
  expect(existsSync(join(cwd, 'runs/wrong'))).toBe(false)
  const unknown = await cli(['bench', 'run', '--bench', 'searchgymbench-v0', '--policy', 'oracle', '--out', 'runs/x'])
  expect(unknown.stderr.trim()).toMatch(/--bench searchgymbench-v0 is not a known benchmark; known: searchgymbench-v1, searchgymbench-tiny-v1, searchgymbench-hard-v1$/)
  const opts = await cli(['bench', 'run', '--bench', 'searchgymbench-tiny-v1', '--policy', 'oracle', '--set', 'gym={"topK":3}', '--out', 'runs/x'])
  expect(opts.stderr.trim()).toMatch(/takes neither qaIds nor gym \(--set\)/)
}, 600_000)

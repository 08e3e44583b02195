// tests/reader-v1-compare: the recipe's last check (curriculum/recipes/reader-v1-compare.ts) — a run whose funnel equals
// the shipped start's passes (exit 0, every figure inside the shipped CI); a run one figure of which falls outside the
// shipped 95 % CI is named and fails (exit 1); a run folder without its funnel is a one-line error (exit 2). A real
// process on copies of the committed scores (curriculum/starts/reader-v1/scores).
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
const SCORES = join(ROOT, 'curriculum/starts/reader-v1/scores')
const dir = mkdtempSync(join(tmpdir(), 'sg-rv1-compare-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const compare = (out: string) => spawnSync(process.execPath, [join(ROOT, 'bin/run-ts.mjs'), join(ROOT, 'curriculum/recipes/reader-v1-compare.ts'), out, SCORES], { encoding: 'utf8', cwd: ROOT })

test('the shipped funnel against itself: every figure inside its CI', () => {
  const r = compare(SCORES)
  expect(r.status).toBe(0)
  expect(r.stdout).toMatch(/every figure of the run \(36\) lies inside the shipped start's 95 % CI/)
  expect(r.stdout).toMatch(/\| small-bd6747e2-s101 \| 1 \| 300 \/ 300 \| F1 \| 62\.5 ± 5\.3 \| 62\.5 \| \+0\.0 ± 7\.5 \| yes \|/)
}, 30_000)

test('one figure outside the shipped CI is named and fails; a run without its funnel is a one-line error', () => {
  const run = join(dir, 'run')
  cpSync(SCORES, run, { recursive: true })
  const f = join(run, 'funnel-unseen.json')
  const j = JSON.parse(readFileSync(f, 'utf8')) as { results: Record<string, Record<string, { f1: number }>> }
  // The run was built elsewhere (its slice keys name another folder) and reads w102's one-hop questions 8 pp worse.
  const moved = Object.fromEntries(Object.entries(j.results).map(([k, v]) => [k.replace('runs/reader-v1', 'runs/elsewhere'), v]))
  moved['runs/elsewhere/worlds/small-bd6747e2-s102'].hops1.f1 -= 0.08
  writeFileSync(f, JSON.stringify({ ...j, results: moved }))
  const r = compare(run)
  expect(r.status).toBe(1)
  expect(r.stdout).toMatch(/\| small-bd6747e2-s102 \| 1 \| 300 \/ 300 \| F1 \| 64\.7 ± 5\.3 \| 56\.7 \| -8\.0 ± 7\.4 \| \*\*no\*\* \|/)
  expect(r.stdout).toMatch(/1 of 36 figures of the run lie outside the shipped start's 95 % CI/)
  const none = compare(join(dir, 'nothing'))
  expect(none.status).toBe(2)
  expect(none.stderr.trim().split('\n')).toHaveLength(1)
  expect(none.stderr).toMatch(/funnel-unseen\.json is missing: finish the recipe first/)
}, 30_000)

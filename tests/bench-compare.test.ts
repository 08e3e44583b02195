// tests/bench-compare: `bench compare` on constructed runs whose paired difference and CI are known by construction,
// through the library and through the real CLI in a child process.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareRuns, loadRun } from '../bench/compare'
import type { TrajectoryRecord } from '../bench/types'

const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function rec(id: string, em: number, type: TrajectoryRecord['type'], hops: number): TrajectoryRecord {
  return {
    v: 1, id, type, hops, question: `q ${id}`, golds: ['a'], status: 'ok', prediction: em ? 'a' : 'b', stopReason: 'answer', formatValid: true, f1: em, em,
    initial: [], turns: [], counts: { turns: 1, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 }, tokens: { prompt: 0, completion: 0 },
    infra: { requests: 1, attempts: 1, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 }, latencyMs: 1,
  }
}

function writeRun(name: string, recs: TrajectoryRecord[]): string {
  const d = join(dir, name)
  mkdirSync(d, { recursive: true })
  writeFileSync(join(d, 'trajectories.jsonl'), recs.map((r) => JSON.stringify(r) + '\n').join(''))
  return d
}

// 200 paired questions. Baseline right on q0..q99. The run is right on the same 100 and on 40 more (no losses):
// every paired difference is 0 or 1, 40 of 200 are 1 ⇒ mean +0.2 exactly, bootstrap CI ≈ 0.2 ± 1.96·sqrt(0.2·0.8/200).
const N = 200
const ids = Array.from({ length: N }, (_, i) => `q${String(i).padStart(3, '0')}`)
const typeOf = (i: number): TrajectoryRecord['type'] => (i % 2 === 0 ? 'simple' : 'parallel')
const A = writeRun('A', ids.map((id, i) => rec(id, i < 100 ? 1 : 0, typeOf(i), 1 + (i % 3))))
// B also has 5 questions A never ran: they must be left out of the pairing.
const B = writeRun('B', [...ids.map((id, i) => rec(id, i < 140 ? 1 : 0, typeOf(i), 1 + (i % 3))), ...['x1', 'x2', 'x3', 'x4', 'x5'].map((id) => rec(id, 1, 'combo', 2))])

it('recovers a difference known by construction with the analytic CI and tests', () => {
  const c = compareRuns([loadRun(A), loadRun(B)], { resamples: 4000, seed: 3 })
  expect(c.paired.B).toBe(200)
  expect(c.unpaired.B).toBe(5)
  const em = c.rows.find((r) => r.group === 'all' && r.metric === 'em')!
  expect(em.baselineMean).toBeCloseTo(0.5, 12)
  expect(em.runMean).toBeCloseTo(0.7, 12)
  expect(em.diff.mean).toBeCloseTo(0.2, 12)
  const half = 1.96 * Math.sqrt((0.2 * 0.8) / N)
  expect(Math.abs(em.diff.lo - (0.2 - half))).toBeLessThan(0.012)
  expect(Math.abs(em.diff.hi - (0.2 + half))).toBeLessThan(0.012)
  expect([em.diff.wins, em.diff.losses, em.diff.ties]).toEqual([40, 0, 160])
  expect(em.diff.pSign).toBeCloseTo(2 / 2 ** 40, 20)
  expect(em.diff.pPermutation).toBeLessThan(0.001)
  // by type: 20 wins among 100 simple and 20 among 100 parallel ⇒ +0.2 each
  for (const g of ['type=simple', 'type=parallel']) expect(c.rows.find((r) => r.group === g && r.metric === 'em')!.diff.mean).toBeCloseTo(0.2, 12)
  // no judge in either run ⇒ no judge rows
  expect(c.rows.some((r) => r.metric === 'judge')).toBe(false)
})

it('a run compared with itself differs by exactly 0 with p = 1', () => {
  const c = compareRuns([loadRun(A), loadRun(A)], { resamples: 500, seed: 3 })
  const f1 = c.rows.find((r) => r.group === 'all' && r.metric === 'f1')!
  expect([f1.diff.mean, f1.diff.lo, f1.diff.hi, f1.diff.pPermutation, f1.diff.pSign]).toEqual([0, 0, 0, 1, 1])
})

it('the CLI prints the paired table and writes compare.md / compare.svg', () => {
  const out = join(dir, 'cmp')
  const text = execFileSync(process.execPath, ['bin/searchgym.mjs', 'bench', 'compare', A, B, '--out', out, '--groups', 'all'], { encoding: 'utf8' })
  expect(text).toMatch(/baseline: A; paired questions \(scored in both runs\): B 200/)
  expect(text).toMatch(/warning: B: 5 questions left out of the pairing \(5 only in B's log\)/)
  expect(text).toMatch(/B\s+all\s+EM\s+200\s+50\.0\s+70\.0\s+\+20\.0 \[1\d\.\d, 2\d\.\d\]\s+40\/0\/160/)
  expect(readFileSync(join(out, 'compare.md'), 'utf8')).toContain('| B | type=simple | EM |')
  const svg = readFileSync(join(out, 'compare.svg'), 'utf8')
  expect(svg.startsWith('<svg')).toBe(true)
  expect(svg).not.toContain('NaN')
})

it('the CLI refuses a directory that is not a run with one line and a non-zero exit', () => {
  let err = ''
  try {
    execFileSync(process.execPath, ['bin/searchgym.mjs', 'bench', 'compare', A, join(dir, 'nope')], { encoding: 'utf8', stdio: 'pipe' })
  } catch (e) {
    err = (e as { stderr: string }).stderr
  }
  expect(err.trim().split('\n')).toHaveLength(1)
  expect(err).toMatch(/is not a bench run/)
})

// The case: a run that lost questions to the endpoint (status infra_error, never scored) must not be paired on
// them — pairing them as 0 would report a large significant drop that is an outage, not the model.
it('pairs only questions scored in both runs and states how many were left out and why', () => {
  const lost = (r: TrajectoryRecord): TrajectoryRecord => ({ ...r, status: 'infra_error', prediction: null, stopReason: null, formatValid: false, f1: 0, em: 0 })
  // Baseline right on every question; the run right on every question it scored, and lost 24 of 40 to the endpoint.
  const few = ids.slice(0, 40)
  const base = writeRun('lost-base', few.map((id, i) => rec(id, 1, typeOf(i), 1)))
  const run = writeRun('lost-run', few.map((id, i) => (i < 24 ? lost(rec(id, 0, typeOf(i), 1)) : rec(id, 1, typeOf(i), 1))))
  const c = compareRuns([loadRun(base), loadRun(run)], { resamples: 500, seed: 3 })
  expect(c.paired['lost-run']).toBe(16)
  expect(c.unpaired['lost-run']).toBe(24)
  expect(c.leftOut['lost-run']).toEqual({ baselineOnly: 0, runOnly: 0, lostBaseline: 0, lostRun: 24 })
  const f1 = c.rows.find((r) => r.group === 'all' && r.metric === 'f1')!
  // Over the 16 scored in both: no difference at all (pairing the lost ones as 0 would give -60 points, p < 0.001).
  expect([f1.diff.n, f1.diff.mean, f1.diff.pSign]).toEqual([16, 0, 1])
  const out = join(dir, 'cmp-lost')
  const text = execFileSync(process.execPath, ['bin/searchgym.mjs', 'bench', 'compare', base, run, '--out', out, '--groups', 'all'], { encoding: 'utf8' })
  expect(text).toMatch(/paired questions \(scored in both runs\): lost-run 16/)
  expect(text).toMatch(/warning: lost-run: 24 questions left out of the pairing \(24 lost to the endpoint in lost-run\)/)
  const md = readFileSync(join(out, 'compare.md'), 'utf8')
  expect(md).toContain('over the questions both runs scored')
  expect(md).toMatch(/`lost-run`: 16 paired questions; \*\*24 questions left out of the pairing \(24 lost to the endpoint in lost-run\)/)
  expect(JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')).leftOut['lost-run'].lostRun).toBe(24)
})

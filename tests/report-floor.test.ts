// tests/report-floor: every bench and experiment report shows the floor beside F1 and EM (issue 59, item 8d) — the F1
// and EM of the best constant answer per relation on the same questions (gym/floor). A bench run writes floor.json,
// summary.json's floor, a row of report.md's accuracy table and a part of its result line; `bench report` keeps it; an
// experiment's report.json and report.md carry it per table and in the summary line. c3906aa showed none of it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constantAnswerFloor } from '../gym'
import { openWorld, readQa } from '../world'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 300_000
const root = mkdtempSync(join(tmpdir(), 'sg-floor-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const readJson = <T>(p: string) => JSON.parse(readFileSync(p, 'utf8')) as T

test('bench run: floor.json, summary.json, report.md and the result line show the floor of the run\'s questions', async () => {
  const world = (await sharedTinyWorld()).dir
  const out = join(root, 'bench')
  const r = await runCli(['bench', 'run', world, '--policy', 'oracle', '--split', 'bench', '--bootstrap', '50', '--out', out, '--quiet'], LONG)
  expect(r.code).toBe(0)
  const w = openWorld(world)
  const expected = constantAnswerFloor(readQa(w.db).filter((q) => q.split === 'bench'))
  w.close()
  const s = readJson<{ floor: { n: number; f1: number; em: number; groups: number } }>(join(out, 'summary.json'))
  expect(s.floor).toMatchObject({ n: expected.n, groups: expected.groups.length })
  // The held-out form is shown (a relation asked once scores 0, not 1); the in-sample one is kept beside it.
  expect(s.floor.f1).toBeCloseTo(expected.heldF1, 12)
  expect(s.floor.em).toBeCloseTo(expected.heldEm, 12)
  expect(readJson<{ inSampleF1: number }>(join(out, 'floor.json')).inSampleF1).toBeCloseTo(expected.f1, 12)
  expect(readJson<{ perQuestion: Record<string, unknown> }>(join(out, 'floor.json')).perQuestion).toBeDefined()
  const pct = (x: number) => (100 * x).toFixed(1)
  const row = `| floor: a constant answer per relation | ${expected.n} | ${pct(expected.heldF1)} | ${pct(expected.heldEm)} |`
  expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(row)
  expect(r.stdout).toMatch(new RegExp(`floor F1 ${pct(expected.heldF1).replace('.', '\\.')} EM ${pct(expected.heldEm).replace('.', '\\.')} \\(a constant answer per relation\\)`))
  expect((await runCli(['bench', 'report', out, '--bootstrap', '60'])).code).toBe(0)
  expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(row)
}, LONG)

test('experiment run: report.json and report.md show the floor per table and in the result line', async () => {
  const out = join(root, 'exp')
  const r = await runCli(['experiment', 'run', 'curriculum/experiments/quick-smoke.json', '--out', out, '--quiet'], LONG)
  expect(r.code).toBe(0)
  const rep = readJson<{ sets: { questions: number; floor: { n: number; f1: number } | null }[]; summary: string[] }>(join(out, 'report.json'))
  expect(rep.sets.length).toBeGreaterThan(0)
  for (const set of rep.sets) expect(set.floor).toMatchObject({ n: set.questions })
  expect(rep.summary[0]).toMatch(/; EM [\d.]+% → [\d.]+%, paired gain [+-][\d.]+ pp \[95% CI [+-][\d.]+, [+-][\d.]+\]; floor F1 [\d.]+% EM [\d.]+% \(a constant answer per relation\)$/)
  const md = readFileSync(join(out, 'report.md'), 'utf8')
  expect(md).toMatch(/^\| floor: a constant answer per relation \| – \| [\d.]+ \| [\d.]+ \| – \| – \|$/m)
}, LONG)

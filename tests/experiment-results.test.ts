// tests/experiment-results: `experiment run --results RDIR` carries an experiment across sessions through the real CLI
// (tests/fixtures/experiment-results.json: one tiny training world, one never-trained world, a one-step SFT start,
// a two-stage arm and a no-Access arm × two seeds × one GRPO step) — an uninterrupted run exports every unit and the
// report (and a finished --out given --results later exports the same files); a copy of that folder resumed in a fresh --out restores every unit and trains nothing, and a folder holding
// only some units is finished in a fresh --out, both to report.json / report.md / SVGs equal byte for byte to the
// uninterrupted run's; runs with 0 optimizer steps are flagged in report.md and report.json; no report or kept file
// holds a machine path (a model-folder start reads 'curriculum/starts/reader-v0'); bad --results folders are one-line
// errors before any work.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'

const LONG = 120_000
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
const root = mkdtempSync(join(tmpdir(), 'sg-exp-results-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const fixture = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/experiment-results.json'), 'utf8')) as Record<string, Record<string, unknown>>
const writeSpec = (name: string, v: object) => {
  const f = join(root, name)
  writeFileSync(f, JSON.stringify(v))
  return f
}
// The world cache in this test's folder (every run here reuses the two built worlds).
const spec = writeSpec('fixture.json', { ...fixture, worlds: { ...fixture.worlds, cache: join(root, 'worlds') } })
const REPORT_FILES = ['report.json', 'report.md', 'curves.svg', 'gains.svg']
const UNITS = ['no-access-s0', 'no-access-s1', 'start', 'two-stage-s0', 'two-stage-s1']
const out1 = join(root, 'out1')
const r1 = join(root, 'r1')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]))
}
const sameReport = (a: string, b: string) => {
  for (const f of REPORT_FILES) expect([f, readFileSync(join(a, f)).equals(readFileSync(join(b, f)))]).toEqual([f, true])
}
/** A results folder holding only `keep` of R1's units (as a session that stopped after them would have left it). */
function partialResults(dir: string, keep: string[]): void {
  mkdirSync(dir)
  cpSync(join(r1, 'experiment.json'), join(dir, 'experiment.json'))
  for (const u of keep) {
    const dirs = u === 'start' ? ['start', 'eval', ...readdirSync(join(r1, 'bench')).filter((b) => b.startsWith('start@')).map((b) => `bench/${b}`)] : [`runs/${u}`, ...readdirSync(join(r1, 'bench')).filter((b) => b.startsWith(`${u}@`)).map((b) => `bench/${b}`)]
    for (const d of dirs) cpSync(join(r1, d), join(dir, d), { recursive: true })
  }
  writeFileSync(join(dir, 'units.json'), JSON.stringify({ units: keep }))
}

describe('experiment run --results (tiny fixture)', () => {
  it('an uninterrupted run exports every unit (small durable files, no machine path) and the report; 0-step runs are flagged', async () => {
    const r = await runCli(['experiment', 'run', spec, '--out', out1, '--results', r1], LONG)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/experiment results-fixture: 17 phases run, 0 found done; report/)
    expect(r.stderr).toMatch(/results .*r1: nothing to restore; 5 of 5 units to run: start, two-stage-s0, two-stage-s1, no-access-s0, no-access-s1/)
    expect(r.stderr).toMatch(/unit two-stage-s0 exported to/)
    expect((JSON.parse(readFileSync(join(r1, 'units.json'), 'utf8')) as { units: string[] }).units).toEqual(UNITS)
    sameReport(out1, r1)
    const kept = files(r1).map((f) => relative(r1, f))
    // Adapters, metrics, configs and compact bench logs; no checkpoints, model, worlds, charts or transcripts.
    expect(kept).toContain('runs/two-stage-s0/adapter/adapter_model.safetensors')
    expect(kept).toContain('start/adapter/adapter_model.safetensors')
    expect(kept).toContain('bench/no-access-s1@unseen+noaccess/trajectories.jsonl')
    expect(kept.filter((f) => /checkpoint|^model\/|^worlds\/|charts|\.tmp$/.test(f))).toEqual([])
    for (const f of files(r1)) expect([f, statSync(f).size < 64 * 1024]).toEqual([f, true])
    const rec = JSON.parse(readFileSync(join(r1, 'bench/start@unseen/trajectories.jsonl'), 'utf8').split('\n')[0]) as Record<string, unknown>
    expect(rec).toHaveProperty('f1')
    expect(rec).not.toHaveProperty('turns')
    // Paths in kept JSON files are written relative to the experiment folder.
    const cfg = JSON.parse(readFileSync(join(r1, 'runs/two-stage-s1/config.json'), 'utf8')) as { model: string; adapter: string; world: string }
    expect([cfg.model, cfg.adapter, cfg.world]).toEqual(['model', 'start/adapter', expect.stringMatching(/^worlds\/tiny-[0-9a-f]+-s5$/)])
    for (const f of files(r1)) {
      const text = readFileSync(f, 'latin1')
      expect([f, text.includes(root) || text.includes(ROOT)]).toEqual([f, false])
    }
    // At this size no group has a reward spread: every run made 0 optimizer steps, said loudly in both reports.
    const rep = JSON.parse(readFileSync(join(out1, 'report.json'), 'utf8')) as { warning: boolean; runs: { run: string; optimizerSteps: number; warning: boolean }[] }
    expect(rep.warning).toBe(true)
    expect(rep.runs.map((x) => [x.run, x.optimizerSteps, x.warning])).toEqual(['two-stage-s0', 'two-stage-s1', 'no-access-s0', 'no-access-s1'].map((n) => [n, 0, true]))
    const md = readFileSync(join(out1, 'report.md'), 'utf8')
    expect(md).toContain('WARNING: run `two-stage-s0` made 0 optimizer steps (1 steps)')
    // Optimizer steps 0, tokens 0, the informative share of its groups per stage, the flag.
    expect(md).toMatch(/\| no-access-s1 \|.*\| 0 \| 0 \| stage1 [\d.]+% of \d+ \| WARNING \|/)
    expect(md).toMatch(/Informative GRPO groups[^\n]*per arm and stage[\s\S]*\| no-access \| 2 \| stage1 [\d.]+% of \d+ \|/)
    for (const f of REPORT_FILES) {
      const text = readFileSync(join(out1, f), 'utf8')
      expect([f, text.includes(root) || text.includes(ROOT) || /"\/(tmp|work|home|root)\//.test(text)]).toEqual([f, false])
    }
  }, LONG)

  it('a results folder whose unit was edited after its export is refused in one line (issue 59), before anything is restored', async () => {
    const r3 = join(root, 'edited', 'results')
    cpSync(r1, r3, { recursive: true })
    const log = join(r3, 'bench', 'two-stage-s0@unseen', 'trajectories.jsonl')
    const lines = readFileSync(log, 'utf8').split('\n')
    lines[0] = lines[0].replace(/"f1":[0-9.]+/, '"f1":0.987')
    writeFileSync(log, lines.join('\n'))
    expect((JSON.parse(readFileSync(join(r3, 'units.json'), 'utf8')) as { sha256: Record<string, string> }).sha256['two-stage-s0']).toMatch(/^[0-9a-f]{64}$/)
    const out3 = join(root, 'out3')
    const r = await runCli(['experiment', 'run', spec, '--out', out3, '--results', r3], LONG)
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/unit two-stage-s0 changed since it was exported .*remove 'two-stage-s0' from units.json to run it again$/)])
    expect(existsSync(join(out3, 'runs'))).toBe(false)
  }, LONG)

  it('a copy of the results folder, resumed in a fresh --out, restores every unit, trains nothing, and writes the same report', async () => {
    const r2 = join(root, 'clone', 'results')
    cpSync(r1, r2, { recursive: true })
    const out2 = join(root, 'out2')
    const r = await runCli(['experiment', 'run', spec, '--out', out2, '--results', r2], LONG)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/1 phases run, 16 found done, 5 units restored from .*results; report/)
    expect(r.stderr).toMatch(/restored start, two-stage-s0, two-stage-s1, no-access-s0, no-access-s1; all 5 units done/)
    // Nothing ran but the report: no world built, no SFT or GRPO step, no bench.
    expect(r.stderr).not.toMatch(/\] (worlds|model|start|train:|bench:)|step 1\/1|building/)
    expect(existsSync(join(out2, 'model'))).toBe(false)
    sameReport(out1, out2)
    // The results folder is unchanged (its report was the same bytes already).
    for (const f of files(r1)) expect([f, readFileSync(f).equals(readFileSync(join(r2, relative(r1, f))))]).toEqual([f, true])
  }, LONG)

  it('a finished --out given --results later exports every unit at once, the same files as exporting unit by unit', async () => {
    const late = join(root, 'late')
    const r = await runCli(['experiment', 'run', spec, '--out', out1, '--results', late], LONG)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/late: nothing to restore; all 5 units done/)
    expect(files(late).map((f) => relative(late, f)).sort()).toEqual(files(r1).map((f) => relative(r1, f)).sort())
    for (const f of files(r1)) expect([f, readFileSync(f).equals(readFileSync(join(late, relative(r1, f))))]).toEqual([f, true])
  }, LONG)

  it('a results folder with only the start and one run done is finished in a fresh --out to the same report, bit for bit', async () => {
    const r3 = join(root, 'r3')
    partialResults(r3, ['start', 'two-stage-s0'])
    const out3 = join(root, 'out3')
    const r = await runCli(['experiment', 'run', spec, '--out', out3, '--results', r3], LONG)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/restored start, two-stage-s0; 3 of 5 units to run: two-stage-s1, no-access-s0, no-access-s1/)
    expect(r.stderr).not.toMatch(/\] (start|train:two-stage-s0|bench:start@|bench:two-stage-s0@)/)
    expect(r.stderr).toMatch(/\] train:two-stage-s1/)
    sameReport(out1, out3)
    expect((JSON.parse(readFileSync(join(r3, 'units.json'), 'utf8')) as { units: string[] }).units).toEqual(UNITS)
    // The units run here (from the regenerated model and the restored start adapter) are the uninterrupted run's.
    for (const run of ['two-stage-s1', 'no-access-s1']) expect(readFileSync(join(r3, 'runs', run, 'adapter/adapter_model.safetensors')).equals(readFileSync(join(r1, 'runs', run, 'adapter/adapter_model.safetensors')))).toBe(true)
    sameReport(r1, r3)
  }, LONG)

  it('a model-folder start is recorded by its repository path and sha256: a copied experiment folder reports the same bytes', async () => {
    const mspec = writeSpec('model-start.json', {
      ...fixture,
      name: 'results-model',
      worlds: { ...fixture.worlds, cache: join(root, 'worlds') },
      start: { model: join(ROOT, 'curriculum/starts/reader-v0') },
      arms: [(fixture.arms as unknown as object[])[0]],
      seeds: [0],
    })
    const m1 = join(root, 'm1')
    const mr = join(root, 'mr')
    const r = await runCli(['experiment', 'run', mspec, '--out', m1, '--results', mr], LONG)
    expect(r.code).toBe(0)
    const rep = JSON.parse(readFileSync(join(m1, 'report.json'), 'utf8')) as { start: { model: string; sha256: string } }
    expect(rep.start.model).toBe('curriculum/starts/reader-v0')
    expect(rep.start.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(readFileSync(join(m1, 'report.md'), 'utf8')).toContain('Start: model folder `curriculum/starts/reader-v0`')
    expect((JSON.parse(readFileSync(join(mr, 'experiment.json'), 'utf8')) as { start: { model: string } }).start.model).toBe('curriculum/starts/reader-v0')
    for (const f of [...files(mr), ...REPORT_FILES.map((x) => join(m1, x))]) {
      const text = readFileSync(f, 'latin1')
      expect([f, text.includes(root) || text.includes(ROOT)]).toEqual([f, false])
    }
    // The experiment folder moved elsewhere re-renders its report to the same bytes (no path depends on where it is).
    const moved = join(root, 'elsewhere', 'deeper', 'm1')
    cpSync(m1, moved, { recursive: true })
    rmSync(join(moved, 'report.md'))
    rmSync(join(moved, 'report.json'))
    expect((await runCli(['experiment', 'report', moved])).code).toBe(0)
    sameReport(m1, moved)
    // A results folder run from another start (sha256) is refused before any work.
    const mr2 = join(root, 'mr2')
    cpSync(mr, mr2, { recursive: true })
    writeFileSync(join(mr2, 'start/start.json'), JSON.stringify({ model: 'curriculum/starts/reader-v0', sha256: '0'.repeat(64) }))
    const bad = await runCli(['experiment', 'run', mspec, '--out', join(root, 'm2'), '--results', mr2])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/was run from a start with sha256 000000000000…/)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(existsSync(join(root, 'm2'))).toBe(false)
  }, LONG)

  it('bad --results folders are one-line errors before any work', async () => {
    const other = writeSpec('other.json', { ...fixture, worlds: { ...fixture.worlds, cache: join(root, 'worlds') }, seeds: [0] })
    const stray = join(root, 'stray')
    mkdirSync(stray)
    writeFileSync(join(stray, 'notes.txt'), 'x')
    writeFileSync(join(root, 'a-file'), 'x')
    const fresh = join(root, 'never')
    const cases: [string[], RegExp][] = [
      [[other, '--out', fresh, '--results', r1], /holds the results of another experiment/],
      [[spec, '--out', fresh, '--results', fresh], /--results .*never is the --out folder/],
      [[spec, '--out', fresh, '--results', join(fresh, 'results')], /is inside the --out folder/],
      [[spec, '--out', join(root, 'r1', 'out'), '--results', r1], /holds the --out folder/],
      [[spec, '--out', fresh, '--results', join(root, 'a-file')], /is a file; give a folder/],
      [[spec, '--out', fresh, '--results', stray], /is a folder of something else/],
      [[spec, '--out', fresh, '--results', ''], /--results needs a folder/],
    ]
    for (const [args, msg] of cases) {
      const r = await runCli(['experiment', 'run', ...args])
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(msg)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(existsSync(fresh)).toBe(false)
    expect(readdirSync(stray)).toEqual(['notes.txt'])
    // A unit recorded done whose run folder was deleted by hand is refused, not silently reported without it.
    const torn = join(root, 'torn')
    cpSync(r1, torn, { recursive: true })
    rmSync(join(torn, 'runs', 'no-access-s1'), { recursive: true })
    const t = await runCli(['experiment', 'run', spec, '--out', join(root, 'torn-out'), '--results', torn])
    expect(t.code).not.toBe(0)
    expect(t.stderr).toMatch(/unit no-access-s1 is recorded done in units.json but runs\/no-access-s1 is missing/)
    expect(t.stderr.trim().split('\n')).toHaveLength(1)
  }, LONG)
})

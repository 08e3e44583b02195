// tests/train-quick: `searchgym train --preset quick-smoke` (curriculum/experiments/quick-smoke.json run by the
// experiment driver) through the real CLI: it finishes, prints its held-out before/after line with the paired gain and
// CI (whatever the numbers are) — the same line the experiment report states —, checkpoints after every GRPO step; a
// rerun finds every phase done and prints the same line; a larger --steps lengthens the run from its last checkpoint;
// bad input is one line with a non-zero exit.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'

const LONG = 600_000
const root = mkdtempSync(join(tmpdir(), 'sg-train-quick-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const RESULT = /^held-out F1 \((\d+) questions\): start ([\d.]+)% → trained ([\d.]+)% after 2 GRPO steps \((\d+) optimizer steps\); paired gain ([+-][\d.]+) pp \[95% CI ([+-][\d.]+), ([+-][\d.]+)\]: (a gain \(CI above 0\)|a loss \(CI below 0\)|no gain at this size \(CI includes 0\)|0 optimizer steps: every group was constant[^;]*)(; EM [\d.]+% → [\d.]+%, paired gain [+-][\d.]+ pp \[95% CI [+-][\d.]+, [+-][\d.]+\])?; floor F1 [\d.]+% EM [\d.]+% \(a constant answer per relation\); \d+ s$/

describe('searchgym train --preset quick-smoke', () => {
  const out = join(root, 'quick')
  let first = ''
  it('finishes and prints its held-out result line; a checkpoint after every step', async () => {
    const r = await runCli(['train', '--preset', 'quick-smoke', '--out', out], LONG)
    expect(r.stderr).not.toMatch(/Error/)
    expect(r.code).toBe(0)
    first = r.stdout.trim()
    const m = RESULT.exec(first)
    expect(m).not.toBeNull()
    const [, n, start, trained, optimizerSteps, gain, lo, hi] = m!.map(Number)
    expect(n).toBe(4)
    // The optimizer steps printed are the run's own (metrics.jsonl), and a run without any says so in its last line.
    const run = join(out, 'runs', 'trained-s0')
    const summed = readFileSync(join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').reduce((a, l) => a + (JSON.parse(l) as { optimizerSteps: number }).optimizerSteps, 0)
    expect(optimizerSteps).toBe(summed)
    if (optimizerSteps === 0) expect(first).toMatch(/0 optimizer steps: every group was constant/)
    // The printed numbers are the compare's: the gain is trained − start (rounding aside) and lies inside its CI.
    expect(Math.abs(trained - start - gain)).toBeLessThan(0.11)
    expect(lo).toBeLessThanOrEqual(gain)
    expect(hi).toBeGreaterThanOrEqual(gain)
    expect(r.stderr).toMatch(/experiment quick-smoke: \[\d+\/8\] train:trained-s0/)
    for (const s of [1, 2]) expect(existsSync(join(run, 'checkpoints', `step-00000${s}`, 'optimizer.safetensors'))).toBe(true)
    expect(readFileSync(join(run, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2)
    // The experiment's report says the same (without the wall time, which no report holds).
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { summary: string[] }
    expect(report.summary).toEqual([first.replace(/; \d+ s$/, '')])
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(report.summary[0])
  }, LONG)

  it('a rerun finds every phase done and prints the same result; a larger --steps lengthens the run from its last step', async () => {
    const r = await runCli(['train', '--preset', 'quick-smoke', '--out', out], LONG)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/experiment quick-smoke: done in \d+ s$/m)
    expect(r.stdout.trim().replace(/; \d+ s$/, '')).toBe(first.replace(/; \d+ s$/, ''))
    const longer = await runCli(['train', '--preset', 'quick-smoke', '--steps', '3', '--out', out], LONG)
    expect(longer.code).toBe(0)
    expect(longer.stderr).toContain('experiment quick-smoke: lengthening the runs from 2 to 3 steps')
    expect(longer.stderr).toMatch(/^train: trained-s0: resuming from step 2 \(/m)
    expect(longer.stdout.trim()).toMatch(/^held-out F1 \(4 questions\): start [\d.]+% → trained [\d.]+% after 3 GRPO steps /)
    expect(readFileSync(join(out, 'runs', 'trained-s0', 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3)
    const shorter = await runCli(['train', '--preset', 'quick-smoke', '--steps', '2', '--out', out])
    expect(shorter.code).not.toBe(0)
    expect(shorter.stderr.trim().split('\n')).toHaveLength(1)
    expect(shorter.stderr).toMatch(/holds runs of 3 steps; 2 steps would shorten them/)
  }, LONG)

  it('bad input: an unknown preset, or --preset with --model — one line, exit ≠ 0', async () => {
    const bad = await runCli(['train', '--preset', 'nope', '--out', join(root, 'bad')])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).toMatch(/unknown train preset 'nope'; use one of: quick, quick-scratch, quick-smoke/)
    const both = await runCli(['train', '--preset', 'quick', '--model', 'm', '--out', join(root, 'bad2')])
    expect(both.code).not.toBe(0)
    expect(both.stderr.trim().split('\n')).toHaveLength(1)
    expect(both.stderr).toMatch(/drop --model/)
    const none = await runCli(['train', '--out', join(root, 'bad3')])
    expect(none.code).not.toBe(0)
    expect(none.stderr).toMatch(/give --model \(or --preset quick/)
  }, LONG)

  it('--preset quick starts from the shipped reader on a world it never trained on: no SFT, the held-out slice written, real updates', async () => {
    const q = join(root, 'from-start')
    const r = await runCli(['train', '--preset', 'quick', '--steps', '2', '--out', q], LONG)
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toMatch(/^held-out F1 \(\d+ questions\): start [\d.]+% → trained [\d.]+% after 2 GRPO steps \(\d+ optimizer steps\); paired gain /)
    expect((JSON.parse(readFileSync(join(q, 'start', 'start.json'), 'utf8')) as { model: string }).model).toBe('curriculum/starts/reader-v1')
    expect(existsSync(join(q, 'model'))).toBe(false)
    expect((JSON.parse(readFileSync(join(q, 'eval', 'held-out.json'), 'utf8')) as { ids: string[] }).ids.length).toBe(180)
    expect(readFileSync(join(q, 'runs', 'trained-s0', 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2)
  }, LONG)
})

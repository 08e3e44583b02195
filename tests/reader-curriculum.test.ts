// tests/reader-curriculum: `searchgym train reader` end to end through the real CLI on tiny worlds — the oracle plays
// every chosen question through the leadSpace gym (all solved), two phases run with their gates, a second writer on a
// running folder is refused, a run SIGKILLed
// between a step's metrics line and its checkpoint resumes to the same metrics, evaluations and model bytes as an
// uninterrupted run, finished phases written to a committed folder are adopted by a fresh run folder (same model), a
// phase pinned to end early (stopAt) repeats the full phase's steps up to there, and a bad config is refused in one line
// before any work.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliEntry, runCli } from './helpers/cli-process'
import { holdAtPoint } from './helpers/hold'

const LONG = 600_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-reader-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const CONFIG = {
  worlds: { preset: 'tiny', train: [1, 2], valid: [3], test: [] },
  init: { tokenizerWorlds: 2, vocab: 1024 },
  heldOut: 8,
  questions: { hops1: 40, hops2: 20 },
  eval: { items: 12, e2e: 6 },
  checkpointEvery: 3,
  phases: [
    { name: 'copy', mix: { fact: 3, ctx2: 1 }, steps: 10, warmup: 2, batch: 4, gate: { metric: 'fact', every: 4, patience: 5, report: ['page'] } },
    { name: 'turns', mix: { search: 1, access: 1, hop: 1, demo: 1 }, steps: 4, warmup: 1, batch: 4, maxHops: 2, gate: { metric: 'search', every: 2, patience: 5, report: ['e2e'] } },
  ],
}
const cfg = join(root, 'reader.json')
writeFileSync(cfg, JSON.stringify(CONFIG))
const args = (out: string, more: string[] = []) => ['train', 'reader', '--config', cfg, '--out', out, '--backend', 'ts', ...more]
const bytes = (f: string) => readFileSync(f).toString('base64')
const OUTPUTS = ['phases/copy/metrics.jsonl', 'phases/copy/eval.jsonl', 'phases/copy/model/model.safetensors', 'phases/turns/metrics.jsonl', 'phases/turns/model/model.safetensors', 'model/model.safetensors']

describe('searchgym train reader (tiny worlds)', () => {
  const a = join(root, 'a')
  const committed = join(root, 'committed')
  it('runs both phases; the oracle solves every chosen question through the leadSpace gym', async () => {
    const r = await runCli(args(a, ['--committed', committed]), LONG)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/train reader: 2 phases done/)
    const items = JSON.parse(readFileSync(join(a, 'items.json'), 'utf8'))
    expect(items.trainSolved).toBe(items.trainQuestions)
    expect(items.trainQuestions).toBeGreaterThan(40)
    expect(items.contiguity.contiguous).toBe(items.contiguity.n)
    const copy = JSON.parse(readFileSync(join(a, 'phases/copy/phase.json'), 'utf8'))
    expect(copy).toMatchObject({ name: 'copy', steps: 10, reason: 'steps' })
    // Evaluations at steps 4, 8 and the last step, each with the gate's and the reported kinds.
    expect(copy.evals.map((e: { step: number }) => e.step)).toEqual([4, 8, 10])
    expect(Object.keys(copy.evals[0])).toEqual(expect.arrayContaining(['fact', 'page']))
    expect(readFileSync(join(a, 'phases/copy/metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(10)
    const turns = JSON.parse(readFileSync(join(a, 'phases/turns/phase.json'), 'utf8'))
    expect(turns.evals[0].e2e).toMatchObject({ n: 6 })
    expect(existsSync(join(a, 'model/tokenizer.json'))).toBe(true)
  }, LONG)

  it('a run SIGKILLed mid-phase resumes to the same metrics, evaluations and model bytes', async () => {
    const b = join(root, 'b')
    // Held right after step 7's metrics line (the last checkpoint was at step 6): the kill loses step 7.
    const p = spawn(process.execPath, [cliEntry(), ...args(b)], { cwd: ROOT, env: { ...process.env, ...holdAtPoint('reader-copy-step-7') } })
    await new Promise<void>((resolve, reject) => {
      let err = ''
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        if (err.includes('test hold')) resolve()
      })
      p.on('close', () => reject(new Error(`the run ended before the hold: ${err}`)))
    })
    // A second writer on the held run's folder is refused in one line before any work.
    const second = await runCli(args(b), LONG)
    expect(second.code).not.toBe(0)
    expect(second.stderr.trim().split('\n')).toHaveLength(1)
    expect(second.stderr).toMatch(/is in use by process \d+/)
    p.kill('SIGKILL')
    await new Promise((r) => p.on('close', r))
    expect(readFileSync(join(b, 'phases/copy/metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(7)
    const r = await runCli(args(b, ['--quiet']), LONG)
    expect(r.code).toBe(0)
    for (const f of OUTPUTS) expect(bytes(join(b, f))).toBe(bytes(join(a, f)))
  }, LONG)

  it('phases written to a committed folder are adopted by a fresh run folder', async () => {
    expect(existsSync(join(committed, 'copy/phase.json'))).toBe(true)
    const d = join(root, 'd')
    const r = await runCli(args(d, ['--committed', committed]), LONG, { SEARCHGYM_QUIET: '0' })
    expect(r.code).toBe(0)
    expect(r.stderr.match(/adopted the committed phase/g)).toHaveLength(2)
    expect(bytes(join(d, 'model/model.safetensors'))).toBe(bytes(join(a, 'model/model.safetensors')))
  }, LONG)

  it('a phase pinned to end at a step (stopAt) makes the same steps as the full phase up to there, its schedule planned over steps', async () => {
    const f = join(root, 'stop.json')
    writeFileSync(f, JSON.stringify({ ...CONFIG, phases: [{ ...CONFIG.phases[0], stopAt: 7 }] }))
    const s = join(root, 's')
    const r = await runCli(['train', 'reader', '--config', f, '--out', s, '--backend', 'ts', '--quiet'], LONG)
    expect(r.code).toBe(0)
    const copy = JSON.parse(readFileSync(join(s, 'phases/copy/phase.json'), 'utf8'))
    expect(copy).toMatchObject({ name: 'copy', steps: 7, reason: 'stopAt' })
    expect(copy.evals.map((e: { step: number }) => e.step)).toEqual([4, 7])
    // Steps 1–7 (loss, tokens, lr, grad norm) byte for byte those of the run that went to step 10.
    const lines = (dir: string) => readFileSync(join(dir, 'phases/copy/metrics.jsonl'), 'utf8').trim().split('\n')
    expect(lines(s)).toEqual(lines(a).slice(0, 7))
  }, LONG)

  it('refuses a bad config in one line before any work', async () => {
    const bad = join(root, 'bad.json')
    writeFileSync(bad, JSON.stringify({ ...CONFIG, phases: [{ ...CONFIG.phases[0], mix: { copyme: 1 } }] }))
    const r = await runCli(['train', 'reader', '--config', bad, '--out', join(root, 'e')], LONG)
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/phases\[0\]\.mix\.copyme is not a drill kind/)
    expect(existsSync(join(root, 'e'))).toBe(false)
  }, LONG)
})

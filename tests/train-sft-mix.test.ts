// tests/train-sft-mix: the reader's pipeline end to end through the real CLI on tiny built worlds — model init →
// model pretrain (every weight) → one mixed full-weight SFT (`train sft --full --mix …`) with the funnel on an unseen
// world → `bench run --policy engine` on the SFT's model folder; a CPU budget that stops the SFT inside an epoch and a
// rerun that resumes it to the bytes of an uninterrupted run; one-line errors for a bad mix and excluded flags.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'

const LONG = 600_000
const root = mkdtempSync(join(tmpdir(), 'sg-sft-mix-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const [w1, w2, unseen] = ['w1', 'w2', 'w9'].map((n) => join(root, n))
const model = join(root, 'model')
const pre = join(root, 'pre')

function sftArgs(out: string, extra: readonly string[] = [], mix = 'demo=1,search=1,answer=2,read=2,fact=2'): string[] {
  return ['train', 'sft', '--world', w1, '--world', w2, '--model', join(pre, 'model'), '--out', out, '--protocol', 'search-r1', '--max-hops', '1',
    '--questions', '8', '--spread', '--oracle-answer', 'read', '--gym-options', '{"topK":2,"observationCap":1500,"prompt":"brief","accessByTitle":true}',
    '--epochs', '2', '--batch', '4', '--lr', '0.001', '--held-out', '0', '--full', '--mix', mix, '--backend', 'auto', ...extra]
}

beforeAll(async () => {
  for (const [w, seed] of [[w1, '5'], [w2, '6'], [unseen, '9']] as const) expect((await runCli(['world', 'build', '--preset', 'tiny', '--seed', seed, '--out', w, '--quiet'], 300_000)).code).toBe(0)
  expect((await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${w1}`, '--out', model], 300_000)).code).toBe(0)
  const p = await runCli(['model', 'pretrain', '--model', model, '--world', w1, '--world', w2, '--eval-world', unseen, '--out', pre, '--steps', '12', '--set', 'batch=4', '--set', 'seqLen=64', '--set', 'evalEvery=0'], LONG)
  expect(p.code).toBe(0)
}, LONG)

test('pretrain → one mixed full-weight SFT with the funnel on an unseen world → bench on the model folder', async () => {
  const out = join(root, 'sft')
  const r = await runCli([...sftArgs(out), '--eval-world', unseen, '--eval-questions', '4', '--eval-hops', '1', '--eval-every', '2'], LONG, { SEARCHGYM_QUIET: '' })
  expect(r.code).toBe(0)
  // Every kind of the mix was made from the same demonstrations, in one run.
  const made = /sft: oracle solved (\d+)\/8 training questions; (\d+) sequences \(demo (\d+), search (\d+), answer (\d+), read (\d+), fact (\d+)\)/.exec(r.stderr)
  expect(made).not.toBeNull()
  const [solved, seqs, demo, search, answer, read, fact] = made!.slice(1).map(Number)
  expect(solved).toBeGreaterThan(0)
  expect(demo).toBe(solved)
  expect(answer).toBe(solved)
  expect(search + read).toBeGreaterThan(0)
  expect(fact).toBeGreaterThan(0)
  expect(seqs).toBe(demo + search + answer + read + fact)
  expect(r.stdout).toMatch(/train sft: \d+\/8 oracle episodes, \d+ steps, final loss [\d.]+, \d+ CPU s; model /)
  // A model folder, not an adapter: weights, config and the input's tokenizer files.
  for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(join(out, 'model', f))).toBe(true)
  expect(existsSync(join(out, 'adapter'))).toBe(false)
  const info = JSON.parse(readFileSync(join(out, 'sft.json'), 'utf8')) as { full: boolean; mix: Record<string, number>; spread: boolean }
  expect(info.full).toBe(true)
  expect(info.spread).toBe(true)
  expect(info.mix).toEqual({ demo: 1, search: 1, answer: 2, read: 2, fact: 2 })
  // The funnel: after every 2 steps and at the end, on the unseen world, each figure a rate in [0, 1].
  expect(r.stderr).toMatch(/sft eval step \d+, unseen 1-hop: n 4 {2}search [\d.]+% {2}opened [\d.]+% {2}read\|oracle EM [\d.]+% F1 [\d.]+% {2}F1 [\d.]+% ± [\d.]+ {2}EM [\d.]+% ± [\d.]+ {2}floor F1 [\d.]+% EM [\d.]+% \(in-sample [\d.]+% \/ [\d.]+%\) {2}answer loss [\d.]+/)
  const evals = readFileSync(join(out, 'eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { step: number; hops1: { n: number; search: number; opened: number; f1: number; readF1: number; answerLoss: number } })
  expect(evals.length).toBeGreaterThanOrEqual(2)
  for (const e of evals) {
    expect(e.hops1.n).toBe(4)
    expect(e.hops1.search).toBeLessThanOrEqual(4)
    expect(e.hops1.f1).toBeGreaterThanOrEqual(0)
    expect(e.hops1.readF1).toBeLessThanOrEqual(1)
    expect(e.hops1.answerLoss).toBeGreaterThan(0)
  }
  // The answer tokens' loss on the unseen world moves with training (it is measured, not a constant).
  expect(evals[0].hops1.answerLoss).not.toBe(evals[evals.length - 1].hops1.answerLoss)
  const b = await runCli(['bench', 'run', unseen, '--policy', 'engine', '--model', join(out, 'model'), '--protocol', 'search-r1', '--max-tokens', '16', '--limit', '2', '--bootstrap', '20', '--out', join(root, 'bench')], LONG)
  expect(b.code).toBe(0)
  expect(existsSync(join(root, 'bench', 'trajectories.jsonl'))).toBe(true)
}, LONG)

test('a CPU budget stops the SFT inside an epoch; the rerun resumes there and ends with the bytes of an uninterrupted run', async () => {
  const whole = join(root, 'whole')
  expect((await runCli(sftArgs(whole), LONG)).code).toBe(0)
  const cut = join(root, 'cut')
  const r1 = await runCli([...sftArgs(cut), '--cpu-budget', '0.01'], LONG)
  expect(r1.code).toBe(0)
  expect(r1.stdout).toMatch(/stopped by the CPU budget/)
  const progress = JSON.parse(readFileSync(join(cut, 'checkpoint', 'sft-progress.json'), 'utf8')) as { step: number; batch?: number }
  expect(progress.step).toBe(1)
  expect(progress.batch).toBe(1)
  const r2 = await runCli(sftArgs(cut), LONG, { SEARCHGYM_QUIET: '' })
  expect(r2.code).toBe(0)
  expect(r2.stderr).toMatch(/sft: resuming inside epoch 0 after batch 1 \(step 1\)/)
  expect(readFileSync(join(cut, 'model', 'model.safetensors')).equals(readFileSync(join(whole, 'model', 'model.safetensors')))).toBe(true)
  expect(readFileSync(join(cut, 'metrics.jsonl'), 'utf8')).toBe(readFileSync(join(whole, 'metrics.jsonl'), 'utf8'))
}, LONG)

test('a bad mix, --mix with --turn, --full with --init-adapter and a bad budget are one-line errors before any work', async () => {
  const cases: [string[], string | undefined, RegExp][] = [
    [[], 'demo=1,copy=2', /mix \(--mix\): 'copy=2' is not KIND or KIND=WEIGHT/],
    [[], 'demo=0', /mix \(--mix\) gives no kind a weight > 0/],
    [[], 'demo=-1', /the weight of demo must be a number in \[0, 1000\]/],
    [['--mix', 'demo'], undefined, /--mix was given 2 times; give it once/],
    [['--turn', '2'], undefined, /mix \(--mix\) sets each kind's weight itself/],
    [['--init-adapter', root], undefined, /full \(--full\) trains the model's own weights/],
    [['--cpu-budget', '0'], undefined, /cpuBudgetS \(--cpu-budget\) must be a number > 0, got 0/],
  ]
  for (const [extra, mix, msg] of cases) {
    const out = join(root, 'bad')
    const bad = await runCli(sftArgs(out, extra, mix), LONG)
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim().split('\n').filter((l) => l.includes('error')).length).toBe(1)
    expect(bad.stderr).toMatch(msg)
    expect(existsSync(out)).toBe(false)
  }
}, LONG)

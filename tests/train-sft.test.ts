// tests/train-sft: `searchgym train sft` through the real CLI on a tiny built world and a tiny random model — the
// oracle's search-r1 demonstrations (brief prompt, pages by title), a checkpoint after every epoch, and a run SIGKILLed
// after its first checkpoint that resumes and ends with metrics.jsonl and adapter bytes equal to an uninterrupted run's;
// a rerun with other settings into the same folder is a one-line error.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'

const LONG = 600_000
const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'sg-train-sft-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const world = join(root, 'world')
const model = join(root, 'model')

function sftArgs(out: string, epochs: number, lr = '0.001'): string[] {
  return ['train', 'sft', '--world', world, '--model', model, '--out', out, '--protocol', 'search-r1', '--max-hops', '1', '--questions', '6',
    '--gym-options', '{"topK":2,"observationCap":1500,"prompt":"brief","accessByTitle":true}', '--epochs', String(epochs), '--batch', '2',
    '--lr', lr, '--held-out', '0', '--lora-rank', '4', '--lora-embed', '--backend', 'auto']
}

/** The first step's metrics of a run folder (same seed: the same first batch in every run here). */
const first = (dir: string) => JSON.parse(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n')[0]) as { tokens: number; loss: number }

/** The one-epoch run of full demonstrations that the one-turn and weighted runs are compared with (made once). */
async function fullRun(): Promise<string> {
  const full = join(root, 'ans-full')
  if (!existsSync(join(full, 'sft.json'))) expect((await runCli(sftArgs(full, 1), LONG)).code).toBe(0)
  return full
}

/** Each [extra flags, message] is a one-line error with a non-zero exit that leaves no run folder behind. */
async function expectOneLineErrors(name: string, cases: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
  for (const [extra, msg] of cases) {
    const bad = await runCli([...sftArgs(join(root, name), 1), ...extra], LONG)
    expect(bad.code).not.toBe(0)
    expect(bad.stderr.trim().split('\n').filter((l) => l.includes('error')).length).toBe(1)
    expect(bad.stderr).toMatch(msg)
    expect(existsSync(join(root, name))).toBe(false)
  }
}

beforeAll(async () => {
  expect((await runCli(['world', 'build', '--preset', 'tiny', '--seed', '5', '--out', world, '--quiet'], 300_000)).code).toBe(0)
  expect((await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'], 300_000)).code).toBe(0)
}, LONG)

test('an SFT run SIGKILLed after an epoch resumes and ends bit-identical to an uninterrupted run', async () => {
  const full = join(root, 'full')
  const r = await runCli(sftArgs(full, 4), LONG)
  expect(r.code).toBe(0)
  expect(r.stderr).toMatch(/sft: oracle solved \d+\/\d+ training questions/)
  expect(existsSync(join(full, 'checkpoint', 'sft-progress.json'))).toBe(true)
  const metrics = readFileSync(join(full, 'metrics.jsonl'), 'utf8')
  expect(metrics.trim().split('\n').length).toBeGreaterThan(4)

  // Kill the second run as soon as its first epoch's checkpoint is in place.
  const cut = join(root, 'cut')
  await new Promise<void>((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...sftArgs(cut, 4)], { cwd: ROOT, stdio: 'ignore' })
    const poll = setInterval(() => {
      if (existsSync(join(cut, 'checkpoint', 'sft-progress.json'))) p.kill('SIGKILL')
    }, 5)
    p.on('close', () => {
      clearInterval(poll)
      resolve()
    })
    p.on('error', reject)
  })
  const progress = JSON.parse(readFileSync(join(cut, 'checkpoint', 'sft-progress.json'), 'utf8')) as { epoch: number }
  expect(existsSync(join(cut, 'adapter'))).toBe(false)
  const again = await runCli(sftArgs(cut, 4), LONG)
  expect(again.code).toBe(0)
  expect(again.stderr).toContain(`sft: resuming after epoch ${progress.epoch}`)
  expect(progress.epoch).toBeLessThan(3)
  expect(readFileSync(join(cut, 'metrics.jsonl'), 'utf8')).toBe(metrics)
  expect(readFileSync(join(cut, 'adapter', 'adapter_model.safetensors')).equals(readFileSync(join(full, 'adapter', 'adapter_model.safetensors')))).toBe(true)
  const cfg = JSON.parse(readFileSync(join(full, 'adapter', 'adapter_config.json'), 'utf8')) as { target_modules: string[] }
  expect(cfg.target_modules).toContain('embed_tokens')

  // Other settings into a folder that holds a run: a one-line error, exit 1.
  const bad = await runCli(sftArgs(cut, 4, '0.002'), LONG)
  expect(bad.code).not.toBe(0)
  expect(bad.stderr.trim().split('\n').filter((l) => l.includes('error')).length).toBe(1)
  expect(bad.stderr).toMatch(/holds an SFT run with other settings/)
}, LONG)

test('--init-adapter continues from an adapter (its first loss below that of a new adapter on the same batch) and --first-turns adds first-turn sequences', async () => {
  const base = join(root, 'base')
  expect((await runCli(sftArgs(base, 3, '0.01'), LONG)).code).toBe(0)
  const firstLoss = (dir: string) => (JSON.parse(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n')[0]) as { loss: number }).loss
  const cont = join(root, 'cont')
  const fresh = join(root, 'fresh')
  const r = await runCli([...sftArgs(cont, 1), '--init-adapter', join(base, 'adapter'), '--first-turns', '5'], LONG)
  expect(r.code).toBe(0)
  expect(r.stderr).toContain("sft: + the oracle's first turn of 5 training questions")
  expect((await runCli([...sftArgs(fresh, 1), '--first-turns', '5'], LONG)).code).toBe(0)
  const info = JSON.parse(readFileSync(join(cont, 'sft.json'), 'utf8')) as { firstTurns: number; initAdapter: string }
  // Recorded relative to the run folder, never absolute; the adapter's content fingerprint under identity.
  expect(info).toMatchObject({ firstTurns: 5, initAdapter: relative(cont, join(base, 'adapter')), identity: { initAdapter: expect.stringMatching(/^[0-9a-f]{64}$/) } })
  expect(readFileSync(join(cont, 'sft.json'), 'utf8')).not.toContain(resolve(base))
  // The same data, seed and first batch: only the starting adapter differs.
  expect(firstLoss(cont)).toBeLessThan(firstLoss(fresh) - 0.5)
  const bad = await runCli([...sftArgs(join(root, 'bad'), 1), '--first-turns', '-1'], LONG)
  expect(bad.code).not.toBe(0)
  expect(bad.stderr).toMatch(/firstTurns \(--first-turns\) must be an integer in \[0, 10000000\], got -1/)
}, LONG)

test('--answer-only trains only the final (answer) turn: fewer targets on the same batch, recorded in sft.json, and a folder of a full run refuses it', async () => {
  const full = join(root, 'ans-full')
  const ans = join(root, 'ans-only')
  expect((await runCli(sftArgs(full, 1), LONG)).code).toBe(0)
  const r = await runCli([...sftArgs(ans, 1), '--answer-only'], LONG)
  expect(r.code).toBe(0)
  // Same seed, same demonstrations, same first batch: the answer turns are a strict part of the assistant tokens.
  expect(first(ans).tokens).toBeGreaterThan(0)
  expect(first(ans).tokens).toBeLessThan(first(full).tokens)
  expect(JSON.parse(readFileSync(join(ans, 'sft.json'), 'utf8'))).toMatchObject({ answerOnly: true })
  expect(JSON.parse(readFileSync(join(full, 'sft.json'), 'utf8'))).toMatchObject({ answerOnly: false })
  const again = await runCli([...sftArgs(full, 2), '--answer-only'], LONG)
  expect(again.code).not.toBe(0)
  expect(again.stderr).toMatch(/holds an SFT run with other settings/)
}, LONG)


test('--turn K trains only the K-th turn of each demonstration (cut after it): fewer targets than the full run, recorded; bad K and --turn with --answer-only are one-line errors', async () => {
  const full = await fullRun()
  const t1 = join(root, 'turn1')
  const r = await runCli([...sftArgs(t1, 1), '--turn', '1'], LONG)
  expect(r.code).toBe(0)
  // Same seed and demonstrations: the first search of each is a strict part of its assistant tokens.
  expect(first(t1).tokens).toBeGreaterThan(0)
  expect(first(t1).tokens).toBeLessThan(first(full).tokens)
  expect(JSON.parse(readFileSync(join(t1, 'sft.json'), 'utf8'))).toMatchObject({ turn: 1, answerOnly: false })
  expect(JSON.parse(readFileSync(join(full, 'sft.json'), 'utf8'))).toMatchObject({ turn: null })
  await expectOneLineErrors('turn-bad', [[['--turn', '0'], /turn \(--turn\) must be an integer in \[1, 1000\], got 0/], [['--turn', '1', '--answer-only'], /turn \(--turn\) trains one turn alone/]])
}, LONG)

test('--answer-weight W weights the final turn inside full demonstrations: same targets, another loss, recorded; bad W and --answer-only with it are one-line errors', async () => {
  const full = await fullRun()
  const aw = join(root, 'aw8')
  const r = await runCli([...sftArgs(aw, 1), '--answer-weight', '8'], LONG)
  expect(r.code).toBe(0)
  // Same seed and first batch: every assistant token is still a target; only the mean's weights differ.
  expect(first(aw).tokens).toBe(first(full).tokens)
  expect(Math.abs(first(aw).loss - first(full).loss)).toBeGreaterThan(1e-6)
  expect(JSON.parse(readFileSync(join(aw, 'sft.json'), 'utf8'))).toMatchObject({ answerWeight: 8, answerOnly: false })
  // The folder of a W = 8 run refuses W = 1 (and a full run's folder refuses W = 8).
  const back = await runCli(sftArgs(aw, 2), LONG)
  expect(back.code).not.toBe(0)
  expect(back.stderr).toMatch(/holds an SFT run with other settings/)
  const other = await runCli([...sftArgs(full, 2), '--answer-weight', '8'], LONG)
  expect(other.code).not.toBe(0)
  expect(other.stderr).toMatch(/holds an SFT run with other settings/)
  await expectOneLineErrors('aw-bad', [[['--answer-weight', '8', '--answer-only'], /answerWeight \(--answer-weight\) and answerOnly \(--answer-only\) exclude each other/], [['--answer-weight', '0'], /answerWeight \(--answer-weight\) must be a number in \(0, 1000\], got 0/], [['--answer-weight', 'x'], /answerWeight \(--answer-weight\) must be a number in \(0, 1000\], got NaN/]])
}, LONG)

// tests/model-pretrain: `searchgym model pretrain` through the real CLI on real tiny worlds — full-weight next-token
// training lowers the loss and writes an ordinary model folder that loadModel reads; a run SIGKILLed after a checkpoint
// and rerun with the same flags resumes and ends bit-identical (weights and metrics) to the uninterrupted run; bad
// flags are one-line errors with a non-zero exit that write no run folder.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadModel } from '../infra/engine/model'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 300_000
const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'model-pretrain-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let world = '', unseen = '', model = ''

beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  unseen = join(root, 'unseen')
  expect((await runCli(['world', 'build', '--preset', 'tiny', '--seed', '12', '--out', unseen, '--quiet'], LONG)).code).toBe(0)
  model = join(root, 'm0')
  expect((await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model], LONG)).code).toBe(0)
}, LONG)

const args = (out: string, over: Record<string, string> = {}) => {
  const keys: Record<string, string> = { steps: '120', batch: '2', seqLen: '48', checkpointEvery: '10', evalEvery: '40', warmup: '5', lr: '0.003', backend: 'native', ...over }
  return ['model', 'pretrain', '--model', model, '--world', world, '--eval-world', unseen, '--out', out, ...Object.entries(keys).flatMap(([k, v]) => ['--set', `${k}=${v}`])]
}

const metricsOf = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { step: number; loss?: number; heldOutLoss?: number })

test('pretraining lowers the loss; SIGKILL after a checkpoint and a rerun end bit-identical to the uninterrupted run', async () => {
  const clean = join(root, 'clean')
  const r = await runCli(args(clean), LONG)
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/model pretrain: .*120 steps, 11520 tokens, train loss [\d.]+, held-out loss [\d.]+/)
  const m = metricsOf(clean)
  const losses = m.filter((x) => x.loss !== undefined).map((x) => x.loss!)
  expect(losses).toHaveLength(120)
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  expect(mean(losses.slice(-10))).toBeLessThan(mean(losses.slice(0, 10)) - 0.5)
  const held = m.filter((x) => x.heldOutLoss !== undefined).map((x) => x.heldOutLoss!)
  expect(held.length).toBe(3)
  expect(held[2]).toBeLessThan(held[0])
  const loaded = loadModel(join(clean, 'model'))
  expect(loaded.config.vocabSize).toBeGreaterThan(0)
  expect(existsSync(join(clean, 'model', 'tokenizer.json'))).toBe(true)

  const killed = join(root, 'killed')
  const progress = join(killed, 'checkpoint', 'pretrain-progress.json')
  const ended = await new Promise<{ signal: NodeJS.Signals | null }>((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args(killed)], { stdio: 'ignore', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
    const timer = setInterval(() => {
      try {
        if (existsSync(progress) && (JSON.parse(readFileSync(progress, 'utf8')) as { step: number }).step >= 20) p.kill('SIGKILL')
      } catch {
        // the file is being renamed into place: look again
      }
    }, 5)
    p.on('exit', (_code, signal) => {
      clearInterval(timer)
      resolve({ signal })
    })
  })
  expect(ended.signal).toBe('SIGKILL')
  expect(existsSync(join(killed, 'model'))).toBe(false)
  const again = await runCli(args(killed), LONG, { SEARCHGYM_QUIET: '0' })
  expect(again.code).toBe(0)
  expect(again.stderr).toMatch(/pretrain: resuming after step \d+/)
  expect(readFileSync(join(killed, 'model', 'model.safetensors')).equals(readFileSync(join(clean, 'model', 'model.safetensors')))).toBe(true)
  expect(metricsOf(killed)).toEqual(m)
}, LONG)

test('bad keys: one-line errors, non-zero exit, no run folder', async () => {
  for (const [flag, value, msg] of [
    ['steps', '0', /steps \(--set\) must be an integer ≥ 1, got 0/],
    ['seqLen', '100000', /fewer than one batch/],
    ['lr', '-1', /lr \(--set\) must be a number ≥ 0, got -1/],
  ] as const) {
    const out = join(root, `bad-${flag}`)
    const r = await runCli(args(out, { [flag]: value }), LONG)
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(msg)
    expect(existsSync(out)).toBe(false)
  }
  const r = await runCli(['model', 'pretrain', '--model', model, '--world', join(root, 'nowhere'), '--out', join(root, 'bad-world')], LONG)
  expect(r.code).not.toBe(0)
  expect(r.stderr).toMatch(/no world at .*nowhere/)
}, LONG)

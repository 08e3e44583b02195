// tests/run-lock: one writer per run folder (issue 59, item 1) with real processes. A `train` held inside its first step
// (infra/run-points) keeps its folder: a second `train` on it exits 1 with one line naming the first, and after the
// first is killed a rerun finishes with every step in metrics.jsonl once. An `experiment run` held inside its world
// build refuses a second one the same way (the race that ended in a doubled `stepsMade` and a raw ENOENT on
// model.tmp). `train sft` and `model pretrain` refuse a folder a live process holds. On c3906aa every second
// writer here ran (exit 0).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCK_FILE } from '../infra/lock'
import { cliEntry, runCli } from './helpers/cli-process'
import { holdAtPoint } from './helpers/hold'
import { sharedTinyWorld } from './helpers/shared-world'

const LONG = 600_000
const root = mkdtempSync(join(tmpdir(), 'sg-run-lock-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let world = ''
const model = join(root, 'model')
const cfgFile = join(root, 'train.json')

beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  const m = await runCli(['model', 'init', '--preset', 'tiny', '--tokenizer', `world:${world}`, '--out', model, '--seed', '0'], 300_000)
  expect(m.code).toBe(0)
  writeFileSync(cfgFile, JSON.stringify({ steps: 2, groupSize: 2, batchSize: 2, microBatch: 2, gym: { budgets: { maxTurns: 1, maxResponseTokens: 8 } }, lora: { rank: 4, alpha: 8 }, evalEvery: 0, heldOut: 0, checkpointEvery: 1, refillRounds: 0 }))
}, LONG)

/** A real `searchgym ARGS` process held at `point`; resolves once it says it holds there. */
function heldAt(point: string, args: string[]): Promise<ChildProcess> {
  const env = { ...process.env, SEARCHGYM_QUIET: '1', ...holdAtPoint(point) }
  const p = spawn(process.execPath, [cliEntry(), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  return new Promise((res, rej) => {
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.includes(`test hold in stage ${point}`)) res(p)
    })
    p.once('exit', (code) => rej(new Error(`searchgym ${args.join(' ')} exited ${code} before holding at ${point}: ${err}`)))
  })
}

const gone = (p: ChildProcess) => new Promise<void>((res) => (p.exitCode !== null || p.signalCode !== null ? res() : p.once('exit', () => res())))
async function kill(p: ChildProcess): Promise<void> {
  p.kill('SIGKILL')
  await gone(p)
}

/** The refusal every writer prints: one line, naming the folder and the holder's process. */
function expectRefused(r: { code: number | null; stderr: string }, dir: string, pid: number): void {
  expect(r.code).toBe(1)
  const lines = r.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toContain(`${dir} is in use by process ${pid}`)
}

describe('one writer per run folder', () => {
  it('train: a second train on a folder being trained is refused; the rerun after a kill logs each step once', async () => {
    const out = join(root, 'train-run')
    const args = ['train', '--world', world, '--model', model, '--out', out, '--config', cfgFile, '--quiet']
    const first = await heldAt('train-step-2', args)
    try {
      expectRefused(await runCli(args, LONG), out, first.pid!)
    } finally {
      await kill(first)
    }
    const again = await runCli(args, LONG)
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/resumed from step 1/)
    const steps = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { step: number }).step)
    expect(steps).toEqual([1, 2])
    expect(existsSync(join(out, LOCK_FILE))).toBe(false)
  }, LONG)

  it('experiment run: a second run of the same folder is refused in one line before it touches anything', async () => {
    const out = join(root, 'exp')
    const args = ['experiment', 'run', 'curriculum/experiments/quick-smoke.json', '--out', out, '--quiet']
    // Held inside the build of its first world (the world build's 'graph' point): it holds the experiment folder.
    const first = await heldAt('graph', args)
    try {
      const before = readFileSync(join(out, 'experiment.json'), 'utf8')
      expectRefused(await runCli(args, LONG), out, first.pid!)
      expect(readFileSync(join(out, 'experiment.json'), 'utf8')).toBe(before)
      // The preset form runs the same driver on the same folder.
      expectRefused(await runCli(['train', '--preset', 'quick-smoke', '--out', out, '--quiet'], LONG), out, first.pid!)
    } finally {
      await kill(first)
    }
  }, LONG)

  it('train sft and model pretrain refuse a folder a live process holds', async () => {
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    await new Promise((r) => holder.once('spawn', r))
    try {
      for (const [name, what, args] of [
        ['sft', 'train sft', ['train', 'sft', '--world', world, '--model', model, '--set', 'questions=2', '--set', 'epochs=1', '--set', 'batch=1']],
        ['pre', 'model pretrain', ['model', 'pretrain', '--model', model, '--world', world, '--steps', '1', '--set', 'batch=1', '--set', 'seqLen=16']],
      ] as const) {
        const out = join(root, name)
        mkdirSync(out, { recursive: true })
        writeFileSync(join(out, LOCK_FILE), JSON.stringify({ pid: holder.pid, host: hostname(), command: `${what} (test holder)`, started: new Date().toISOString(), token: 'x' }))
        expectRefused(await runCli([...args, '--out', out], LONG), out, holder.pid!)
      }
    } finally {
      await kill(holder)
    }
  }, LONG)
})

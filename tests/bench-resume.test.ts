// tests/bench-resume: a real `searchgym bench run` child process on the run's real tiny world is killed with SIGKILL
// mid-run (plus a torn last line), then rerun: it continues where it stopped, and no question is asked again once
// recorded, nor scored twice. The replayed model answers each question with its gold answer (hermes protocol).
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TrajectoryRecord } from '../bench/types'
import { LOCK_FILE } from '../infra/lock'
import { questionOf, scriptedResponder, startReplayServer, type ReplayServer } from './fixtures/replay-server'
import { qaIn, questionsOf } from './helpers/gold-answers'
import { sharedTinyWorld } from './helpers/shared-world'

let dir = ''
let server: ReplayServer | undefined
afterAll(async () => {
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The complete lines of a file (a SIGKILL can land inside a write: a last line without its newline is torn). */
function lines(path: string): string[] {
  if (!existsSync(path)) return []
  const parts = readFileSync(path, 'utf8').split('\n')
  parts.pop()
  return parts.filter((l) => l.length > 0)
}

function runChild(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> } {
  const child = spawn(process.execPath, ['bin/searchgym.mjs', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out, err })))
  return { child, done }
}

it('resumes a SIGKILLed run without re-asking or double-scoring any question', async () => {
  dir = mkdtempSync(join(tmpdir(), 'bench-resume-'))
  const world = (await sharedTinyWorld()).dir
  const qas = await questionsOf(world, 'train', 30)
  expect(qas).toHaveLength(30)
  server = await startReplayServer(scriptedResponder((q) => ({ content: `<answer>${qaIn(qas, q)?.answer ?? 'unknown'}</answer>`, delayMs: 25 })))
  const out = join(dir, 'run')
  const traj = join(out, 'trajectories.jsonl')
  const args = ['bench', 'run', '--world', world, '--policy', 'openai', '--model', 'replay', '--base-url', server.url, '--protocol', 'hermes', '--split', 'train', '--limit', '30', '--limit-mode', 'first', '--concurrency', '2', '--out', out, '--quiet', '--bootstrap', '100']

  const first = runChild(args)
  const t0 = Date.now()
  while (lines(traj).length < 6 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20))
  first.child.kill('SIGKILL')
  const r1 = await first.done
  expect(r1.signal).toBe('SIGKILL')
  const before = lines(traj).map((l) => JSON.parse(l) as TrajectoryRecord)
  expect(before.length).toBeGreaterThanOrEqual(6)
  expect(before.length).toBeLessThan(30)
  // As if the kill had landed in the middle of a write:
  appendFileSync(traj, '{"v":1,"id":"q029","type":"sim')
  const requestsBefore = server.requests.length

  const second = runChild(args)
  const r2 = await second.done
  expect(r2.err).not.toMatch(/error/)
  expect(r2.code).toBe(0)
  expect(r2.out).toContain(`resumed ${before.length} (cut a torn last line)`)

  const after = lines(traj).map((l) => JSON.parse(l) as TrajectoryRecord)
  const ids = after.map((r) => r.id)
  expect(new Set(ids).size).toBe(ids.length)
  expect(ids.length).toBe(30)
  expect(after.every((r) => r.em === 1)).toBe(true)
  // Questions recorded before the kill were never asked again.
  const doneBefore = new Set(before.map((r) => r.question))
  // (every request names one of the questions, so this check can see a repeat)
  expect(server.requests.every((q) => qaIn(qas, questionOf(q)) !== undefined)).toBe(true)
  const askedAgain = server.requests.slice(requestsBefore).filter((q) => doneBefore.has(qaIn(qas, questionOf(q))!.question))
  expect(askedAgain).toHaveLength(0)
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { questions: number; overall: { em: { mean: number } } }
  expect(summary.questions).toBe(30)
  expect(summary.overall.em.mean).toBe(1)
  expect(existsSync(join(out, LOCK_FILE))).toBe(false)
})

// tests/bench-resume: a real `bench run` child process is killed with SIGKILL mid-run (plus a torn last line), then
// rerun: it continues where it stopped, and no question is asked again once recorded, nor scored twice.
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TrajectoryRecord } from '../bench/types'
import { makeFixtureWorldData, writeFixtureWorld } from './fixtures/fixture-world'
import { fixtureSolver, questionOf, scriptedResponder, startReplayServer, type ReplayServer } from './fixtures/replay-server'

let dir = ''
let server: ReplayServer | undefined
afterAll(async () => {
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0) : []
}

function runChild(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> } {
  const child = spawn(process.execPath, ['bin/run-ts.mjs', 'tests/fixtures/bench-cli.ts', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out, err })))
  return { child, done }
}

it('resumes a SIGKILLed run without re-asking or double-scoring any question', async () => {
  dir = mkdtempSync(join(tmpdir(), 'bench-resume-'))
  const world = writeFixtureWorld(join(dir, 'world'), makeFixtureWorldData(30))
  const solve = fixtureSolver('text')
  server = await startReplayServer(scriptedResponder((q, t, r) => ({ ...solve(q, t, r), delayMs: 25 })))
  const out = join(dir, 'run')
  const traj = join(out, 'trajectories.jsonl')
  const args = ['bench', 'run', '--world', world, '--policy', 'openai', '--model', 'replay', '--base-url', server.url, '--protocol', 'text', '--concurrency', '2', '--out', out, '--quiet', '--bootstrap', '100']

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
  const askedAgain = server.requests.slice(requestsBefore).filter((q) => doneBefore.has(questionOf(q)))
  expect(askedAgain).toHaveLength(0)
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { questions: number; overall: { em: { mean: number } } }
  expect(summary.questions).toBe(30)
  expect(summary.overall.em.mean).toBe(1)
  expect(existsSync(join(out, '.lock'))).toBe(false)
})

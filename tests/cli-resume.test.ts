// tests/cli-resume: the real CLI killed with SIGKILL and rerun, on a real tiny world — `searchgym world build` held
// inside the verify stage's last chunk transaction (holdAtPoint('verify'): the first chunk is committed, the
// last one is rolled back) reaches the uninterrupted build's content hash; `searchgym bench run` (oracle policy, tool
// latency injected so the run lasts long enough to be killed) killed mid-run reaches the uninterrupted run's records
// and summary. No fixture CLI: bin/searchgym.mjs throughout.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { holdAtPoint } from './helpers/hold'

const TIMEOUT_MS = 240_000
const root = mkdtempSync(join(tmpdir(), 'sg-cli-resume-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const ENV = { ...process.env, SEARCHGYM_QUIET: '1' }
const buildArgs = (out: string) => ['bin/searchgym.mjs', 'world', 'build', '--preset', 'tiny', '--seed', '7', '--out', out]
const clean = join(root, 'clean')

function statsJson(dir: string): { hash: string | null; complete: boolean; stages: Record<string, string> } {
  const r = spawnSync(process.execPath, ['bin/searchgym.mjs', 'world', 'stats', dir, '--json'], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`world stats failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

/** Spawn `searchgym ARGS`; SIGKILL it once `killWhen()` holds (polled, or on each stderr chunk); resolves with how it ended. */
function runAndKill(args: string[], env: NodeJS.ProcessEnv, killWhen: (stderr: string) => boolean): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    const check = () => {
      if (p.exitCode === null && p.signalCode === null && killWhen(err)) p.kill('SIGKILL')
    }
    const timer = setInterval(check, 10)
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      check()
    })
    p.on('exit', (code, signal) => {
      clearInterval(timer)
      resolve({ signal, code, stderr: err })
    })
  })
}

test('world build: SIGKILL inside the verify stage, rerun, same content hash as the uninterrupted build', async () => {
  const r = spawnSync(process.execPath, buildArgs(clean), { encoding: 'utf8', env: ENV })
  expect(r.status).toBe(0)
  const want = statsJson(clean).hash
  expect(want).toMatch(/^[0-9a-f]{64}$/)

  const killed = join(root, 'killed')
  const k = await runAndKill(buildArgs(killed), { ...ENV, ...holdAtPoint('verify') }, (err) => err.includes('test hold in stage verify'))
  expect(k.signal).toBe('SIGKILL')
  const s = statsJson(killed)
  expect(s.complete).toBe(false)
  expect(s.hash).toBeNull()
  expect(s.stages).toMatchObject({ graph: 'done', docs: 'done', index: 'done', verify: 'running' })
  // The first chunk (250 of 394 edges) was committed; the last one died with its transaction.
  const db = new Database(join(killed, 'world.db'), { readonly: true })
  const [edges, verified] = [(db.prepare('SELECT COUNT(*) AS n FROM edges').get() as { n: number }).n, (db.prepare('SELECT COUNT(*) AS n FROM edge_verification').get() as { n: number }).n]
  db.close()
  expect({ edges, verified }).toEqual({ edges: 394, verified: 250 })

  const again = spawnSync(process.execPath, buildArgs(killed), { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '0' } })
  expect(again.status).toBe(0)
  expect(again.stderr).toContain('stage docs: already done, skipped')
  const after = statsJson(killed)
  expect(after.complete).toBe(true)
  expect(after.hash).toBe(want)
}, TIMEOUT_MS)

/** A record without its timings (latencyMs, envMs, tool_latency_ms, ... anywhere): what the run measured, not how long it took. */
function measured(line: string): unknown {
  return JSON.parse(line, (k, v) => (/(Ms|_ms)$/.test(k) ? undefined : v))
}
const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0) : [])

test('bench run: SIGKILL mid-run, rerun, the same records and summary as an uninterrupted run', async () => {
  expect(statsJson(clean).complete).toBe(true) // built by the test above
  const args = (out: string) => [
    'bin/searchgym.mjs', 'bench', 'run', '--world', clean, '--policy', 'oracle', '--limit', '10', '--concurrency', '1', '--quiet',
    '--bootstrap', '200', '--gym-options', '{"faults":{"latencyRate":1,"latencyMs":30}}', '--out', out,
  ]
  const whole = join(root, 'run-whole')
  const w = spawnSync(process.execPath, args(whole), { encoding: 'utf8', env: ENV })
  expect(w.status).toBe(0)
  const want = lines(join(whole, 'trajectories.jsonl'))
  expect(want).toHaveLength(10)

  const cut = join(root, 'run-cut')
  const traj = join(cut, 'trajectories.jsonl')
  // Held (holdAtPoint) right after the 4th record is written: the kill lands mid-run whatever the machine's speed.
  const k = await runAndKill(args(cut), { ...ENV, ...holdAtPoint('bench-record-4') }, (err) => err.includes('test hold in stage bench-record-4'))
  expect(k.signal).toBe('SIGKILL')
  const before = lines(traj).length
  expect(before).toBe(4)

  const r = spawnSync(process.execPath, args(cut), { encoding: 'utf8', env: ENV })
  expect(r.status).toBe(0)
  expect(r.stdout).toMatch(new RegExp(`resumed ${before}\\b`))
  const got = lines(traj)
  expect(got).toHaveLength(10)
  const byId = (ls: string[]) => new Map(ls.map((l) => [(JSON.parse(l) as { id: string }).id, measured(l)]))
  expect(byId(got)).toEqual(byId(want))
  const summary = (dir: string) => {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>
    return JSON.parse(JSON.stringify({ questions: s.questions, status: s.status, overall: s.overall, byType: s.byType, byHops: s.byHops, tools: s.tools, stopReasons: s.stopReasons }), (k, v) => (/(Ms|_ms)$/.test(k) ? undefined : v)) as unknown
  }
  expect(summary(cut)).toEqual(summary(whole))
}, TIMEOUT_MS)

// tests/world-resume: a real `searchgym world build` process is SIGKILLed while a stage is writing (inside its
// transaction, held there by holdAtPoint), first in 'graph' and then in 'docs'; after each kill the folder
// is not reported finished, and the final rerun reaches the uninterrupted build's content hash.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdAtPoint } from './helpers/hold'

const root = mkdtempSync(join(tmpdir(), 'sg-world-resume-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const args = (out: string) => ['bin/searchgym.mjs', 'world', 'build', '--preset', 'small', '--seed', '21', '--out', out]

function statsJson(dir: string): { hash: string | null; complete: boolean; stages: Record<string, string> } {
  const r = spawnSync(process.execPath, ['bin/searchgym.mjs', 'world', 'stats', dir, '--json'], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`stats failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

/** Start a build held inside `stage`, wait until it says so, SIGKILL it; resolves with the signal seen. */
function buildAndKillIn(out: string, stage: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args(out), { env: { ...process.env, ...holdAtPoint(stage), SEARCHGYM_QUIET: '1' }, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.includes(`test hold in stage ${stage}`)) p.kill('SIGKILL')
    })
    p.on('exit', (code, signal) => (signal ? resolve(signal) : reject(new Error(`build exited ${code} before the hold in ${stage}: ${err}`))))
  })
}

test('SIGKILL mid-stage, rerun, same hash as an uninterrupted build', async () => {
  const clean = join(root, 'clean')
  const r = spawnSync(process.execPath, args(clean), { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
  expect(r.status).toBe(0)
  const want = statsJson(clean).hash
  expect(want).toMatch(/^[0-9a-f]{64}$/)

  const killed = join(root, 'killed')
  expect(await buildAndKillIn(killed, 'graph')).toBe('SIGKILL')
  let s = statsJson(killed)
  expect(s.complete).toBe(false)
  expect(s.hash).toBeNull()
  expect(s.stages.graph).toBe('running')

  expect(await buildAndKillIn(killed, 'docs')).toBe('SIGKILL')
  s = statsJson(killed)
  expect(s.complete).toBe(false)
  expect(s.stages).toEqual({ graph: 'done', docs: 'running' })

  const again = spawnSync(process.execPath, args(killed), { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '0' } })
  expect(again.stderr).toContain('stage graph: already done, skipped')
  expect(again.status).toBe(0)
  s = statsJson(killed)
  expect(s.complete).toBe(true)
  expect(s.hash).toBe(want)
})

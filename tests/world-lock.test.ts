// tests/world-lock: one writer per world — two builds of one folder at once (the second is a one-line error naming the
// first, the first's hash equals an uninterrupted build's), a lock left by a dead process is taken over, and the CLI
// refuses a folder a live process holds with a one-line error and a non-zero exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir, hostname } from 'node:os'
import { join } from 'node:path'
import { LOCK_FILE } from '../infra/lock'
import { buildWorld } from '../world'
import { presetConfig } from '../world/config'

const root = mkdtempSync(join(tmpdir(), 'searchgym-lock-'))
const BIN = new URL('../bin/searchgym.mjs', import.meta.url).pathname

function fakeLock(dir: string, pid: number): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, host: hostname(), command: 'world build (test holder)', started: new Date().toISOString(), token: 'x' }))
}

/** A real process that stays alive until killed: its PID holds a lock. */
function holder(): Promise<ChildProcess> {
  const p = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  return new Promise((res) => p.once('spawn', () => res(p)))
}

const exited = (p: ChildProcess) => new Promise<void>((res) => (p.exitCode !== null ? res() : p.once('exit', () => res())))

describe('world write lock', () => {
  it('two concurrent builds of one world: the second fails cleanly, the first matches an uninterrupted build', async () => {
    const dir = join(root, 'twice')
    const first = buildWorld({ config: presetConfig('tiny'), dir, quiet: true })
    const second = buildWorld({ config: presetConfig('tiny'), dir, quiet: true })
    await expect(second).rejects.toThrow(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is in use by process ${process.pid} on .*\\(world build`))
    const a = await first
    const reference = await buildWorld({ config: presetConfig('tiny'), dir: join(root, 'reference'), quiet: true })
    expect(a.hash).toBe(reference.hash)
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  }, 120_000)

  it("a lock left by a dead process is taken over; a live process's lock is refused", async () => {
    const dir = join(root, 'stale')
    const p = await holder()
    fakeLock(dir, p.pid!)
    await expect(buildWorld({ config: presetConfig('tiny'), dir, quiet: true })).rejects.toThrow(`in use by process ${p.pid}`)
    p.kill('SIGKILL')
    await exited(p)
    const r = await buildWorld({ config: presetConfig('tiny'), dir, quiet: true })
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  }, 120_000)

  it('the CLI names the process holding the world, in one line, with a non-zero exit', async () => {
    const dir = join(root, 'cli')
    const p = await holder()
    try {
      fakeLock(dir, p.pid!)
      const r = spawnSync(process.execPath, [BIN, 'world', 'build', '--preset', 'tiny', '--out', dir, '--quiet'], { encoding: 'utf8', timeout: 120_000 })
      expect(r.status).not.toBe(0)
      expect(r.stderr).toContain(`is in use by process ${p.pid}`)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    } finally {
      p.kill('SIGKILL')
      await exited(p)
    }
  }, 120_000)
})

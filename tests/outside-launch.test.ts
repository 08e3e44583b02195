// tests/outside-launch: every launch script `world export` writes (launch-search-r1.sh, launch-verl.sh,
// launch-verl-gym.sh, launch-asearcher.sh and each engine's --curriculum two-stage script), on the run's tiny world,
// copied with its export to a folder outside the checkout and run from another one by tests/replicas/run_launch_stub.sh:
// the trainer is the replica stub (tests/replicas/engine_phases.py: each engine's step, checkpoint and resume
// arithmetic from its code, file:line there), the gym is this checkout's bin/searchgym.mjs (SEARCHGYM) on a free
// port (PORT). Checked: the script exits 0, every trainer call found the gym's /health up, the gym is down after the
// script exits, no path of the exporting machine is in the script; for the staged scripts, per phase: no refusal,
// steps > 0 as the engine counts them, and each later phase loads a path an earlier one wrote. And the argument checks:
// MODEL unset or no searchgym command → a one-line error, non-zero, before any gym starts.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld, type SharedWorld } from './helpers/shared-world'

type J = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const RUNNER = fileURLToPath(new URL('./replicas/run_launch_stub.sh', import.meta.url))
const CHECKOUT = fileURLToPath(new URL('..', import.meta.url))
const ENGINES = ['search-r1', 'verl', 'asearcher'] as const

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

const sh = (args: string[], env: Record<string, string>, timeout = 240_000): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile('bash', args, { env: { ...process.env, ...env }, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })

const healthUp = async (port: number) => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).ok
  } catch {
    return false
  }
}

describe('launch scripts, run outside the checkout with the trainer replaced by the engine replicas', () => {
  let world: SharedWorld
  let out: string
  const dirs = new Map<string, string>()
  beforeAll(async () => {
    world = await sharedTinyWorld()
    out = mkdtempSync(join(tmpdir(), 'sg-outside-launch-'))
    // One export per engine with --curriculum two-stage holds every script: the plain launch-<engine>.sh (and
    // launch-verl-gym.sh) beside the staged one.
    for (const e of ENGINES) {
      const dir = join(out, e)
      const r = await runCli(['world', 'export', world.dir, '--format', e, '--curriculum', 'two-stage', '--out', dir], 300_000)
      if (r.code !== 0) throw new Error(`export ${e}: ${r.stderr}`)
      dirs.set(e, dir)
    }
  }, 900_000)
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  const runs = new Map<string, Promise<J>>()
  /** The runner's JSON summary for one script of one export (each script runs once per test file). */
  const runScript = (engine: string, script: string): Promise<J> => {
    const key = `${engine}/${script}`
    if (!runs.has(key))
      runs.set(
        key,
        (async () => {
          const port = await freePort()
          const r = await sh([RUNNER, join(dirs.get(engine)!, script), dirs.get(engine)!, world.dir], { PORT: String(port), GYM_GRACE_S: '3', STUB_TIMEOUT_S: '200' })
          const summary = JSON.parse(r.stdout) as J
          return { ...summary, code: r.code, port, stderr: r.stderr }
        })(),
      )
    return runs.get(key)!
  }

  const expectClean = (s: J, engine: string, script: string) => {
    expect({ script: `${engine}/${script}`, problems: s.problems }).toEqual({ script: `${engine}/${script}`, problems: [] })
    expect(s.rc).toBe(0)
    expect(s.code).toBe(0)
    expect(s.gym_after_exit).toBe('down')
    expect(s.calls.length).toBeGreaterThan(0)
    for (const c of s.calls) expect(c.gym_health).toBe(200)
    const text = readFileSync(join(dirs.get(engine)!, script), 'utf8')
    for (const p of [out, world.dir, CHECKOUT.replace(/\/$/, '')]) expect(text).not.toContain(p)
    expect(text).not.toMatch(/\bnpx\b/)
  }

  describe('staged (--curriculum two-stage): phase 1 writes what phase 2 loads, and both train', () => {
    it.each(ENGINES)('%s', async (engine) => {
      const s = await runScript(engine, `launch-${engine}-two-stage.sh`)
      expectClean(s, engine, `launch-${engine}-two-stage.sh`)
      expect(s.calls).toHaveLength(2)
      const [p1, p2] = s.calls
      for (const p of s.calls) {
        expect(p.engine).toBe(engine)
        expect(p.refused ?? null).toBeNull()
        expect(p.steps_trained).toBeGreaterThan(0)
      }
      expect(p1.written).toHaveLength(1)
      expect(p1.loaded).toBeNull()
      expect(p2.loaded).toBe(p1.written[0])
      expect(p2.written).toHaveLength(1)
      // Phase 1 trains the --stage1-steps default (100) in each engine's own count.
      expect(p1.steps_trained).toBe(100)
    }, 300_000)
  })

  describe('plain launch scripts', () => {
    it.each([
      ['search-r1', 'launch-search-r1.sh'],
      ['verl', 'launch-verl.sh'],
      ['verl', 'launch-verl-gym.sh'],
      ['asearcher', 'launch-asearcher.sh'],
    ])('%s: %s', async (engine, script) => {
      const s = await runScript(engine, script)
      expectClean(s, engine, script)
      expect(s.calls).toHaveLength(1)
      expect(s.calls[0].steps_trained).toBeGreaterThan(0)
      expect(s.calls[0].written.length).toBe(1) // the last step is saved
    }, 300_000)

    it('launch-verl-gym.sh ships the limits launch-verl.sh carries', () => {
      const limits = (f: string) => /^LIMITS=\(\n([\s\S]*?)\n\)/m.exec(readFileSync(join(dirs.get('verl')!, f), 'utf8'))![1]
      expect(limits('launch-verl-gym.sh')).toBe(limits('launch-verl.sh'))
      for (const k of ['max_assistant_turns', 'max_tool_response_length', 'tool_response_truncate_side', 'data.max_response_length', 'data.train_batch_size'])
        expect(limits('launch-verl-gym.sh')).toContain(k)
    })
  })

  describe('argument checks: a one-line error before any gym starts', () => {
    const direct = async (engine: string, script: string, env: Record<string, string>) => {
      const port = await freePort()
      const run = mkdtempSync(join(tmpdir(), 'sg-launch-args-'))
      try {
        const log = join(run, 'stub.jsonl')
        const stub = fileURLToPath(new URL('./replicas/stub-bin', import.meta.url))
        const r = await sh(['-c', `cd "${run}" && exec bash "${join(dirs.get(engine)!, script)}"`], {
          WORLD: world.dir,
          MODEL: '',
          PORT: String(port),
          CKPT: join(run, 'ckpt'),
          STUB_LOG: log,
          PATH: `${stub}:${process.env.PATH}`,
          SEARCHGYM: join(CHECKOUT, 'bin', 'searchgym.mjs'),
          ...env,
        })
        await new Promise((res) => setTimeout(res, 1500))
        return { ...r, trainerCalled: existsSync(log), gymUp: await healthUp(port) }
      } finally {
        rmSync(run, { recursive: true, force: true })
      }
    }

    it.each(ENGINES)('%s: MODEL unset', async (engine) => {
      for (const script of [`launch-${engine}.sh`, `launch-${engine}-two-stage.sh`]) {
        const r = await direct(engine, script, {})
        expect(r.code).not.toBe(0)
        expect(r.stderr.trim().split('\n')).toHaveLength(1)
        expect(r.stderr).toMatch(/MODEL: set MODEL to the base model/)
        expect(r.stderr).not.toMatch(/gym serve|listening/)
        expect(r.trainerCalled).toBe(false)
        expect(r.gymUp).toBe(false)
      }
    }, 60_000)

    it('no searchgym command: says how to get one', async () => {
      const r = await direct('verl', 'launch-verl-gym.sh', { MODEL: '/models/m', SEARCHGYM: 'searchgym-not-installed-here' })
      expect(r.code).toBe(2)
      expect(r.stderr.trim()).toBe(
        "launch-verl-gym.sh: no 'searchgym-not-installed-here' command: run npm install -g /path/to/searchgym-checkout, or set SEARCHGYM=/path/to/searchgym-checkout/bin/searchgym.mjs",
      )
      expect(r.trainerCalled).toBe(false)
      expect(r.gymUp).toBe(false)
    }, 60_000)
  })
})

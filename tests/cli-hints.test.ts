// tests/cli-hints: the CLI's help for mistakes — a mistyped flag or command gets one "did you mean" line (exit 2), and
// a server started behind a wrapper (as `npx searchgym … &` is) prints its own pid, which stops it (the wrapper's pid
// would not). Real processes.
import { spawn } from 'node:child_process'
import { runCli } from './helpers/cli-process'
import { sharedTinyWorld } from './helpers/shared-world'

test('a mistyped flag or command: one line with the nearest name, exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [['bench', 'run', 'w', '--limt', '3', '--out', 'x'], /^searchgym: error: Unknown argument: limt \(did you mean --limit\?\)$/],
    [['bnech'], /^searchgym: error: Unknown argument: bnech \(did you mean bench\?\)$/],
    [['world', 'buidl'], /^searchgym: error: Unknown argument: buidl \(did you mean build\?\)$/],
  ]
  for (const [args, want] of cases) {
    const r = await runCli(args)
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toMatch(want)
  }
  // Nothing near: no hint.
  const r = await runCli(['bench', 'run', 'w', '--zzzzzzzz', '--out', 'x'])
  expect(r.stderr.trim()).toBe('searchgym: error: Unknown argument: zzzzzzzz')
})

test('a server behind a wrapper prints its own pid; killing that pid stops it', async () => {
  const world = (await sharedTinyWorld()).dir
  // sh stands for npx: the process the shell's `&` reports is not the server.
  const wrapper = spawn('sh', ['-c', `"${process.execPath}" bin/searchgym.mjs gym serve "${world}" --port 0; echo wrapper-done`], { stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  let out = ''
  wrapper.stdout.on('data', (d: Buffer) => (out += d.toString()))
  const pid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no pid line; stderr: ${err}`)), 120_000)
    wrapper.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /searchgym gym serve: pid (\d+); stop it with: kill (\d+) \(or Ctrl-C in its terminal\)/.exec(err)
      if (m) {
        clearTimeout(timer)
        expect(m[2]).toBe(m[1])
        resolve(Number(m[1]))
      }
    })
  })
  expect(pid).not.toBe(wrapper.pid)
  const closed = new Promise<number | null>((r) => wrapper.on('close', r))
  process.kill(pid, 'SIGTERM')
  expect(await closed).toBe(0)
  expect(out).toContain('wrapper-done')
})

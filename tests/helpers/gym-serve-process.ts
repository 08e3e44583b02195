// tests/helpers/gym-serve-process: start the real `searchgym gym serve DIR ARGS --port 0` as a child process, wait for
// the URL it prints on stderr, and stop it by its own process id.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/searchgym.mjs', import.meta.url))

export interface GymServeProcess {
  url: string
  proc: ChildProcess
  stderr(): string
  stop(): Promise<void>
}

export function startGymServe(dir: string, args: string[] = [], timeoutMs = 120_000): Promise<GymServeProcess> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, 'gym', 'serve', dir, '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`gym serve did not start in ${timeoutMs} ms; stderr: ${err}`))
    }, timeoutMs)
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve({
          url: m[1],
          proc: p,
          stderr: () => err,
          stop: () =>
            new Promise<void>((done) => {
              if (p.exitCode !== null) return done()
              p.once('close', () => done())
              p.kill('SIGTERM')
            }),
        })
      }
    })
    p.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gym serve exited with ${code} before listening: ${err}`))
    })
  })
}

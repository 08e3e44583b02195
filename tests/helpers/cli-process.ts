// tests/helpers/cli-process: run the real `searchgym` CLI as child processes — a one-shot command, or a long-running
// `model serve` whose printed URL is awaited. Each started server is stopped by its own process id. A process given the
// scripted-replies env (SEARCHGYM_TEST_REPLIES, tests/fixtures/scripted-replies) starts from the test-only entry that
// injects them (cliEntry).
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { SCRIPTED_CLI } from '../fixtures/scripted-replies'

const BIN = fileURLToPath(new URL('../../bin/searchgym.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The script to start `searchgym` from under `env` (added to this process's): the scripted entry when the env names
 *  scripted replies, else bin/searchgym.mjs. */
export function cliEntry(env: Record<string, string | undefined> = {}): string {
  return ({ ...process.env, ...env }).SEARCHGYM_TEST_REPLIES ? SCRIPTED_CLI : BIN
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Run `searchgym ARGS` to completion (with `env` added, e.g. a TEST FIXTURE). */
export function runCli(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cliEntry(env), ...args], { cwd: ROOT, env: { ...process.env, SEARCHGYM_QUIET: '1', ...env } })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`searchgym ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

export interface ServeProcess {
  /** OpenAI base URL, e.g. http://127.0.0.1:41234/v1 */
  baseURL: string
  proc: ChildProcess
  stderr(): string
  stop(): Promise<void>
}

/** Start `searchgym model serve ARGS --port 0` (with `env` added, e.g. a TEST FIXTURE) and wait for its "listening on URL" line. */
export function startServe(args: string[], timeoutMs = 60_000, env: Record<string, string> = {}): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cliEntry(env), 'model', 'serve', ...args, '--port', '0', '--host', '127.0.0.1'], { cwd: ROOT, env: { ...process.env, ...env } })
    let out = ''
    let err = ''
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`model serve did not start in ${timeoutMs} ms; stderr: ${err}`))
    }, timeoutMs)
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+\/v1)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({
          baseURL: m[1],
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
    p.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`model serve exited with ${code} before listening; stderr: ${err}`))
    })
  })
}

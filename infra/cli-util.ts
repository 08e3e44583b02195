// infra/cli-util: shared pieces of thin CLI commands — the command-module type and uniform failure handling.
import type { Argv, CommandModule } from 'yargs'
import { oneLine } from './errors'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Command = CommandModule<any, any>

/** Wrap a command handler: any error becomes one line on stderr and a non-zero exit. */
export function handler<A>(fn: (args: A) => Promise<void> | void): (args: A) => Promise<void> {
  return async (args: A) => {
    try {
      await fn(args)
    } catch (e) {
      fail(e)
    }
  }
}

export function fail(e: unknown, code = 1): never {
  process.stderr.write(`searchgym: error: ${oneLine(e)}\n`)
  if (process.env.SEARCHGYM_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`)
  process.exit(code)
}

export type { Argv }

/** One stderr line for a long-running server: its own process id and how to stop it. (`npx searchgym … &` gives the
 *  shell npx's pid; killing that one leaves the server running.) */
export function announceStop(name: string): void {
  process.stderr.write(`${name}: pid ${process.pid}; stop it with: kill ${process.pid} (or Ctrl-C in its terminal)\n`)
}

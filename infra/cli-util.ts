// infra/cli-util: shared pieces of thin CLI commands — the command-module type and uniform failure handling (a refused
// command says one line: the deprecation notes it earned are held until it goes on to work, infra/held-notes).
import type { Argv, CommandModule } from 'yargs'
import { oneLine } from './errors'
import { dropHeldNotes, holdNotes, sayHeldNotes } from './held-notes'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Command = CommandModule<any, any>

/** Wrap a command handler: any error becomes one line on stderr and a non-zero exit; the notes of old spellings are
 *  said before the command's first output or at its end, never before its error. */
export function handler<A>(fn: (args: A) => Promise<void> | void): (args: A) => Promise<void> {
  return async (args: A) => {
    holdNotes()
    try {
      await fn(args)
      sayHeldNotes()
    } catch (e) {
      fail(diskFull(e, args))
    }
  }
}

/** A full disk or quota as one line naming where the command writes (Node's ENOSPC/EDQUOT of a write names no path):
 *  the path when the error has one, else the command's --out folder; other errors pass through. */
export function diskFull(e: unknown, args: unknown): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return e
  const path = (e as NodeJS.ErrnoException).path
  const out = args !== null && typeof args === 'object' && typeof (args as { out?: unknown }).out === 'string' ? (args as { out: string }).out : undefined
  const where = path ? ` writing ${path}` : out ? ` writing under ${out}` : ''
  const what = code === 'ENOSPC' ? 'no space left on the device' : 'the disk quota is used up'
  return new Error(`${what}${where} (${code}); free some space and rerun the same command: it resumes where it stopped`, { cause: e })
}

export function fail(e: unknown, code = 1): never {
  dropHeldNotes()
  process.stderr.write(`searchgym: error: ${oneLine(e)}\n`)
  if (process.env.SEARCHGYM_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`)
  process.exit(code)
}

export type { Argv }

/** Flags renamed (old spelling → new): each old one stays a hidden option only so that giving it is refused with one
 *  line naming the new one (exit 2, as any usage error) rather than yargs' bare "Unknown argument"; nothing else reads it. */
export function renamedFlags<T>(y: Argv<T>, renamed: Record<string, string>): Argv<T> {
  for (const old of Object.keys(renamed)) y = y.option(old, { type: 'string', hidden: true }) as unknown as Argv<T>
  return y.check((argv) => {
    for (const [old, now] of Object.entries(renamed)) if (argv[old] !== undefined) return `--${old} was renamed: use --${now}`
    return true
  })
}

/** One stderr line for a long-running server: its own process id and how to stop it. (`npx searchgym … &` gives the
 *  shell npx's pid; killing that one leaves the server running.) */
export function announceStop(name: string): void {
  process.stderr.write(`${name}: pid ${process.pid}; stop it with: kill ${process.pid} (or Ctrl-C in its terminal)\n`)
}

/** A long-running server's foreground: on SIGINT or SIGTERM run `stop` (close what it holds) and exit 0; never resolves. */
export function runUntilSignal(stop: () => Promise<void> | void): Promise<never> {
  const exit = async () => {
    await stop()
    process.exit(0)
  }
  process.once('SIGINT', exit)
  process.once('SIGTERM', exit)
  return new Promise<never>(() => {})
}

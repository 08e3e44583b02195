// bench/perf/perf-args: the one flag parser of the maintained measurement scripts — node:util parseArgs, strict (an
// unknown or malformed flag, or a missing positional, prints the script's usage as one line and exits 2). Imports
// nothing of the repository, so the engine and server scripts stay light; perf-kit re-exports it.
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** node:util parseArgs; a bad flag or a missing positional prints `usage` as one line and exits 2. */
export function perfArgs<O extends NonNullable<ParseArgsConfig['options']>>(usage: string, options: O, minPositionals = 0) {
  try {
    const r = parseArgs({ allowPositionals: true, options, strict: true })
    if (r.positionals.length < minPositionals) throw new Error('missing argument')
    return r
  } catch (e) {
    process.stderr.write(`${(e as Error).message.split('\n')[0]}; usage: ${usage}\n`)
    process.exit(2)
  }
}

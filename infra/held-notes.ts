// infra/held-notes: the notes a command line earns (an old flag, a key of an older spelling: "searchgym: note: …"), each
// said once per process — and, while a command runs, held until it goes on to work: said just before the command's first
// output line (stdout or stderr) or when it ends well, dropped when it is refused (infra/cli-util fail), so a refusal is
// exactly one line. Outside a command (a library call, a test) a note is said at once. Knows no flag, key or command.
import cluster from 'node:cluster'

type Write = typeof process.stderr.write

const said = new Set<string>()
/** The notes held while a command runs; undefined when none runs. */
let held: string[] | undefined
let restore: (() => void) | undefined

/** `line` (with its newline) on stderr, once per process per `id`: held while a command runs, else said now. */
export function note(id: string, line: string): void {
  // A forked worker (gym serve --workers) parses the primary's command line again: the primary said it.
  if (said.has(id) || !cluster.isPrimary) return
  said.add(id)
  if (held) held.push(line)
  else process.stderr.write(line)
}

/** Hold notes from now until the command's first output line, sayHeldNotes or dropHeldNotes. */
export function holdNotes(): void {
  if (held) return
  held = []
  const out = process.stdout.write
  const err = process.stderr.write
  // Its first output shows the command went on to work: the notes go first, once; then the streams are as they were.
  const first = (write: Write): Write =>
    function (this: unknown, ...args: unknown[]) {
      sayHeldNotes()
      return (write as (...a: unknown[]) => boolean).apply(this, args)
    } as Write
  process.stdout.write = first(out)
  process.stderr.write = first(err)
  restore = () => {
    process.stdout.write = out
    process.stderr.write = err
  }
}

/** The held notes said (the command went on to work, or ended well); holding stops. */
export function sayHeldNotes(): void {
  const lines = held ?? []
  stopHolding()
  for (const l of lines) process.stderr.write(l)
}

/** The held notes dropped (the command was refused: its one error line is all it says); holding stops. */
export function dropHeldNotes(): void {
  stopHolding()
}

function stopHolding(): void {
  restore?.()
  restore = undefined
  held = undefined
}

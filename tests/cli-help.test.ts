// tests/cli-help: every command, sub-command, positional argument and option of `searchgym` explains itself. The
// test walks the real yargs tree (the root CLI with every package loaded) through its own --help output, page by page,
// and fails naming each entry that has no description; the root's lazily loaded command list must equal the packages'
// own commands, a group named without a sub-command says what to type, and a closed pipe ends a command quietly.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Argv } from 'yargs'
import { GROUPS, makeCli } from '../cli'

/** The help page of `searchgym ...path --help`, unwrapped (one entry a line), without exiting the process. */
async function helpOf(path: string[]): Promise<string> {
  const y = (await makeCli([...path, '--help'], { loadAll: true })).wrap(null).exitProcess(false)
  return new Promise((resolve, reject) => {
    void (y as Argv).parse([...path, '--help'], {}, (err: Error | undefined, _argv: unknown, output: string) => (err ? reject(err) : resolve(output)))
  })
}

/** The error message of `searchgym ...args` (parsed in-process; '' when it parses). */
async function errorOf(args: string[]): Promise<string> {
  const y = (await makeCli(args, { loadAll: true })).exitProcess(false).fail(false)
  return new Promise((resolve) => {
    try {
      void (y as Argv).parse(args, {}, (err: Error | undefined) => resolve(err ? err.message : ''))
    } catch (e) {
      resolve((e as Error).message)
    }
  })
}

const TYPE_TAG = /\s*\[(?:string|number|boolean|array|count|required|deprecated[^\]]*|default[^\]]*|choices:[^\]]*|aliases:[^\]]*)\]\s*$/

interface Entry {
  section: string
  name: string
  description: string
}

/** The entries of one help page: section (Commands / Positionals / Options), the name column, the description. */
export function entriesOf(help: string): Entry[] {
  const out: Entry[] = []
  let section = ''
  for (const line of help.split('\n')) {
    const head = /^(\S[^:]*):\s*$/.exec(line)
    if (head) {
      section = head[1]
      continue
    }
    // Examples are command lines, not entries to describe.
    if (!section || section === 'Examples' || !/^ {2}\S/.test(line)) continue
    const m = /^ {2}(\S.*?)(?: {2,}(.*))?$/.exec(line)
    if (!m) continue
    let rest = (m[2] ?? '').trim()
    for (let prev = ''; prev !== rest; ) {
      prev = rest
      rest = rest.replace(TYPE_TAG, '').trim()
    }
    out.push({ section, name: m[1].trim(), description: rest })
  }
  return out
}

/** `searchgym world show <dir> [ref]` → ['world', 'show']. */
function pathOf(usage: string): string[] {
  const words = usage.split(/\s+/).slice(1)
  const i = words.findIndex((w) => w.startsWith('<') || w.startsWith('['))
  return i < 0 ? words : words.slice(0, i)
}

describe('searchgym --help', () => {
  test('the root lists each package command with the package’s own usage and description', async () => {
    for (const g of GROUPS) {
      const c = await g.load({})
      expect({ command: c.command, describe: c.describe }).toEqual({ command: g.command, describe: g.describe })
    }
  })

  test('every command, sub-command, positional and option in the whole tree has a description', async () => {
    const seen = new Set<string>()
    const missing: string[] = []
    const queue: string[][] = [[]]
    let pages = 0
    let entries = 0
    while (queue.length > 0) {
      const path = queue.shift()!
      const key = path.join(' ')
      if (seen.has(key)) continue
      seen.add(key)
      const help = await helpOf(path)
      pages++
      for (const e of entriesOf(help)) {
        entries++
        if (e.description === '') missing.push(`searchgym ${key || '(root)'}: ${e.section} ${e.name}`)
        if (e.section === 'Commands') {
          const sub = pathOf(e.name)
          if (sub.length > path.length) queue.push(sub)
        }
      }
    }
    // The walk reached the whole tree (every group and the deepest verbs).
    expect(pages).toBeGreaterThan(20)
    expect(entries).toBeGreaterThan(150)
    for (const p of ['world build', 'world show', 'gym serve', 'gym check', 'model serve', 'bench run', 'bench compare', 'train sft']) expect(seen).toContain(p)
    expect(missing).toEqual([])
  }, 120_000)

  test('the walk can fail: an entry without a description is found', () => {
    const page = 'Positionals:\n  dir  world folder  [string]\n\nOptions:\n  --port  [number] [default: 8000]\n  --host  interface to listen on  [string]\n'
    expect(entriesOf(page).filter((e) => e.description === '').map((e) => e.name)).toEqual(['--port'])
  })

  test('a group named alone says which sub-commands to give, in words (not "need at least 1")', async () => {
    for (const g of ['world', 'gym', 'model', 'bench']) {
      const msg = await errorOf([g])
      expect(msg).toMatch(new RegExp(`give a ${g} sub-command`))
      expect(msg).not.toMatch(/need at least/)
    }
    expect(await errorOf([])).toMatch(/give a command/)
  })
})

test('a reader that closes the pipe early ends the command quietly (no EPIPE error, exit 0)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-epipe-'))
  try {
    // Far more than a pipe buffer (64 KiB) of output, read one line of.
    const big = join(dir, 'big.jsonl')
    writeFileSync(big, '{"prediction":"a b c","answers":["a b"]}\n'.repeat(50_000))
    const r = spawnSync('bash', ['-c', `"${process.execPath}" bin/searchgym.mjs score --in "${big}" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], { encoding: 'utf8' })
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toMatch(/EPIPE|error/)
    expect(r.stderr).toMatch(/status=0/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 120_000)

// tests/cli-renamed-flags: one flag name per concept (issue 48). Each old spelling — world export / gym check
// `--unit` (now `--retrieve-unit`, as gym serve), gym serve `--engine` (now `--search`, as world build), gym check
// `--workers` (now the key threads, `--set threads=N`: `--workers` counts gym serve's processes) — is refused in one
// line naming the new one, before anything runs; the new spellings parse. One real process checks the exit code and
// the single stderr line. An old flag that still works (an alias: `model init --dtype`) earns a note with its new
// spelling — said once when the command goes on to work, and not at all when the command is refused (one line).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Argv } from 'yargs'
import { makeCli } from '../cli'
import { runCli } from './helpers/cli-process'

/** The usage error of `searchgym ...args` parsed in-process ('' when it parses; handlers are not run). */
async function usageErrorOf(args: string[]): Promise<string> {
  const y = (await makeCli(args, { loadAll: true })).exitProcess(false)
  let message = ''
  ;(y as Argv).fail((msg) => {
    message = msg
    throw new Error(msg)
  })
  try {
    await (y as Argv).parse(args, {}, () => undefined)
  } catch {
    /* the message is kept above */
  }
  return message
}

const RENAMED: [string[], string][] = [
  [['world', 'export', '/nowhere', '--out', '/nowhere-out', '--unit', 'passage'], '--unit was renamed: use --retrieve-unit'],
  [['gym', 'check', '/nowhere', '--unit', 'passage', '--verify-edges'], '--unit was renamed: use --retrieve-unit'],
  [['gym', 'check', '/nowhere', '--workers', '2'], '--workers was renamed: use --set threads=N'],
  [['gym', 'serve', '/nowhere', '--engine', 'embedded'], '--engine was renamed: use --search'],
]

test.each(RENAMED)('searchgym %j is refused naming the new flag', async (args, message) => {
  expect(await usageErrorOf(args)).toBe(message)
})

test('the new spellings are the commands\' own options (known, not refused)', async () => {
  // A trailing unknown flag stops the parse before any handler runs; only it may be named unknown.
  for (const args of [
    ['world', 'export', '/nowhere', '--out', '/x', '--retrieve-unit', 'passage'],
    ['gym', 'check', '/nowhere', '--retrieve-unit', 'passage', '--threads', '2'],
    ['gym', 'serve', '/nowhere', '--search', 'embedded', '--workers', '2'],
  ])
    expect(await usageErrorOf([...args, '--bogus'])).toBe('Unknown argument: bogus')
})

test('a real process: one stderr line, exit 2 (a usage error), nothing run', async () => {
  const r = await runCli(['gym', 'serve', '/nonexistent/searchgym-world', '--engine', 'embedded', '--port', '0'], 60_000)
  expect(r.code).toBe(2)
  expect(r.stderr.trim().split('\n')).toEqual(['searchgym: error: --engine was renamed: use --search'])
  expect(r.stdout).toBe('')
})

describe('a deprecated alias: its note only when the command goes on to work', () => {
  const NOTE = 'searchgym: note: --dtype is deprecated; write --set dtype=f32'
  let dir = ''
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'searchgym-notes-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('refused after parsing (checks of the resolved config, then of the library): one stderr line, no note', async () => {
    const give = await runCli(['train', '--ppo-epochs', '2', '--out', join(dir, 'run')], 60_000)
    expect(give.code).toBe(1)
    expect(give.stderr.trim().split('\n')).toEqual(['searchgym: error: give --model (or --preset quick for the toy-size loop)'])
    const world = await runCli(['train', 'sft', '--epochs', '2', '--model', join(dir, 'none'), '--world', join(dir, 'none'), '--out', join(dir, 'sft')], 60_000)
    expect(world.code).toBe(1)
    expect(world.stderr.trim().split('\n')).toEqual([`searchgym: error: no world folder at ${join(dir, 'none')}`])
  })

  test('accepted: the note once, before the command\'s own output', async () => {
    const r = await runCli(['model', 'init', '--dtype', 'f32', '--out', join(dir, 'model')], 120_000)
    expect(r.code).toBe(0)
    expect(r.stderr.split('\n').filter((l) => l.includes('deprecated'))).toEqual([NOTE])
    expect(r.stdout).toMatch(/^model init: /)
  })
})

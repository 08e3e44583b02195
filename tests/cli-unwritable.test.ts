// tests/cli-unwritable: a command whose output folder cannot be made says so in one sentence naming the path (issue
// 47: `model init` printed a raw EPERM). Root ignores permission bits, so the folder is blocked by a file in its way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './helpers/cli-process'

const dir = mkdtempSync(join(tmpdir(), 'sg-unwritable-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('model init --out under a file: one line naming the folder and what to do', async () => {
  writeFileSync(join(dir, 'file'), 'x')
  const r = await runCli(['model', 'init', '--preset', 'tiny', '--out', join(dir, 'file', 'model')])
  expect(r.code).toBe(1)
  expect(r.stderr).toMatch(new RegExp(`^searchgym: error: cannot create the folder ${join(dir, 'file')}\\S*: a file stands where a folder is needed \\(ENOTDIR\\); choose a folder you can write`))
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
})

// Tests for infra/errors' one-line rendering: a raw file-system refusal (EPERM, EACCES, ENOTDIR …) becomes a sentence
// naming the path and what to do, for every CLI command at once (issue 47: model init / experiment run printed raw EPERM).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BenchError, fsRefusal, oneLine } from './errors'

test('EPERM / EACCES / EROFS from fs read as one sentence with the path and a fix', () => {
  const raw = (code: string, syscall: string, path: string) => Object.assign(new Error(`${code}: raw, ${syscall} '${path}'`), { code, syscall, path, errno: -1 })
  expect(oneLine(raw('EPERM', 'mkdir', '/ro/models/m'))).toBe('cannot create the folder /ro/models/m: operation not permitted (EPERM); choose a folder you can write (e.g. under the current one) or fix its permissions')
  expect(oneLine(raw('EACCES', 'open', '/ro/x.json'))).toMatch(/^cannot open \/ro\/x.json: permission denied \(EACCES\); choose a folder/)
  expect(oneLine(raw('EROFS', 'mkdir', '/ro/a'))).toMatch(/read-only file system \(EROFS\)/)
  expect(oneLine(raw('ENOSPC', 'write', '/full/f'))).toMatch(/no space left.*free some space/)
  // Not a refusal, or no path: the message as before.
  expect(fsRefusal(raw('ENOENT', 'open', '/x'))).toBeUndefined()
  expect(oneLine(new BenchError('bench.x', 'line one\nline two'))).toBe('line one')
})

test('a real ENOTDIR (a file where the folder should be) is rendered by its path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-errors-'))
  try {
    writeFileSync(join(dir, 'file'), 'x')
    let err: unknown
    try {
      mkdirSync(join(dir, 'file', 'sub'), { recursive: true })
    } catch (e) {
      err = e
    }
    expect(oneLine(err)).toMatch(new RegExp(`^cannot create the folder ${join(dir, 'file')}.*: a file stands where a folder is needed \\(ENOTDIR\\)`))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

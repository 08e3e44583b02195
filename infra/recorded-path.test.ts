// infra/recorded-path.test: recorded paths are folder-relative and portable; a moved folder still matches.
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { folderFingerprint, recordedPath, resolveRecorded, sameRecordedPath } from './recorded-path'

test('recordedPath is relative to the folder, with / separators', () => {
  expect(recordedPath('/a/runs/r1', '/a/worlds/w')).toBe('../../worlds/w')
  expect(recordedPath('/a/runs/r1', '/a/runs/r1/model')).toBe('model')
  expect(recordedPath('/a/runs/r1', '/a/runs/r1')).toBe('.')
})

test('resolveRecorded: relative from where the folder is now; absolute (an older folder) as it is', () => {
  expect(resolveRecorded('/b/moved', '../worlds/w')).toBe(resolve('/b/worlds/w'))
  expect(resolveRecorded('/b/moved', '/a/worlds/w')).toBe('/a/worlds/w')
})

test('sameRecordedPath: a folder copied with its world, or moved away from it (origin), still matches', () => {
  const rec = recordedPath('/a/runs/r1', '/a/worlds/w')
  expect(sameRecordedPath('/c/runs/r1', rec, '/c/worlds/w')).toBe(true) // copied together
  expect(sameRecordedPath('/c/elsewhere/r1', rec, '/a/worlds/w', '/a/worlds/w')).toBe(true) // moved alone
  expect(sameRecordedPath('/c/elsewhere/r1', rec, '/a/worlds/other', '/a/worlds/w')).toBe(false)
  expect(sameRecordedPath('/a/runs/r1', rec, join('/a/worlds', 'w'))).toBe(true)
})

test('a path that shares only the root with the folder is written portably, never as a climb to the root (issue 59)', () => {
  expect(recordedPath('/tmp/x/run', '/srv/models/m1')).toBe('models/m1')
  expect(recordedPath('/tmp/x/run', '/tmp/y/world')).toBe('../../y/world')
  // Inside a git checkout: relative to its root (this file's checkout).
  const here = resolve('infra')
  expect(recordedPath('/nonexistent-root-folder/run', join(here, 'engine'))).toBe('infra/engine')
})

test('folderFingerprint: the same files give the same print wherever the folder is; another byte another print', () => {
  const a = mkdtempSync(join(tmpdir(), 'fp-'))
  writeFileSync(join(a, 'config.json'), '{"x":1}')
  writeFileSync(join(a, 'model.safetensors'), Buffer.alloc(1000, 7))
  const b = join(mkdtempSync(join(tmpdir(), 'fp-')), 'copy')
  cpSync(a, b, { recursive: true })
  expect(folderFingerprint(b)).toBe(folderFingerprint(a))
  writeFileSync(join(b, 'model.safetensors'), Buffer.alloc(1000, 8))
  expect(folderFingerprint(b)).not.toBe(folderFingerprint(a))
  expect(folderFingerprint(join(a, 'missing'))).toBe('')
})

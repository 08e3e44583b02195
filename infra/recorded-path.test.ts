// infra/recorded-path.test: recorded paths are folder-relative and portable; a moved folder still matches.
import { join, resolve } from 'node:path'
import { recordedPath, resolveRecorded, sameRecordedPath } from './recorded-path'

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

// bench/experiment/spec withSets: `experiment run FILE --set KEY=VALUE` — one key of the file changed, typed by its
// value there (or the defaults'), resolved like any file; an unknown key is refused naming the nearest.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { resolveExperiment, withSets } from './spec'

const FILE = resolve('curriculum/experiments/quick-smoke.json')
const raw = JSON.parse(readFileSync(FILE, 'utf8')) as { train?: { steps?: number } }

test('--set changes one key, typed by the file and the defaults, and leaves the rest as the file says', () => {
  const base = resolveExperiment(raw, dirname(FILE))
  const s = resolveExperiment(withSets(raw, ['train.steps=3', 'bootstrap=200', 'name=smoke-b']), dirname(FILE))
  expect([s.train.steps, s.bootstrap, s.name]).toEqual([3, 200, 'smoke-b'])
  expect({ ...s, train: { ...s.train, steps: base.train.steps }, bootstrap: base.bootstrap, name: base.name }).toEqual(base)
  expect(() => withSets(raw, ['train.stpes=3'])).toThrow(/unknown config key 'train\.stpes' \(did you mean train\.steps\?\)/)
  expect(() => withSets(raw, ['bootstrap=x'])).toThrow(/^bootstrap \(--set\) must be a number, got NaN$/)
  expect(() => resolveExperiment(withSets(raw, ['bootstrap=0']), dirname(FILE))).toThrow(/experiment\.bootstrap must be an integer in \[1, 100000\]/)
})

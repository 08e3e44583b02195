// infra/workers.test: the worker-count and worker-heap knobs read from the environment, with one-line errors.
import { workerCount, workerResourceLimits } from './workers'

const saved = { w: process.env.SEARCHGYM_WORKERS, h: process.env.SEARCHGYM_WORKER_HEAP_MB }
afterEach(() => {
  for (const [k, v] of [['SEARCHGYM_WORKERS', saved.w], ['SEARCHGYM_WORKER_HEAP_MB', saved.h]] as const)
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
})

test('SEARCHGYM_WORKERS sets the count; an explicit request wins; a bad value is a clear error', () => {
  process.env.SEARCHGYM_WORKERS = '3'
  expect(workerCount()).toBe(3)
  expect(workerCount(1)).toBe(1)
  process.env.SEARCHGYM_WORKERS = 'two'
  expect(() => workerCount()).toThrow(/SEARCHGYM_WORKERS must be a positive integer/)
})

test('SEARCHGYM_WORKER_HEAP_MB gives each worker an old-generation limit; unset gives none', () => {
  delete process.env.SEARCHGYM_WORKER_HEAP_MB
  expect(workerResourceLimits()).toBeUndefined()
  process.env.SEARCHGYM_WORKER_HEAP_MB = '4096'
  expect(workerResourceLimits()).toEqual({ maxOldGenerationSizeMb: 4096 })
  for (const bad of ['4g', '10', '-1', '1.5'])
    expect(() => ((process.env.SEARCHGYM_WORKER_HEAP_MB = bad), workerResourceLimits())).toThrow(/SEARCHGYM_WORKER_HEAP_MB must be an integer/)
})

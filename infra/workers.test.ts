// infra/workers.test: the thread-count and thread-heap knobs read from the environment, with one-line errors; the
// renamed variables (SEARCHGYM_WORKERS, SEARCHGYM_WORKER_HEAP_MB) are refused naming the new ones.
import { workerCount, workerResourceLimits } from './workers'

const KEYS = ['SEARCHGYM_THREADS', 'SEARCHGYM_THREAD_HEAP_MB', 'SEARCHGYM_WORKERS', 'SEARCHGYM_WORKER_HEAP_MB'] as const
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]))
afterEach(() => {
  for (const k of KEYS)
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
})

test('SEARCHGYM_THREADS sets the count; an explicit request wins; a bad value is a clear error', () => {
  process.env.SEARCHGYM_THREADS = '3'
  expect(workerCount()).toBe(3)
  expect(workerCount(1)).toBe(1)
  process.env.SEARCHGYM_THREADS = 'two'
  expect(() => workerCount()).toThrow(/SEARCHGYM_THREADS must be a positive integer/)
})

test('SEARCHGYM_THREAD_HEAP_MB gives each worker thread an old-generation limit; unset gives none', () => {
  delete process.env.SEARCHGYM_THREAD_HEAP_MB
  expect(workerResourceLimits()).toBeUndefined()
  process.env.SEARCHGYM_THREAD_HEAP_MB = '4096'
  expect(workerResourceLimits()).toEqual({ maxOldGenerationSizeMb: 4096 })
  for (const bad of ['4g', '10', '-1', '1.5'])
    expect(() => ((process.env.SEARCHGYM_THREAD_HEAP_MB = bad), workerResourceLimits())).toThrow(/SEARCHGYM_THREAD_HEAP_MB must be an integer/)
})

test('the old names are refused in one line that names the new one (not silently ignored)', () => {
  for (const k of KEYS) delete process.env[k]
  process.env.SEARCHGYM_WORKERS = '2'
  expect(() => workerCount()).toThrow(/^SEARCHGYM_WORKERS was renamed: use SEARCHGYM_THREADS \(worker threads; --workers is gym serve's worker processes\)$/)
  expect(() => workerCount(1)).toThrow(/SEARCHGYM_WORKERS was renamed: use SEARCHGYM_THREADS/)
  delete process.env.SEARCHGYM_WORKERS
  process.env.SEARCHGYM_WORKER_HEAP_MB = '4096'
  expect(() => workerResourceLimits()).toThrow(/SEARCHGYM_WORKER_HEAP_MB was renamed: use SEARCHGYM_THREAD_HEAP_MB/)
})

// view/jsonl-index.test: the background index over a real file on its worker thread — a grown file is read from
// where the last pass stopped (nothing twice), a torn last line waits for its end, a rewritten file starts over,
// a malformed line is flagged with its line number and skipped, an unchanged file is not read again.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonlIndex, stopIndexing } from './jsonl-index'
import type { MetricBatch } from './records'

let dir: string
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'sg-jsonl-'))))
afterAll(async () => {
  await stopIndexing()
  rmSync(dir, { recursive: true, force: true })
})

test('appends, torn lines, rewrites and malformed lines', async () => {
  const path = join(dir, 'metrics.jsonl')
  const steps: number[] = []
  let resets = 0
  const idx = new JsonlIndex(path, 'metrics', (e) => steps.push(...(e as MetricBatch).steps), () => ((steps.length = 0), resets++))
  writeFileSync(path, '{"step":1,"loss":2}\n{"step":2,"loss":1}\n')
  await idx.ready()
  expect(steps).toEqual([1, 2])
  expect(idx.progress()).toMatchObject({ complete: true, bytes: 40 })

  appendFileSync(path, '{"step":"three"}\nnot json\n{"step":4,"loss":0.5}\n{"step":5,"lo')
  await idx.ready()
  expect(steps).toEqual([1, 2, 4]) // the torn {"step":5 waits
  expect(idx.flagged.map((f) => [f.line, f.reason.slice(0, 22)])).toEqual([
    [3, '"step" must be a numbe'],
    [4, 'not JSON: Unexpected t'],
  ])
  appendFileSync(path, 'ss":0.4}\n')
  await idx.ready()
  expect(steps).toEqual([1, 2, 4, 5])
  expect(resets).toBe(0)

  await idx.ready() // unchanged: nothing read
  expect(steps).toEqual([1, 2, 4, 5])

  writeFileSync(path, '{"step":9}\n')
  await idx.ready()
  expect(resets).toBe(1)
  expect(steps).toEqual([9])
  expect(idx.flagged).toEqual([])
}, 120_000)

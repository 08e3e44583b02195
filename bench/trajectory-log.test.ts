// bench/trajectory-log.test: append-only log — torn last line cut off, corruption in the middle refused, latest wins.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { latestById, loadTrajectories, TrajectoryWriter } from './trajectory-log'
import type { TrajectoryRecord } from './types'

const dir = mkdtempSync(join(tmpdir(), 'traj-log-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function rec(id: string, status: TrajectoryRecord['status'] = 'ok'): TrajectoryRecord {
  return {
    v: 1, id, type: 'simple', hops: 1, question: `q ${id}`, golds: ['a'], status, prediction: 'a', stopReason: 'answer', formatValid: true, f1: 1, em: 1,
    initial: [], turns: [], counts: { turns: 1, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 }, tokens: { prompt: 0, completion: 0 },
    infra: { requests: 1, attempts: 1, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 }, latencyMs: 1,
  }
}

it('appends whole lines and cuts a torn last line before appending again', async () => {
  const p = join(dir, 'a.jsonl')
  let w = new TrajectoryWriter(p, 0)
  w.append(rec('1'))
  w.append(rec('2'))
  await w.close()
  appendFileSync(p, '{"v":1,"id":"3","ty')
  const l = loadTrajectories(p)
  expect(l.torn).toBe(true)
  expect(l.records.map((r) => r.id)).toEqual(['1', '2'])
  w = new TrajectoryWriter(p, l.goodBytes)
  w.append(rec('3'))
  await w.close()
  const again = loadTrajectories(p)
  expect(again.torn).toBe(false)
  expect(again.records.map((r) => r.id)).toEqual(['1', '2', '3'])
  expect(readFileSync(p, 'utf8').endsWith('\n')).toBe(true)
})

it('a complete but unterminated last line is treated as torn (it may be cut mid-record)', () => {
  const p = join(dir, 'b.jsonl')
  writeFileSync(p, JSON.stringify(rec('1')) + '\n' + JSON.stringify(rec('2')))
  const l = loadTrajectories(p)
  expect(l.torn).toBe(true)
  expect(l.records).toHaveLength(1)
})

it('refuses a corrupt line in the middle', () => {
  const p = join(dir, 'c.jsonl')
  writeFileSync(p, JSON.stringify(rec('1')) + '\n{garbage\n' + JSON.stringify(rec('2')) + '\n')
  expect(() => loadTrajectories(p)).toThrow(/corrupt/)
})

it('the latest record of an id wins (a re-run endpoint failure)', () => {
  const m = latestById([rec('1', 'infra_error'), rec('2'), rec('1')])
  expect(m.get('1')!.status).toBe('ok')
  expect(m.size).toBe(2)
})

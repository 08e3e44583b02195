// bench/metrics.test: a run summary on hand-made trajectories — groups, rates, judge, endpoint counts, cost.
import { summarize } from './metrics'
import { renderReport } from './report'
import type { BenchRunConfig, TrajectoryRecord } from './types'

function rec(id: string, o: Partial<TrajectoryRecord> = {}): TrajectoryRecord {
  return {
    v: 1, id, type: 'simple', hops: 1, question: `q ${id}`, golds: ['a'], status: 'ok', prediction: 'a', stopReason: 'answer', formatValid: true, f1: 1, em: 1,
    initial: [], turns: [], counts: { turns: 2, search: 1, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 }, tokens: { prompt: 10, completion: 2 },
    infra: { requests: 2, attempts: 2, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 }, latencyMs: 5, ...o,
  }
}

const records: TrajectoryRecord[] = [
  rec('1', { judge: { correct: true, raw: 'CORRECT' }, cost: 0.5 }),
  rec('2', { type: 'parallel', hops: 3, f1: 0.5, em: 0, judge: { correct: true, raw: 'CORRECT' }, counts: { turns: 4, search: 2, access: 1, toolErrors: 1, toolTimeouts: 1, toolRateLimited: 1, malformed: 1 } }),
  rec('3', { type: 'combo', hops: 3, f1: 0, em: 0, judgeError: 'judge down' }),
  rec('4', { status: 'infra_error', prediction: null, stopReason: null, formatValid: false, f1: 0, em: 0, counts: { turns: 0, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 }, infra: { requests: 1, attempts: 6, rateLimited: 4, serverErrors: 2, networkErrors: 0, timeouts: 0 } }),
]

const s = summarize(records, { resamples: 300, seed: 1 })

it('aggregates accuracy overall, for completed questions, by type (with Parallel+Combo) and by hops', () => {
  expect(s.questions).toBe(4)
  expect(s.status).toEqual({ ok: 3, infra_error: 1, error: 0 })
  expect(s.overall.f1.mean).toBeCloseTo(1.5 / 4, 12)
  expect(s.completedOnly.f1.mean).toBeCloseTo(1.5 / 3, 12)
  expect(Object.keys(s.byType)).toEqual(['simple', 'parallel', 'combo', 'parallel+combo'])
  expect(s.byType['parallel+combo'].n).toBe(2)
  expect(Object.keys(s.byHops)).toEqual(['1', '3'])
  expect(s.byHops['3'].f1.mean).toBeCloseTo(0.25, 12)
  for (const b of [s.overall, ...Object.values(s.byType), ...Object.values(s.byHops)]) expect(b.f1.lo).toBeLessThanOrEqual(b.f1.hi)
})

it('judge accuracy leaves out judge failures and counts endpoint failures as wrong', () => {
  // judged: 1 ✓, 2 ✓, 4 (infra error) ✗; 3 left out
  expect(s.overall.judge!.n).toBe(3)
  expect(s.overall.judge!.mean).toBeCloseTo(2 / 3, 12)
  expect(s.overall.judge!.missing).toBe(1)
})

it('tool, format and endpoint reliability figures', () => {
  // calls: 1 + 3 + 1 + 0 = 5; turns: 2 + 4 + 2 + 0 = 8
  expect(s.tools.toolCallsPerQuestion).toBeCloseTo(5 / 4, 12)
  expect(s.tools.toolErrorRate).toBeCloseTo(1 / 5, 12)
  expect(s.tools.toolTimeoutRate).toBeCloseTo(1 / 5, 12)
  expect(s.tools.toolRateLimitRate).toBeCloseTo(1 / 5, 12)
  expect(s.tools.toolSuccessRate).toBeCloseTo(3 / 5, 12)
  expect(s.tools.malformedTurnRate).toBeCloseTo(1 / 8, 12)
  expect(s.tools.formatValidRate).toBeCloseTo(3 / 4, 12)
  expect(s.endpoint).toMatchObject({ requests: 7, attempts: 12, retries: 5, rateLimited: 4, serverErrors: 2, failedQuestions: 1 })
  expect(s.stopReasons).toEqual({ answer: 3, infra_error: 1 })
  expect(s.cost!.total).toBeCloseTo(0.5, 12)
})

it('renders a report with every table and three charts, without NaN', () => {
  const config = { world: 'w', worldId: 'id', split: 'bench', policy: 'openai', model: 'm', protocol: 'openai' } as BenchRunConfig
  const { markdown, charts } = renderReport(config, s)
  expect(markdown).toContain('Reliability warning')
  expect(markdown).toContain('| parallel+combo | 2 |')
  expect(markdown).toContain('Judge % [95% CI]')
  expect(Object.keys(charts).sort()).toEqual(['accuracy-by-hops.svg', 'accuracy-by-type.svg', 'tool-calls-by-hops.svg'])
  for (const svg of Object.values(charts)) {
    expect(svg).not.toContain('NaN')
    expect(svg.match(/<svg /g)).toHaveLength(1)
    expect(svg.trim().endsWith('</svg>')).toBe(true)
  }
})

// view/records: what one JSONL line of a run is worth to the viewer, checked — a trajectories.jsonl line as an index
// entry (the summary of a question and its byte range), a metrics.jsonl / timing.jsonl line as a step with its
// numbers — or the reason it is malformed. Pure functions, run inside the indexing worker (view/index-worker-main).
import type { TrajectorySummary } from './types'

export interface Indexed extends TrajectorySummary {
  start: number
  end: number
  /** The judge's verdict when the run was judged (1/0), undefined otherwise; judgeError: the judge failed. */
  judge?: number
  judgeError?: boolean
}

export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
export const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `a string (${JSON.stringify(v.slice(0, 20))})` : `a ${typeof v}`)

/** One trajectories.jsonl line as an index entry, or why it cannot be one. */
export function summarize(v: unknown, start: number, end: number): Indexed | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `a record must be a JSON object, got ${kindOf(v)}`
  const r = v as Record<string, unknown>
  if (typeof r.id !== 'string' || r.id === '') return `"id" must be a non-empty string, got ${kindOf(r.id)}`
  for (const k of ['question', 'type', 'status'] as const) if (typeof r[k] !== 'string') return `"${k}" must be a string, got ${kindOf(r[k])}`
  if (!Number.isInteger(r.hops)) return `"hops" must be an integer, got ${kindOf(r.hops)}`
  for (const k of ['f1', 'em'] as const) if (r[k] !== undefined && !isNum(r[k])) return `"${k}" must be a number, got ${kindOf(r[k])}`
  if (r.turns !== undefined && !Array.isArray(r.turns)) return `"turns" must be an array, got ${kindOf(r.turns)}`
  if (r.prediction !== undefined && r.prediction !== null && typeof r.prediction !== 'string') return `"prediction" must be a string or null, got ${kindOf(r.prediction)}`
  if (r.stopReason !== undefined && r.stopReason !== null && typeof r.stopReason !== 'string') return `"stopReason" must be a string or null, got ${kindOf(r.stopReason)}`
  const judge = r.judge as { correct?: unknown } | undefined
  return {
    id: r.id,
    type: r.type as string,
    hops: r.hops as number,
    question: r.question as string,
    status: r.status as string,
    stopReason: (r.stopReason as string | null | undefined) ?? null,
    f1: (r.f1 as number | undefined) ?? 0,
    em: (r.em as number | undefined) ?? 0,
    prediction: (r.prediction as string | null | undefined) ?? null,
    turns: Array.isArray(r.turns) ? r.turns.length : 0,
    start,
    end,
    judge: judge && typeof judge === 'object' && typeof judge.correct === 'boolean' ? (judge.correct ? 1 : 0) : undefined,
    judgeError: r.judgeError !== undefined,
  }
}

/** One metrics row: its step, its stage (metrics.jsonl) and every numeric field but the step. */
export interface MetricRow {
  step: number
  stage?: string
  nums: [string, number][]
}

export function metricRow(v: unknown): MetricRow | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `a metrics row must be a JSON object, got ${kindOf(v)}`
  const r = v as Record<string, unknown>
  if (!isNum(r.step)) return `"step" must be a number, got ${kindOf(r.step)}`
  const nums: [string, number][] = []
  for (const [k, x] of Object.entries(r)) if (k !== 'step' && isNum(x)) nums.push([k, x])
  return typeof r.stage === 'string' ? { step: r.step, stage: r.stage, nums } : { step: r.step, nums }
}

export type RecordMode = 'trajectories' | 'metrics'

/** The checked value of one parsed line in `mode`, or why it is malformed. */
export function checkLine(mode: RecordMode, v: unknown, start: number, end: number): unknown {
  return mode === 'trajectories' ? summarize(v, start, end) : metricRow(v)
}

/** Metric rows as columns (one array per key, NaN where a row lacks it): what crosses from the indexing thread. */
export interface MetricBatch {
  steps: number[]
  stages: (string | null)[]
  cols: Record<string, number[]>
}

export function metricBatch(rows: MetricRow[]): MetricBatch {
  const cols: Record<string, number[]> = {}
  rows.forEach((r, i) => {
    for (const [k, x] of r.nums) {
      const c = (cols[k] ??= [])
      while (c.length < i) c.push(NaN)
      c.push(x)
    }
  })
  for (const c of Object.values(cols)) while (c.length < rows.length) c.push(NaN)
  return { steps: rows.map((r) => r.step), stages: rows.map((r) => r.stage ?? null), cols }
}

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

export type RecordMode = 'trajectories' | 'metrics'


/** Metric rows as columns (one array per key, NaN where a row lacks it): what crosses from the indexing thread. */
export interface MetricBatch {
  steps: number[]
  stages: (string | null)[]
  cols: Record<string, number[]>
}

/**
 * Metrics rows gathered straight into columns: `add` checks one parsed line (a JSON object with a numeric "step"; its
 * other finite numbers become columns, "stage" a string) and returns why it is malformed, or null. No per-row objects:
 * a 20,000-step metrics.jsonl of 30 keys is 600,000 numbers, and tuples per number cost more than the JSON parse.
 */
export class MetricBatchBuilder {
  private steps: number[] = []
  private stages: (string | null)[] = []
  private cols = new Map<string, number[]>()

  add(v: unknown): string | null {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `a metrics row must be a JSON object, got ${kindOf(v)}`
    const r = v as Record<string, unknown>
    if (!isNum(r.step)) return `"step" must be a number, got ${kindOf(r.step)}`
    const row = this.steps.length
    for (const k in r) {
      const x = r[k]
      if (k === 'step' || typeof x !== 'number' || !Number.isFinite(x)) continue
      let c = this.cols.get(k)
      if (!c) this.cols.set(k, (c = []))
      while (c.length < row) c.push(NaN)
      c.push(x)
    }
    this.steps.push(r.step)
    this.stages.push(typeof r.stage === 'string' ? r.stage : null)
    return null
  }

  get size(): number {
    return this.steps.length
  }

  /** The rows added since the last take, as one batch; starts a new one. */
  take(): MetricBatch {
    const n = this.steps.length
    const cols: Record<string, number[]> = {}
    for (const [k, c] of this.cols) {
      while (c.length < n) c.push(NaN)
      cols[k] = c
    }
    const b = { steps: this.steps, stages: this.stages, cols }
    this.steps = []
    this.stages = []
    this.cols = new Map()
    return b
  }
}

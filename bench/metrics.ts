// bench/metrics: a run's summary from its trajectories — F1/EM (as scored by the gym's scorer at run time) and the
// optional judge, overall / by type / by hops, each with a percentile bootstrap 95% CI; tool use, format validity,
// tool error/timeout rates, endpoint reliability (retries counted apart from model mistakes), tokens, latency, cost.
import { bootstrapMean, mean, quantileSorted, type Estimate } from './stats'
import type { TrajectoryRecord } from './types'
import type { CeilingRecord } from './ceiling'

export interface AccuracyBlock {
  n: number
  f1: Estimate
  em: Estimate
  /** LLM-as-judge accuracy over the questions the judge answered (absent when no judge ran). */
  judge?: Estimate & { missing: number }
}

export interface Spread {
  mean: number
  p50: number
  p95: number
  max: number
}

export interface RunSummary {
  questions: number
  status: { ok: number; infra_error: number; error: number }
  /** Every question; endpoint failures score 0 here. */
  overall: AccuracyBlock
  /** Only questions whose episode ran to an end: what the model scored when the endpoint worked. */
  completedOnly: AccuracyBlock
  byType: Record<string, AccuracyBlock>
  byHops: Record<string, AccuracyBlock>
  tools: {
    searchPerQuestion: number
    accessPerQuestion: number
    toolCallsPerQuestion: number
    turnsPerQuestion: number
    /** Fraction of questions that ended with a parsed, non-empty answer. */
    formatValidRate: number
    /** Malformed assistant turns / all assistant turns. */
    malformedTurnRate: number
    /** Tool errors (excluding timeouts) / tool calls. */
    toolErrorRate: number
    toolTimeoutRate: number
    /** Search/access calls answered 429 / tool calls (the lab's search/429_rate). */
    toolRateLimitRate: number
    /** 1 − (errors + timeouts) / calls: the Search-R1 lab's search/success_rate. */
    toolSuccessRate: number
    byHops: Record<string, { search: number; access: number; turns: number }>
  }
  stopReasons: Record<string, number>
  endpoint: {
    requests: number
    attempts: number
    retries: number
    rateLimited: number
    serverErrors: number
    networkErrors: number
    timeouts: number
    /** Questions lost to the endpoint after all retries (re-run them with --retry-errors). */
    failedQuestions: number
    /** rateLimited / attempts: the lab's 429_rate. */
    rateLimitRate: number
    timeoutRate: number
    errorRate: number
  }
  tokens: { prompt: number; completion: number; promptPerQuestion: number; completionPerQuestion: number }
  latencyMs: { question: Spread; modelCall: Spread; envStep: Spread }
  cost?: { total: number; perQuestion: number; judge?: number }
  bootstrap: { resamples: number; seed: number; level: number }
  /** The oracle's ceiling under the run's budgets (bench/ceiling; written by the run, absent in runs made before). */
  oracleCeiling?: CeilingRecord
  /** The floor of the scored questions (bench/floor-record: the best constant answer per relation), from floor.json. */
  floor?: { n: number; f1: number; em: number; groups: number; top: { relation: string; n: number; answer: string; f1: number; em: number }[] }
}

export interface SummaryOptions {
  resamples: number
  seed: number
}

function spread(xs: number[]): Spread {
  if (xs.length === 0) return { mean: 0, p50: 0, p95: 0, max: 0 }
  const s = Float64Array.from(xs).sort()
  return { mean: mean(s), p50: quantileSorted(s, 0.5), p95: quantileSorted(s, 0.95), max: s[s.length - 1] }
}

function ratio(a: number, b: number): number {
  return b > 0 ? a / b : 0
}

export function accuracy(records: readonly TrajectoryRecord[], label: string, opts: SummaryOptions): AccuracyBlock {
  const b = { resamples: opts.resamples, seed: opts.seed }
  const block: AccuracyBlock = {
    n: records.length,
    f1: bootstrapMean(records.map((r) => r.f1), { ...b, label: `${label}:f1` }),
    em: bootstrapMean(records.map((r) => r.em), { ...b, label: `${label}:em` }),
  }
  if (records.some((r) => r.judge !== undefined || r.judgeError !== undefined)) {
    // Endpoint failures of the evaluated model count as incorrect; failures of the judge are left out.
    const scored = records.filter((r) => r.judgeError === undefined)
    const xs = scored.map((r) => (r.judge?.correct ? 1 : 0))
    block.judge = { ...bootstrapMean(xs, { ...b, label: `${label}:judge` }), missing: records.length - scored.length }
  }
  return block
}

function groupBy(records: readonly TrajectoryRecord[], key: (r: TrajectoryRecord) => string): Map<string, TrajectoryRecord[]> {
  const m = new Map<string, TrajectoryRecord[]>()
  for (const r of records) {
    const k = key(r)
    const g = m.get(k)
    if (g) g.push(r)
    else m.set(k, [r])
  }
  return m
}

const TYPE_ORDER = ['simple', 'parallel', 'combo']

export function summarize(records: readonly TrajectoryRecord[], opts: SummaryOptions): RunSummary {
  const ok = records.filter((r) => r.status === 'ok')
  const byTypeGroups = groupBy(records, (r) => r.type)
  const byType: Record<string, AccuracyBlock> = {}
  const typeKeys = [...byTypeGroups.keys()].sort((a, b) => {
    const ia = TYPE_ORDER.indexOf(a)
    const ib = TYPE_ORDER.indexOf(b)
    return ia !== ib ? (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) : a < b ? -1 : a > b ? 1 : 0
  })
  for (const t of typeKeys) byType[t] = accuracy(byTypeGroups.get(t)!, `type=${t}`, opts)
  const pc = records.filter((r) => r.type === 'parallel' || r.type === 'combo')
  // The paper reports Simple vs. Parallel+Combo.
  if (pc.length > 0) byType['parallel+combo'] = accuracy(pc, 'type=parallel+combo', opts)

  const hopGroups = groupBy(records, (r) => String(r.hops))
  const hopKeys = [...hopGroups.keys()].sort((a, b) => Number(a) - Number(b))
  const byHops: Record<string, AccuracyBlock> = {}
  const toolsByHops: RunSummary['tools']['byHops'] = {}
  for (const h of hopKeys) {
    const g = hopGroups.get(h)!
    byHops[h] = accuracy(g, `hops=${h}`, opts)
    toolsByHops[h] = { search: mean(g.map((r) => r.counts.search)), access: mean(g.map((r) => r.counts.access)), turns: mean(g.map((r) => r.counts.turns)) }
  }

  let search = 0, access = 0, turns = 0, toolErrors = 0, toolTimeouts = 0, toolRateLimited = 0, malformed = 0
  for (const r of records) {
    search += r.counts.search
    access += r.counts.access
    turns += r.counts.turns
    toolErrors += r.counts.toolErrors
    toolTimeouts += r.counts.toolTimeouts
    toolRateLimited += r.counts.toolRateLimited ?? 0
    malformed += r.counts.malformed
  }
  const toolCalls = search + access
  const n = records.length

  const ep = { requests: 0, attempts: 0, rateLimited: 0, serverErrors: 0, networkErrors: 0, timeouts: 0 }
  for (const r of records) {
    ep.requests += r.infra.requests
    ep.attempts += r.infra.attempts
    ep.rateLimited += r.infra.rateLimited
    ep.serverErrors += r.infra.serverErrors
    ep.networkErrors += r.infra.networkErrors
    ep.timeouts += r.infra.timeouts
  }

  const stopReasons: Record<string, number> = {}
  for (const r of records) {
    const k = r.status !== 'ok' ? r.status : (r.stopReason ?? 'none')
    stopReasons[k] = (stopReasons[k] ?? 0) + 1
  }

  const callLat: number[] = []
  const envLat: number[] = []
  for (const r of records)
    for (const t of r.turns) {
      callLat.push(t.latencyMs)
      envLat.push(t.envMs)
    }

  const promptTok = records.reduce((s, r) => s + r.tokens.prompt, 0)
  const complTok = records.reduce((s, r) => s + r.tokens.completion, 0)
  const summary: RunSummary = {
    questions: n,
    status: { ok: ok.length, infra_error: records.filter((r) => r.status === 'infra_error').length, error: records.filter((r) => r.status === 'error').length },
    overall: accuracy(records, 'overall', opts),
    completedOnly: accuracy(ok, 'completed', opts),
    byType,
    byHops,
    tools: {
      searchPerQuestion: ratio(search, n),
      accessPerQuestion: ratio(access, n),
      toolCallsPerQuestion: ratio(toolCalls, n),
      turnsPerQuestion: ratio(turns, n),
      formatValidRate: ratio(records.filter((r) => r.formatValid).length, n),
      malformedTurnRate: ratio(malformed, turns),
      toolErrorRate: ratio(toolErrors, toolCalls),
      toolTimeoutRate: ratio(toolTimeouts, toolCalls),
      toolRateLimitRate: ratio(toolRateLimited, toolCalls),
      toolSuccessRate: toolCalls > 0 ? 1 - (toolErrors + toolTimeouts) / toolCalls : 1,
      byHops: toolsByHops,
    },
    stopReasons,
    endpoint: {
      ...ep,
      retries: ep.attempts - ep.requests,
      failedQuestions: records.filter((r) => r.status === 'infra_error').length,
      rateLimitRate: ratio(ep.rateLimited, ep.attempts),
      timeoutRate: ratio(ep.timeouts, ep.attempts),
      errorRate: ratio(ep.serverErrors + ep.networkErrors, ep.attempts),
    },
    tokens: { prompt: promptTok, completion: complTok, promptPerQuestion: ratio(promptTok, n), completionPerQuestion: ratio(complTok, n) },
    latencyMs: { question: spread(records.map((r) => r.latencyMs)), modelCall: spread(callLat), envStep: spread(envLat) },
    bootstrap: { resamples: opts.resamples, seed: opts.seed, level: 0.95 },
  }
  if (records.some((r) => r.cost !== undefined || r.judge?.call?.cost !== undefined)) {
    const total = records.reduce((s, r) => s + (r.cost ?? 0), 0)
    const judge = records.reduce((s, r) => s + (r.judge?.call?.cost ?? 0), 0)
    summary.cost = { total, perQuestion: ratio(total, n) }
    if (judge > 0) summary.cost.judge = judge
  }
  return summary
}

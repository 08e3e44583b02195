// agent/rollout/env-stats: the one place that reads the env's step metrics/logs into bench counts (tool calls, errors,
// timeouts, 429s, malformed turns) and the final answer. Key names follow the gym's SearchEnv per-step metrics:
// `<tool>_calls`, `<tool>_errors` (any failure), `<tool>_<fault kind>` (timeout | rate_limited | unavailable),
// `malformed`; the parsed answer is `logs.answer` on the last step.
import type { StepResult } from '../../gym'
import type { EpisodeCounts, StepSignalRecord } from './types'

const TOOLS = ['search', 'access'] as const

/** Log key under which the env reports the parsed final answer. */
export const ANSWER_LOG_KEY = 'answer'

export function emptyCounts(): EpisodeCounts {
  return { turns: 0, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, toolRateLimited: 0, malformed: 0 }
}

export function addStepCounts(c: EpisodeCounts, step: Pick<StepResult, 'metrics'>): void {
  c.turns++
  const m = step.metrics
  c.search += m.search_calls ?? 0
  c.access += m.access_calls ?? 0
  for (const t of TOOLS) {
    const timeouts = m[`${t}_timeout`] ?? 0
    c.toolTimeouts += timeouts
    c.toolRateLimited += m[`${t}_rate_limited`] ?? 0
    // errors other than timeouts (429s, unavailable pages, engine failures)
    c.toolErrors += Math.max(0, (m[`${t}_errors`] ?? 0) - timeouts)
  }
  c.malformed += m.malformed ?? 0
}

/** The final answer the env parsed, or null when the episode ended without one. */
export function finalAnswer(step: Pick<StepResult, 'logs' | 'stopReason'>): string | null {
  const a = step.logs[ANSWER_LOG_KEY]
  return typeof a === 'string' && a.trim().length > 0 ? a : null
}

const SIGNALS = ['gold_found', 'gold_accessed', 'evidence_new', 'redundant_query', 'redundant_access', 'hop_reached'] as const

/** The gym's step signals of a turn (`signal/*` metrics), or undefined when the env reported none. */
export function stepSignals(step: Pick<StepResult, 'metrics'>): StepSignalRecord | undefined {
  if (step.metrics['signal/gold_found'] === undefined) return undefined
  const out = {} as StepSignalRecord
  for (const k of SIGNALS) out[k] = step.metrics[`signal/${k}`] ?? 0
  return out
}

/** The step-term credit the env paid on a turn (`reward/step`; 0 when the spec has no step term). */
export function stepCreditOf(step: Pick<StepResult, 'metrics'>): number {
  return step.metrics['reward/step'] ?? 0
}

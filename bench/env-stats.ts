// bench/env-stats: the one place that reads the env's step metrics/logs into bench counts (tool calls, errors,
// timeouts, malformed turns) and the final answer. Align the key names here with the gym's episode statistics.
import type { StepResult } from '../gym/types'
import type { EpisodeCounts } from './types'

/** Metric keys the gym's env reports per step (counts for that step). */
export const ENV_KEYS = {
  search: 'search_calls',
  access: 'access_calls',
  toolErrors: 'tool_errors',
  toolTimeouts: 'tool_timeouts',
  malformed: 'malformed',
} as const

/** Log key under which the env reports the parsed final answer. */
export const ANSWER_LOG_KEY = 'answer'

export function emptyCounts(): EpisodeCounts {
  return { turns: 0, search: 0, access: 0, toolErrors: 0, toolTimeouts: 0, malformed: 0 }
}

export function addStepCounts(c: EpisodeCounts, step: Pick<StepResult, 'metrics'>): void {
  c.turns++
  const m = step.metrics
  c.search += m[ENV_KEYS.search] ?? 0
  c.access += m[ENV_KEYS.access] ?? 0
  c.toolErrors += m[ENV_KEYS.toolErrors] ?? 0
  c.toolTimeouts += m[ENV_KEYS.toolTimeouts] ?? 0
  c.malformed += m[ENV_KEYS.malformed] ?? 0
}

/** The final answer the env parsed, or null when the episode ended without one. */
export function finalAnswer(step: Pick<StepResult, 'logs' | 'stopReason'>): string | null {
  const a = step.logs[ANSWER_LOG_KEY]
  return typeof a === 'string' && a.trim().length > 0 ? a : null
}

// gym/wrappers/episode-stats: sums per-step metrics over an episode and, on its last step, adds `episode/*`
// statistics — turns, search/access counts and success rates, malformed turns, tokens, latency (Gymnasium's
// RecordEpisodeStatistics). Latency is wall-clock and never enters hashed content.
import type { GymEnv } from '../env'
import type { AssistantAction, StepResult } from '../types'
import { actionTokens, approxTokens, type TokenCounter } from './token-count'

export interface EpisodeStats {
  turns: number
  searches: number
  accesses: number
  search_success_rate: number
  access_success_rate: number
  tool_errors: number
  malformed: number
  response_tokens: number
  obs_chars: number
  tool_latency_ms: number
  step_latency_ms: number
}

export function withEpisodeStats(env: GymEnv, count: TokenCounter = approxTokens): GymEnv & { stats(): EpisodeStats } {
  const sum: Record<string, number> = {}
  let turns = 0
  let stepMs = 0
  const stats = (): EpisodeStats => {
    const g = (k: string) => sum[k] ?? 0
    const searches = g('search_calls')
    const accesses = g('access_calls')
    return {
      turns,
      searches,
      accesses,
      search_success_rate: searches ? g('search_ok') / searches : 1,
      access_success_rate: accesses ? g('access_ok') / accesses : 1,
      tool_errors: g('search_errors') + g('access_errors'),
      malformed: g('malformed'),
      response_tokens: g('response_tokens'),
      obs_chars: g('obs_chars'),
      tool_latency_ms: g('tool_latency_ms'),
      step_latency_ms: stepMs,
    }
  }
  return {
    qa: env.qa,
    tools: env.tools,
    get done() {
      return env.done
    },
    stats,
    finish: async (reason, note) => addEpisode(await env.finish(reason, note)),
    initialObservation: () => env.initialObservation(),
    async step(action: AssistantAction | string): Promise<StepResult> {
      if (env.done) return env.step(action)
      const t0 = performance.now()
      const r = await env.step(action)
      stepMs += performance.now() - t0
      turns++
      if (r.metrics.response_tokens === undefined) r.metrics.response_tokens = actionTokens(action, count)
      for (const [k, v] of Object.entries(r.metrics)) if (k !== 'turn' && !k.startsWith('episode/')) sum[k] = (sum[k] ?? 0) + v
      return r.terminated || r.truncated ? addEpisode(r) : r
    },
  }
  function addEpisode(r: StepResult): StepResult {
    for (const [k, v] of Object.entries(stats())) r.metrics[`episode/${k}`] = v
    return r
  }
}

// gym/wrappers/budgets: turn and token budgets around a GymEnv (paper defaults: 16 assistant turns, 1,024 tokens
// per response; plus a total-context cap). A budget ends the episode as truncated with its stop reason.
import type { GymEnv } from '../env'
import type { AssistantAction, Observation, StepResult, StopReason } from '../types'
import { actionTokens, approxTokens, messagesTokens, type TokenCounter } from './token-count'

export interface Budgets {
  maxTurns: number
  maxResponseTokens: number
  /** Prompt + every response + every observation, in tokens. */
  maxContextTokens: number
}

export const DEFAULT_BUDGETS: Budgets = { maxTurns: 16, maxResponseTokens: 1024, maxContextTokens: 32768 }

function merge(into: Record<string, number>, from: Record<string, number>): Record<string, number> {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v
  return into
}

export function withBudgets(env: GymEnv, budgets: Partial<Budgets> = {}, count: TokenCounter = approxTokens): GymEnv {
  const b = { ...DEFAULT_BUDGETS, ...budgets }
  let turns = 0
  let context = 0
  const cut = async (reason: StopReason, note: string, carried?: StepResult): Promise<StepResult> => {
    const r = await env.finish(reason, note)
    if (carried) {
      // Keep the counts of the turn that hit the budget (its tool calls happened).
      merge(r.metrics, carried.metrics)
      // ...and its step credit (process/cost terms), and the cumulative hop count as it was (not summed).
      r.reward += carried.reward
      if (carried.metrics['signal/hop_reached'] !== undefined) r.metrics['signal/hop_reached'] = carried.metrics['signal/hop_reached']
      for (const [k, v] of Object.entries(carried.logs)) if (!(k in r.logs)) r.logs[k] = v
    }
    r.metrics.turn = turns
    r.metrics[`budget/${reason}`] = 1
    r.metrics.context_tokens = context
    return r
  }
  return {
    qa: env.qa,
    tools: env.tools,
    get done() {
      return env.done
    },
    finish: (reason, note) => env.finish(reason, note),
    async initialObservation(): Promise<Observation> {
      const obs = await env.initialObservation()
      context = messagesTokens(obs, count)
      return obs
    },
    async step(action: AssistantAction | string): Promise<StepResult> {
      if (env.done) return env.step(action)
      turns++
      const n = actionTokens(action, count)
      context += n
      if (n > b.maxResponseTokens)
        return cut('max_tokens', `the response has ${n} tokens; the budget is ${b.maxResponseTokens}`)
      if (context > b.maxContextTokens) return cut('context', `the context reached ${context} tokens; the cap is ${b.maxContextTokens}`)
      const r = await env.step(action)
      r.metrics.response_tokens = n
      // The last step reports the context it reached too: what a budget must hold for this episode to end as it did.
      if (r.terminated || r.truncated) {
        r.metrics.context_tokens = context
        return r
      }
      context += messagesTokens(r.observation, count)
      if (turns >= b.maxTurns) return cut('max_turns', `no answer after ${b.maxTurns} assistant turns`, r)
      if (context > b.maxContextTokens)
        return cut('context', `the context reached ${context} tokens; the cap is ${b.maxContextTokens}`, r)
      r.metrics.context_tokens = context
      return r
    },
  }
}

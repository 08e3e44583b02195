// agent/rollout/types: the one trajectory record of an episode, shared by the trainer and the bench — turns, tool
// calls, observations, tokens (ids and sampler log-probs when the policy keeps them), counts, infra failures.
import type { AssistantTurn, ChatMessage, StopReason } from '../../gym'
import type { QaType } from '../../world'
import type { CallRecord } from '../policy/chat-client'

/** The gym's answer scorer (F1 and EM maximised over gold aliases). The bench never scores answers itself. */
export type AnswerScorer = (prediction: string, golds: readonly string[]) => { f1: number; em: number }

/** An answer judge (the bench's LLM judge implements it); the rollout only calls it. */
export interface AnswerJudge {
  judge(id: string, question: string, golds: readonly string[], prediction: string | null): Promise<JudgeVerdict>
}

/** One model turn and the env's answer to it. */
export interface TurnRecord {
  text: string
  tool_calls?: AssistantTurn['tool_calls']
  promptTokens: number
  completionTokens: number
  /** Model call latency (all attempts), ms. */
  latencyMs: number
  /** Env step latency, ms. */
  envMs: number
  call?: CallRecord
  /** Token in / token out policies: the exact completion ids and the sampler's model log-probs. */
  tokens?: number[]
  logprobs?: number[]
  observation: ChatMessage[]
  /** The env's reward for this step: step-term credit (process, cost) and, on the last step, the terminal reward. */
  reward: number
  /** The gym's step signals for this turn (from the world's record of the question), when the env reports them. */
  signals?: StepSignalRecord
  metrics: Record<string, number>
  logs: Record<string, string>
}

/** Step signals of one turn (gym/step-signals; the `signal/*` step metrics). */
export interface StepSignalRecord {
  gold_found: number
  gold_accessed: number
  evidence_new: number
  redundant_query: number
  redundant_access: number
  hop_reached: number
}

/** Per-question tool and format counts, read from the env's step metrics (see agent/rollout/env-stats). */
export interface EpisodeCounts {
  turns: number
  search: number
  access: number
  /** Tool failures other than timeouts (429s, unavailable pages, engine errors). */
  toolErrors: number
  toolTimeouts: number
  /** Of toolErrors: the search service answered 429 (the lab's search/429_rate). */
  toolRateLimited: number
  malformed: number
}

export interface InfraCounts {
  requests: number
  attempts: number
  rateLimited: number
  serverErrors: number
  networkErrors: number
  timeouts: number
}

export interface JudgeVerdict {
  correct: boolean
  raw: string
  call?: CallRecord
}

/** One line of trajectories.jsonl: a finished question. The last line for an id wins (re-tries of infra errors). */
export interface TrajectoryRecord {
  v: 1
  id: string
  type: QaType
  hops: number
  question: string
  golds: string[]
  /** 'ok': the episode ran to an end; 'infra_error': the endpoint failed after retries (counted apart, re-runnable);
   *  'error': the env or policy threw (a bug or a bad world) — scored 0 and reported. */
  status: 'ok' | 'infra_error' | 'error'
  error?: string
  prediction: string | null
  stopReason: StopReason | null
  /** True when the episode ended with a parsed, non-empty answer. */
  formatValid: boolean
  f1: number
  em: number
  judge?: JudgeVerdict
  /** Set when the judge endpoint failed; the question is left out of judge accuracy. */
  judgeError?: string
  initial: ChatMessage[]
  turns: TurnRecord[]
  counts: EpisodeCounts
  tokens: { prompt: number; completion: number }
  infra: InfraCounts
  cost?: number
  latencyMs: number
}

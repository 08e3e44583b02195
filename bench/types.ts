// bench/types: what a benchmark run writes and reads — the run config, one trajectory line per question, the scorer
// signature it borrows from the gym, and the world a run draws questions and envs from.
import type { AssistantTurn, ChatMessage, Env, Policy, StopReason } from '../gym'
import type { Qa, QaType } from '../world'
import type { CallRecord, PriceTable, WireProtocol } from '../agent'

/** The gym's answer scorer (F1 and EM maximised over gold aliases). The bench never scores answers itself. */
export type AnswerScorer = (prediction: string, golds: readonly string[]) => { f1: number; em: number }

export type PolicyKind = 'openai' | 'oracle' | 'closed-book' | 'one-shot-rag'

/** The gym protocol a run speaks (the gym's names): 'openai' = native tool_calls, 'hermes' = <tool_call> tags in text. */
export type BenchProtocol = 'openai' | 'hermes'
export const BENCH_PROTOCOLS: readonly BenchProtocol[] = ['openai', 'hermes']

/** How a chat policy talks to the endpoint for a protocol: tool_calls in the API, or tags in the text. */
export function wireProtocol(p: BenchProtocol): WireProtocol {
  return p === 'openai' ? 'tools' : 'text'
}

/** Everything that determines a run; saved as config.json and checked on resume. */
export interface BenchRunConfig {
  world: string
  /** Identity of the world (content hash when known) so a resumed run cannot silently switch worlds. */
  worldId: string
  split: string
  policy: PolicyKind
  model: string
  baseURL: string
  apiKeyEnv: string
  protocol: BenchProtocol
  limit: number | null
  concurrency: number
  seed: number
  timeoutMs: number
  maxRetries: number
  temperature: number | null
  maxTokens: number | null
  /** Harness safety stop: the env's own budgets normally end an episode first. */
  maxTurns: number
  /** one-shot-rag: how many top documents to open and put in context. */
  ragDocs: number
  prices: PriceTable | null
  judge: { model: string; baseURL: string; apiKeyEnv: string } | null
  /** Env options passed to the gym (budgets, faults, reward, topK, access...); validated by the gym. */
  gym: Record<string, unknown> | null
  bootstrap: number
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
  observation: ChatMessage[]
  reward: number
  metrics: Record<string, number>
  logs: Record<string, string>
}

/** Per-question tool and format counts, read from the env's step metrics (see bench/env-stats). */
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

/** What a run needs from a world: the questions of a split and a fresh env per question. */
export interface BenchWorld {
  readonly dir: string
  readonly id: string
  questions(split: string): Qa[]
  makeEnv(qa: Qa, opts: { protocol: BenchProtocol; gym?: Record<string, unknown> | null }): Promise<Env>
  /** The oracle for a question of this world, when the world can give one (it needs the gold graph). */
  oracle?(qa: Qa): Policy
  close(): Promise<void>
}

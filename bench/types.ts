// bench/types: what a benchmark run writes and reads — the run config, one trajectory line per question, the scorer
// signature it borrows from the gym, and the world a run draws questions and envs from.
import type { Env, Policy } from '../gym'
import type { Qa } from '../world'
import type { PriceTable, WireProtocol } from '../agent'
import { BenchError } from '../infra/errors'

export type { AnswerScorer, TurnRecord, EpisodeCounts, InfraCounts, JudgeVerdict, TrajectoryRecord } from '../agent'

export type PolicyKind = 'openai' | 'oracle' | 'closed-book' | 'one-shot-rag' | 'engine'

/** The gym protocol a run speaks (the gym's names): 'openai' = native tool_calls, 'hermes' = <tool_call> tags in text. */
/** 'search-r1' (<search>/<answer> tags) only with --policy engine, which speaks any text protocol. */
export type BenchProtocol = 'openai' | 'hermes' | 'search-r1'
export const BENCH_PROTOCOLS: readonly BenchProtocol[] = ['openai', 'hermes']

/** How a chat policy talks to the endpoint for a protocol: tool_calls in the API, or tags in the text. */
export function wireProtocol(p: BenchProtocol): WireProtocol {
  if (p === 'search-r1') throw new BenchError('bench.args', 'the chat policies do not speak search-r1; use --policy engine')
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
  /** How --limit picks: a seeded stratified sample over type × hops ('stratified', the CLI's default) or the first N
   *  ('first'; also what a config without the key means, as runs before the sample did). */
  limitMode?: 'stratified' | 'first'
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
  /** --policy engine: the PEFT adapter folder on the local model (absent: the base model). */
  adapter?: string
  /** --policy engine: the engine backend. */
  backend?: string
  /** Only these questions of the split, in this order (e.g. a training run's held-out slice); absent: all. */
  qaIds?: string[]
  /** `--bench NAME`: the canonical benchmark this run scores (its world's content hash checked against the pin). */
  benchmark?: { name: string; version: number; hash: string }
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

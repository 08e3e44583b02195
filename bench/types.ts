// bench/types: what a benchmark run writes and reads — the run config, one trajectory line per question, the scorer
// signature it borrows from the gym, and the world a run draws questions and envs from.
import { CHAT_PROTOCOLS, type Budgets, type ChatProtocolName, type Env, type GymOptions, type GymOptionsJson, type Policy, type ProtocolName } from '../gym'
import type { Qa } from '../world'
import type { OracleKnowledge, PriceTable } from '../agent'
import { BenchError } from '../infra/errors'

export type { AnswerScorer, TurnRecord, EpisodeCounts, InfraCounts, JudgeVerdict, TrajectoryRecord } from '../agent'

export type PolicyKind = 'openai' | 'oracle' | 'closed-book' | 'one-shot-rag' | 'engine'

/** The protocol a chat policy speaks (the gym's CHAT_PROTOCOLS); search-r1 only with --policy engine, which speaks any
 *  text protocol. */
export function chatProtocol(p: ProtocolName): ChatProtocolName {
  if (!(CHAT_PROTOCOLS as readonly string[]).includes(p)) throw new BenchError('bench.args', `the chat policies do not speak ${p}; use --policy engine`)
  return p as ChatProtocolName
}

/** Everything that determines a run; saved as config.json and checked on resume. */
export interface BenchRunConfig {
  world: string
  /** A pool of several worlds (question ids WORLD/ID); absent for one world (then `world`). */
  worlds?: string[]
  /** Identity of the world (content hash when known) so a resumed run cannot silently switch worlds. */
  worldId: string
  split: string
  policy: PolicyKind
  model: string
  baseURL: string
  apiKeyEnv: string
  /** The gym protocol the run speaks: openai (native tool_calls), hermes (<tool_call> tags), search-r1 (engine only). */
  protocol: ProtocolName
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
  /** one-shot-rag: how many top documents to open and put in context. */
  ragDocs: number
  prices: PriceTable | null
  judge: { model: string; baseURL: string; apiKeyEnv: string } | null
  /** Env options as --gym-options spells them (budgets, faults, reward by name, topK, access...); runBench resolves
   *  them once (the gym validates) and hands each env the typed GymOptions. */
  gym: GymOptionsJson | null
  bootstrap: number
  /** --policy engine: the PEFT adapter folder on the local model (absent: the base model). */
  adapter?: string
  /** --policy engine: the engine backend. */
  backend?: string
  /** `--via mcp`: every episode played through the gym's MCP server (`gym mcp`); absent: through the gym's env in
   *  process (`--via env`, the default). */
  via?: 'mcp'
  /** Only these questions of the split, in this order (e.g. a training run's held-out slice); absent: all. */
  qaIds?: string[]
  /** `--bench NAME`: the canonical benchmark this run scores (its world's content hash checked against the pin) and
   *  the budgets pinned with it (also the run's `gym.budgets`). */
  benchmark?: { name: string; version: number; hash: string; budgets?: Budgets }
  /** Older run folders only (read, never written): the absolute paths the run was started with. */
  origin?: { world: string; worlds?: string[]; model?: string; adapter?: string }
  /** The engine policy's model and adapter folders by content (infra/recorded-path folderFingerprint): a folder moved
   *  away from them still resumes. config.json records no absolute path (world and folders relative to the run). */
  identity?: { model?: string; adapter?: string }
}

/** What a run needs from a world: the questions of a split and a fresh env per question. */
export interface BenchWorld {
  readonly dir: string
  readonly id: string
  questions(split: string): Qa[]
  /** A fresh env for a question; `gym` is the run's resolved options (its protocol included). */
  makeEnv(qa: Qa, gym: GymOptions): Promise<Env>
  /** The world folder a question lives in and its id there (a pool's member and local id), for a child process such
   *  as `gym mcp`; absent for a world that is not a folder. */
  home?(qa: Qa): { dir: string; qaId: string }
  /** The oracle for a question of this world, when the world can give one (it needs the gold graph). */
  oracle?(qa: Qa): Policy
  /** The gold graph a question's oracle walks and the question as its own world names it (a pool's local id): for an
   *  oracle with another plan or protocol (the ceiling's reader walk). Present when `oracle` is. */
  oracleKnowledge?: { of(qa: Qa): OracleKnowledge; localQa(qa: Qa): Qa }
  close(): Promise<void>
}

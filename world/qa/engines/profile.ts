// world/qa/engines/profile: what an outside RL engine is to this project — one `EngineProfile` per engine (its stock
// limits with their sources, how it renders and cuts a search observation, its prompt, its data rows and files, its
// launch flags and scripts, its stock batch and the ladder of raised limits the oracle check climbs), and the
// engine-independent arithmetic every profile shares (limit overrides as config keys, batch sizes). Every member is required: a new
// engine that leaves one out does not compile. Knows no engine by name (engines/<name>.ts, engines/registry.ts).
import type { FieldTable } from '../../../infra/fields'
import type { Qa } from '../../types'
import type { RetrieveUnit } from '../../search/retrieve-units'
import type { ExportCurriculum } from '../export-stages'
import type { CurriculumPlan, LaunchPlan } from './launch'

/** The limits that decide whether a question can be solved inside an engine's rollout. */
export interface EngineLimits {
  /** Tool calls one episode may make (the engine's turn limit less the answer turn where it counts that one). */
  toolCalls: number
  /** Documents per search. */
  topk: number
  /** Cut of one tool observation: its unit, size and which side is kept. */
  obs: number
  /** Per-document cut in characters before the documents are joined (0: none). */
  docChars: number
  /** Tokens the whole episode may hold (prompt + turns + observations, as the engine counts them). */
  context: number
  /** Whether the model is offered an access tool. */
  access: boolean
}

/** The /retrieve unit an export's launch script serves (gym serve --retrieve-unit). */
export type ExportUnit = RetrieveUnit

/** Who the rows come from: kept in every exported row (the trainers' data_source must be one of their own names). */
export interface WorldIdentity {
  world: string
  hash: string
}

/** The one retrieved unit an observation is rendered from: title line + text (a page, or a passage). */
export interface RetrievedDoc {
  title: string
  url: string
  contents: string
}

/** One search observation as the engine renders it: the text, and where each document's head (the part that names
 * it) and body sit in it. */
export interface RenderedObservation {
  text: string
  blocks: { url: string; title: string; head: [number, number]; body: [number, number] }[]
}

/** What the engine's cut keeps of an observation ([start, end) ranges of its text) and the tokens it costs the context. */
export interface ObservationCut {
  kept: [number, number][]
  tokens: number
}

/** Raised limits the oracle check tries, cheapest first, when the stock ones solve under 95 %:
 * - `context`: the stock limits with each context in turn; the first that passes, else the last, is shipped;
 * - `turns-obs`: tool calls first (with the widest observation), then the observation cut, then the context the
 *   engine's own formula gives for the chosen two. */
export type LimitLadder =
  | { kind: 'context'; contexts: number[] }
  | { kind: 'turns-obs'; turns: number[]; obs: number[]; context(l: EngineLimits): number }

/** Batch sizes for row counts: training batches never exceed the pool (drop_last would leave zero batches and the
 * trainer asserts), validation batches divide the bench exactly (Search-R1 drops the last partial one). */
export interface BatchSizes {
  train: number
  val: number
  miniBatch: number
  microBatch: number
}

/** How the export writes JSON Lines (handed in: the engine modules need no stream code). */
export interface ExportIo {
  writeJsonl(path: string, rows: unknown[]): Promise<void>
}

export interface EngineProfile {
  /** The name on the command line (`world export --format`, `gym check --format`) and in file names. */
  readonly name: string
  /** The engine as help text names it. */
  readonly title: string
  /** How `obs` counts and where a longer observation is cut. */
  readonly obsUnit: 'tokens' | 'chars'
  readonly obsKeep: 'head' | 'middle'
  readonly stock: EngineLimits
  /** Where each stock number comes from (file:line at the version read). */
  readonly sources: Record<keyof EngineLimits, string>
  /** How the observation is rendered from the documents (the engine's own format string). */
  readonly render: string
  /** The engine's stock training batch (the cap of the exported one), with its source in the module. */
  readonly stockTrainBatch: number
  /** What the oracle check raises when the stock limits are not enough. */
  readonly ladder: LimitLadder
  /** The prompt text the episode starts from (the check counts its tokens). */
  prompt(question: string): string
  /** One search's documents (already cut to topk) as the engine renders them. */
  renderObservation(docs: RetrievedDoc[], l: EngineLimits): RenderedObservation
  /** The engine's cut of a rendered observation; `cutTokens(s, n)`: characters of s its first n tokens cover. */
  cutObservation(text: string, l: EngineLimits, count: (s: string) => number, cutTokens: (s: string, n: number) => number): ObservationCut
  /** The trainer flags that carry limits and batch sizes (added to the launch scripts). */
  launchFlags(l: EngineLimits, b: BatchSizes): string[]
  /** Extension of the data files (train.<ext>, test.<ext>, stage files). */
  readonly dataExt: string
  /** Write one split's rows as the engine reads them. */
  writeRows(path: string, qas: Qa[], split: 'train' | 'test', id: WorldIdentity, io: ExportIo): Promise<void>
  /** Config files and scripts the engine needs besides the data and the launch snippet; file name → 0, in the order written. */
  writeExtras(outDir: string, limits: EngineLimits | undefined): Record<string, number>
  /** Data files curriculum phase i reads besides its stage file (`byStage`: the pool split by stage), written by the export. */
  phaseData(i: number, byStage: Qa[][]): { file: string; qas: Qa[] }[]
  /** launch-<name>.sh: serve the world and train on train.<ext> (runs from any folder; see engines/launch). */
  launchSnippet(plan: LaunchPlan): string
  /** Other launch scripts the engine ships besides launch-<name>.sh (file name → text; e.g. verl's launch-verl-gym.sh). */
  extraLaunches(plan: LaunchPlan): Record<string, string>
  /** launch-<name>-<preset>.sh: the curriculum's phases in order, each starting from what the one before wrote, with
   * step counts the engine's own loop reads; throws (saying the fix) when a phase cannot train. */
  curriculumLaunch(c: ExportCurriculum, plan: CurriculumPlan): string
}

const LIMIT_MAX = 10_000_000

/** The limits as config keys (`gym check --set toolCalls=8`: overrides of a profile's stock ones), their bounds once. */
export const ENGINE_LIMIT_FIELDS: FieldTable = [
  { key: 'toolCalls', type: 'int', optional: true, min: 1, max: LIMIT_MAX, help: 'tool calls one episode may make' },
  { key: 'topk', type: 'int', optional: true, min: 1, max: LIMIT_MAX, help: 'documents per search' },
  { key: 'obs', type: 'int', optional: true, min: 0, max: LIMIT_MAX, help: "cut of one tool observation, in the engine's unit (tokens or characters)" },
  { key: 'docChars', type: 'int', optional: true, min: 0, max: LIMIT_MAX, help: 'per-document cut in characters before the documents are joined (0: none)' },
  { key: 'context', type: 'int', optional: true, min: 1, max: LIMIT_MAX, help: 'tokens the whole episode may hold (prompt, turns, observations)' },
  { key: 'access', type: 'bool', optional: true, help: 'whether the model is offered an access tool' },
]

/** Stock limits with the overrides that are set (checked by ENGINE_LIMIT_FIELDS where they were given). */
export function limitsWith(base: EngineLimits, over: Partial<EngineLimits>): EngineLimits {
  const out = { ...base }
  for (const f of ENGINE_LIMIT_FIELDS) {
    const k = f.key as keyof EngineLimits
    if (over[k] !== undefined) (out as Record<keyof EngineLimits, unknown>)[k] = over[k]
  }
  return out
}

/** Largest power of two ≤ min(cap, n) (n ≥ 1). */
const pow2Below = (n: number, cap: number) => {
  let b = 1
  while (b * 2 <= Math.min(n, cap)) b *= 2
  return b
}

/** The validation batch: the bench in one batch up to `cap` rows, else its largest divisor ≤ cap (drop_last drops 0). */
export function validationBatch(rows: number, cap = 1024): number {
  if (rows <= cap) return rows
  for (let d = cap; d >= 1; d--) if (rows % d === 0) return d
  return 1
}

export function batchSizes(profile: EngineProfile, trainRows: number, benchRows: number): BatchSizes {
  if (trainRows < 1) throw new Error('no training rows to export')
  const train = pow2Below(trainRows, profile.stockTrainBatch)
  const miniBatch = Math.max(1, Math.min(256, train / 2 >= 1 ? train / 2 : 1))
  return { train, val: validationBatch(Math.max(1, benchRows)), miniBatch, microBatch: Math.min(8, miniBatch) }
}

/** A curriculum's batches: the plain ones, or (when the smallest phase holds fewer rows than a training batch: drop_last
 * would leave that phase no batch) those of the smallest phase's row count. Throws, saying the fix, on an empty phase. */
export function curriculumBatches(profile: EngineProfile, plain: BatchSizes, phaseRows: number[], benchRows: number, stages: string[]): BatchSizes {
  const min = Math.min(...phaseRows)
  if (min < 1) {
    const i = phaseRows.indexOf(min)
    throw new Error(`curriculum phase ${i + 1} (${stages[i]}) has no training questions in this world: export without --curriculum, or build a world whose questions match stage ${i + 1}`)
  }
  return min >= plain.train ? plain : batchSizes(profile, min, benchRows)
}

/** Builds a rendered observation piece by piece: `push` appends and returns the [start, end) it took. */
export function observationText(): { push(s: string): [number, number]; text(): string } {
  let text = ''
  return {
    push(s) {
      const a = text.length
      text += s
      return [a, text.length]
    },
    text: () => text,
  }
}

/** What the export learns from running the oracle through an engine's limits (agent/oracle/profile-check, handed in by
 * the root CLI): the limits to ship and which questions are solvable under them. */
export interface ExportTuning {
  profile: string
  /** The /retrieve unit the launch script serves and the check read through. */
  unit: ExportUnit
  stock: { limits: EngineLimits; solved: number; total: number }
  shipped: { limits: EngineLimits; solved: number; total: number }
  /** Ids of the questions solvable under the shipped limits. */
  solvable: Set<string>
}

/** Runs the oracle for an export: (world folder, profile name, every question to export) → tuning. */
export type ExportTuner = (dir: string, profile: string, qas: Qa[], unit?: ExportUnit) => Promise<ExportTuning>

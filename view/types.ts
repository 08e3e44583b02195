// view/types: the JSON shapes the viewer's API answers with (the page in view/page/ reads exactly these). Plain data;
// every list is one page of a server-side filtered query, never a whole world.

/** One page of a list: `items` from `offset`, `total` rows match the filters. */
export interface ListPage<T> {
  items: T[]
  total: number
  offset: number
  limit: number
}

export interface EntitySummary {
  id: string
  type: string
  name: string
  url: string
}

/** A stretch of a document's text; `fact` is the index into `facts` when the stretch is that fact's sentence. */
export interface DocSpan {
  text: string
  fact?: number
}

export interface FactView {
  kind: 'edge' | 'attr'
  ref: string
  sentence: string
  /** Where the sentence occurs in the document text (false: not found verbatim). */
  located: boolean
}

export interface VerificationQuery {
  style: string
  query: string
  /** Rank of the target's document (0: not in the top K). */
  rank: number
  topUrls: string[]
}

export interface EdgeView {
  id: string
  relation: string
  source: EntitySummary
  target: EntitySummary
  /** Verification of the edge (absent when the world was built without the verify stage). */
  verification?: { hits: number; of: number; kept: boolean; minHits: number | null; queries: VerificationQuery[] }
}

/** Nodes and edges with positions, ready for a renderer (graphology's serialized shape). */
export interface GraphView {
  nodes: { key: string; attributes: { label: string; x: number; y: number; size: number; color: string; /** Not `type`: sigma reads that as the node program. */ entityType: string } }[]
  edges: { key: string; source: string; target: string; attributes: { label: string; color: string } }[]
  /** Edges around the entity left out of the drawing (hubs are capped). */
  omitted: number
}

export interface EntityView {
  entity: EntitySummary & { attrs: Record<string, string | number> }
  doc: { url: string; title: string; spans: DocSpan[]; facts: FactView[] } | null
  edges: ListPage<EdgeView>
  graph: GraphView
}

export interface QuestionSummary {
  id: string
  type: string
  hops: number
  split: string
  question: string
  answer: string
}

export interface HopView {
  hop: number
  edge: EdgeView | null
  url: string
  title: string | null
  sentence: string
  /** The document's text split around the evidence sentence. */
  spans: DocSpan[]
}

export interface QuestionView extends QuestionSummary {
  aliases: string[]
  docs: string[]
  meta: Record<string, unknown>
  hops_: HopView[]
  graph: GraphView
  /** Trajectories of this question in the loaded runs. */
  runs: { run: string; f1: number; em: number; status: string; stopReason: string | null }[]
}

export interface ToolCallView {
  name: string
  /** The query or the URL. */
  argument: string
  /** Gold documents this call opened (access) or saw in its results (search). */
  gold: string[]
}

export interface TurnView {
  index: number
  text: string
  calls: ToolCallView[]
  answer: string | null
  malformed: string | null
  observation: { role: string; name?: string; content: string }[]
  reward: number
  metrics: Record<string, number>
}

export type GoldStatus = 'opened' | 'seen' | 'missed'

export interface TrajectorySummary {
  id: string
  type: string
  hops: number
  question: string
  status: string
  stopReason: string | null
  f1: number
  em: number
  prediction: string | null
  turns: number
}

export interface TrajectoryView extends TrajectorySummary {
  run: string
  golds: string[]
  /** Gold documents of the question (from the world) and whether the agent opened them, saw them in results, or missed them. */
  goldDocs: { url: string; status: GoldStatus }[]
  turns_: TurnView[]
  error?: string
}

export interface RunInfo {
  name: string
  dir: string
  kind: 'bench' | 'train'
  /** Questions in trajectories.jsonl (0 when the run saved none). */
  trajectories: number
  /** Training steps in metrics.jsonl. */
  steps: number
  config: Record<string, unknown> | null
}

export interface CurvePoint {
  step: number
  value: number
}

export interface RunCurves {
  run: string
  series: Record<string, CurvePoint[]>
  /** Steps where the curriculum stage changed, with the new stage. */
  stageSwitches: { step: number; stage: string }[]
}

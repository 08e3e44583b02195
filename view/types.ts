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
  /** Every fact this stretch states, when more than one (a list sentence naming several neighbours). */
  facts?: number[]
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
  /** The path as a tree rooted at the answer (view/path-tree). */
  tree: PathTreeView
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
  /** The text's full length when the server cut it (ask for the turn alone with full=1 to get all of it). */
  cut?: number
  /** The turn could not be read (a malformed record): why. */
  bad?: string
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
  /** The turns in turns_ are turnOffset … turnOffset + turns_.length - 1 of `turns`. */
  turnOffset: number
  /** A closed-book run: it searches and opens nothing, so its gold documents are listed without a status. */
  closedBook?: boolean
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
  /** Runs of one experiment share this (the folder name without a trailing -seedN / -N, or the folder holding an
   *  experiment's report.json). */
  experiment: string
  /** Questions indexed so far from trajectories.jsonl (0 when the run saved none). */
  trajectories: number
  /** Training steps in metrics.jsonl (indexed so far). */
  steps: number
  config: Record<string, unknown> | null
  /** A closed-book bench run: it opens no documents, so gold documents are not "missed". */
  closedBook: boolean
  /** The protocol the run's policy wrote (its config.json's protocol, or train.protocol): its turns are parsed with it. */
  protocol: string | null
  /** How far the background indexing of trajectories.jsonl got (bytes of total), and whether every file is done. */
  indexing: { bytes: number; total: number; complete: boolean }
  /** Malformed lines skipped (every JSONL file of the run). */
  flagged: number
}

export interface FlaggedRow {
  file?: string
  line: number
  offset: number
  reason: string
  preview: string
}

/** A page of a run's trajectories, over what is indexed so far. */
export interface TrajectoryPage extends ListPage<TrajectorySummary> {
  complete: boolean
  indexed: { bytes: number; total: number; complete: boolean }
  /** The first malformed lines of trajectories.jsonl (skipped), and how many there are. */
  flagged: FlaggedRow[]
  flaggedTotal: number
}

/** One curve: x (step or seconds) with the bucket mean y and the bucket's min (lo) and max (hi); n raw points. */
export interface CurveSeries {
  x: number[]
  y: number[]
  lo: number[]
  hi: number[]
  n: number
}

export interface RunCurves {
  run: string
  x: 'step' | 'time'
  /** Every numeric key the run has (the series hold the asked ones). */
  keys: string[]
  series: Record<string, CurveSeries>
  /** Steps where the curriculum stage changed, with the new stage and its x. */
  stageSwitches: { step: number; stage: string; x: number }[]
  /** Every line of metrics.jsonl and timing.jsonl is in (false: a partial answer while indexing). */
  complete: boolean
}

/** One question of a paired comparison: both runs' scores and who won on F1. */
export interface PairedQuestion {
  id: string
  type: string
  hops: number
  question: string
  a: { f1: number; em: number; prediction: string | null; status: string }
  b: { f1: number; em: number; prediction: string | null; status: string }
  /** B against A on F1. */
  result: 'win' | 'loss' | 'tie'
}

export interface PairedComparison {
  a: string
  b: string
  /** bench compare's table rows (B − A over the paired questions): group, metric, n, means, diff with CI, W/L/T, p. */
  table: { group: string; metric: string; n: number; aMean: number; bMean: number; diff: number; lo: number; hi: number; wins: number; losses: number; ties: number; pPermutation: number; pSign: number }[]
  paired: number
  unpaired: number
  counts: { win: number; loss: number; tie: number }
  questions: ListPage<PairedQuestion>
}

/** A bootstrap estimate (mean and 95 % interval over n). */
export interface EstimateView {
  n: number
  mean: number
  lo: number
  hi: number
}

/** One evaluation set × Access setting of an experiment's report (bench/experiment/report's SetResult, as written). */
export interface ExperimentSetView {
  set: string
  access: boolean
  questions: number
  start: { f1: EstimateView; em: number }
  arms: { arm: string; seedF1: Record<string, number>; f1: EstimateView; em: number; gain: EstimateView; groups: { group: string; n: number; start: number; mean: number; gain: EstimateView }[] }[]
  between: { a: string; b: string; diff: EstimateView }[]
}

export interface ExperimentSummary {
  /** The viewer's name for it (the folder name, made unique). */
  name: string
  dir: string
  arms: { name: string; curriculum: string; reward: string; access: boolean }[]
  seeds: number[]
  steps: number
  runsDone: number
  runsTotal: number
}

/** An experiment folder: its report's figures as the report has them, and the viewer's names of its runs and benches. */
export interface ExperimentView extends ExperimentSummary {
  /** 'report.json': read from the folder; 'computed': no report.json yet, built by the report's own code. */
  source: 'report.json' | 'computed'
  sets: ExperimentSetView[]
  /** Every arm × seed: its training run and its bench runs (null / absent: not there yet). */
  runs: { arm: string; seed: number; run: string | null; benches: { set: string; access: boolean; run: string }[] }[]
  /** The start's bench runs. */
  start: { set: string; access: boolean; run: string }[]
}

/** One metric of one arm across its seeds, per step (then bucketed like CurveSeries): mean, sd, min, max, and how many
 *  seeds had the step. */
export interface SeedBand {
  x: number[]
  mean: number[]
  sd: number[]
  min: number[]
  max: number[]
  seeds: number[]
  /** Steps before bucketing. */
  n: number
}

export interface ExperimentCurves {
  experiment: string
  /** Every numeric metrics.jsonl key of any run of the experiment. */
  keys: string[]
  arms: { arm: string; runs: string[]; series: Record<string, SeedBand> }[]
}

/** A question's path laid out as a tree: the answer root (key '__answer__', depth 0) on the right, each chain a
 *  branch; depth is the column, row the line. Edges are the path's world edges (child → parent along the reasoning;
 *  source/target as stored); joins link chains where the question compares or matches values, not along an edge. */
export interface PathTreeView {
  answer: string
  nodes: { key: string; label: string; entityType: string; color: string; depth: number; row: number; role: 'answer' | 'end' | 'start' | 'inner' }[]
  edges: { key: string; child: string; parent: string; order: number; cross?: boolean; relation: string; source: string; target: string }[]
  joins: { child: string; parent: string; label: string }[]
}

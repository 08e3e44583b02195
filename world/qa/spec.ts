// world/qa/spec: the structured description of a QA (stored in Qa.meta) from which its answer can be recomputed.
// Chains always read forward, from the start entity to the end, whichever way they were sampled.
import type { EdgeId, EntityId } from '../types'

/** Direction of a step along a relation: 'fwd' source→target, 'inv' target→source. */
export type Dir = 'fwd' | 'inv'

export interface StepSpec {
  rel: string
  dir: Dir
}

/** How the start entity is named in the question so that exactly one entity fits. */
export type StartDesc =
  | { kind: 'name' }
  | { kind: 'typed' }
  | { kind: 'attr'; attr: string }
  | BlurDesc

/**
 * One fact of a blurred description (qa.blur): the entity's type, an exact attribute value, a year range for a year or
 * date attribute (a partial value: only the year is given), or a neighbour reached along a relation.
 */
export type Cue =
  | { kind: 'type'; type: string }
  | { kind: 'value'; attr: string; value: string }
  | { kind: 'years'; attr: string; lo: number; hi: number }
  | { kind: 'neighbour'; rel: string; dir: Dir; other: EntityId }

/** A start entity described, not named: the cues only it satisfies in the whole graph, their words, and the search
 *  queries built from the cues (hits first) whose results held its page (the resolvability check, world/qa/blur-verify). */
export interface BlurDesc {
  kind: 'blur'
  cues: Cue[]
  text: string
  queries: string[]
  /** Queries (of `queries`) whose top-K held the entity's page (two-step: its page or the `via` neighbour's). */
  hits: number
  /** two-step (config.qa.blur.style): the neighbour whose page names the entity among its few candidates. */
  via?: EntityId
}

export interface ChainSpec {
  start: EntityId
  desc: StartDesc
  steps: StepSpec[]
  edges: EdgeId[]
}

/** What the question asks about the entity a chain ends at. */
export type Terminal = { kind: 'entity' } | { kind: 'attr'; attr: string }

export type ParallelOp = 'compare' | 'sum' | 'difference' | 'same'

export interface SimpleMeta {
  chain: ChainSpec
  terminal: Terminal
  template: string
}

export interface ParallelMeta {
  op: ParallelOp
  /** Attribute compared/added/subtracted (absent for 'same'). */
  attr?: string
  /** compare: which end wins; difference: always a - b >= 0 with a the larger. */
  order?: 'max' | 'min'
  a: ChainSpec
  b: ChainSpec
  template: string
}

/** Continuation of a Combo question from the entity part 1 resolved to. */
export interface ContinuationSpec {
  steps: StepSpec[]
  edges: EdgeId[]
  terminal: Terminal
}

export type ComboMeta =
  | {
      kind: 'compare-chain'
      /** Part 1: a comparison whose winner is the subject of part 2. */
      part1: { attr: string; order: 'max' | 'min'; a: ChainSpec; b: ChainSpec }
      part2: ContinuationSpec
      template: string
    }
  | {
      kind: 'param'
      /** Part 1: a chain whose end value is the parameter of part 2. */
      part1: { chain: ChainSpec; attr: string }
      /** The one entity of `type` whose `attr` equals that value. */
      pick: { type: string; attr: string }
      part2: ContinuationSpec
      template: string
    }

export type QaMeta = SimpleMeta | ParallelMeta | ComboMeta

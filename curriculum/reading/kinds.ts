// curriculum/reading/kinds: the reading curriculum's drill kinds — each a token sequence cut from one solved oracle
// episode, with the loss on ONE assistant turn (or, for `demo`, on every assistant turn): contexts that grow from the
// evidence sentence to the page and the episode, then the agentic turns. Knows episodes, the codec and the drills;
// not how kinds are mixed, sampled or scored.
import { sequenceOfTrajectory, type TrajectoryRecord } from '../../agent'
import type { ChatCodec } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import { factObservation, sentencesObservation } from '../drills'
import { onlyLastTurn } from '../sft-run'

/**
 * fact: question + the access turn + the page cut to its title and the evidence sentence → the answer turn.
 * ctx1 … ctx16: the same with the evidence among k other prose sentences of the page (page order).
 * lines: the same with every prose sentence of the page (no headings, no infobox).
 * page: question + the last access turn + the whole page → the answer turn (no search before it).
 * episode: the oracle's whole episode → its answer turn.
 * search: the question → the first turn (`<search> NAME </search>`: copy the question's entity).
 * access: the question, the first search and its results → the second turn (copy a result's title).
 * hop: a two-hop episode up to the first page read → the next search (copy the bridge entity off the page).
 * demo: the whole episode, the loss on every assistant turn.
 * episode2, demo2: episode and demo of two-hop episodes only (a phase on the second hop without the one-hop majority).
 */
export const DRILL_KINDS = ['fact', 'ctx1', 'ctx2', 'ctx4', 'ctx8', 'ctx16', 'lines', 'page', 'episode', 'search', 'access', 'hop', 'demo', 'episode2', 'demo2'] as const
export type DrillKind = (typeof DRILL_KINDS)[number]

/** Kinds whose target turn is the answer (scored by F1/EM against the gold); the others' target is a tool call. */
export const ANSWER_KINDS: readonly DrillKind[] = ['fact', 'ctx1', 'ctx2', 'ctx4', 'ctx8', 'ctx16', 'lines', 'page', 'episode', 'episode2']

const CTX_K: Partial<Record<DrillKind, number>> = { ctx1: 1, ctx2: 2, ctx4: 4, ctx8: 8, ctx16: 16, lines: Infinity }

/** What a drill needs of a solved episode: its opening messages, its turns, the evidence sentences of its last hop. */
export interface DrillSource {
  /** The question's pooled id (seeds the sentence draw of ctx kinds). */
  id: string
  hops: number
  initial: TrajectoryRecord['initial']
  turns: Pick<TrajectoryRecord['turns'][number], 'text' | 'observation'>[]
  lastEvidence: readonly string[]
}

/** A drill sequence: ids and the mask of trained positions (1 on the target turn's tokens and its end-of-turn id). */
export interface DrillSequence {
  ids: Int32Array
  mask: Uint8Array
}

const pack = (s: { ids: number[]; sampled: number[] }): DrillSequence => ({ ids: Int32Array.from(s.ids), mask: Uint8Array.from(s.sampled) })

/** The drill of `kind` from a solved episode, or undefined when the episode has no such drill (too few turns, the page
 *  holds no evidence sentence, a one-hop episode for `hop`). The result depends only on its inputs (the ctx draw is
 *  seeded by the question's id and the kind). */
export function drillSequence(codec: ChatCodec, src: DrillSource, kind: DrillKind, leadSpace: boolean): DrillSequence | undefined {
  const t = src.turns
  const n = t.length
  const one = (turns: DrillSource['turns']) => pack(onlyLastTurn(sequenceOfTrajectory(codec, { initial: src.initial, turns: turns as TrajectoryRecord['turns'] })))
  if (n < 3) return undefined
  if ((kind === 'episode2' || kind === 'demo2') && !(src.hops >= 2 && n >= 5)) return undefined
  switch (kind) {
    case 'demo':
    case 'demo2':
      return pack(sequenceOfTrajectory(codec, { initial: src.initial, turns: t as TrajectoryRecord['turns'] }))
    case 'episode':
    case 'episode2':
      return one(t)
    case 'page':
      return one(t.slice(n - 2))
    case 'search':
      return one(t.slice(0, 1))
    case 'access':
      return one(t.slice(0, 2))
    case 'hop':
      // The turn after the first page read: a two-hop episode is search, access, search, access, answer.
      return src.hops >= 2 && n >= 5 ? one(t.slice(0, 3)) : undefined
    case 'fact': {
      const cut = factObservation(t[n - 2].observation, src.lastEvidence, leadSpace)
      return cut ? one([{ ...t[n - 2], observation: cut }, t[n - 1]]) : undefined
    }
    default: {
      const k = CTX_K[kind]!
      const cut = sentencesObservation(t[n - 2].observation, src.lastEvidence, k, Rng.derive(0, 'drill', src.id, kind), leadSpace)
      return cut ? one([{ ...t[n - 2], observation: cut }, t[n - 1]]) : undefined
    }
  }
}

/** Whether `drillSequence` gives a drill of `kind` for this source, without rendering or encoding it. */
export function hasDrill(src: DrillSource, kind: DrillKind): boolean {
  const t = src.turns
  const n = t.length
  if (n < 3) return false
  if (kind === 'hop' || kind === 'episode2' || kind === 'demo2') return src.hops >= 2 && n >= 5
  if (kind === 'fact') return factObservation(t[n - 2].observation, src.lastEvidence) !== undefined
  if (CTX_K[kind] !== undefined) return sentencesObservation(t[n - 2].observation, src.lastEvidence, 0, new Rng(0)) !== undefined
  return true
}

/** Where the trained turn starts (the first masked position); for `demo`, the first assistant turn. */
export function targetStart(seq: DrillSequence): number {
  const i = seq.mask.indexOf(1)
  return i < 0 ? seq.ids.length : i
}

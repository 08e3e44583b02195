// bench/floor-record: the floor of a run's questions as its folder keeps it (floor.json) — gym/floor's best constant
// answer per relation in its held-out form (each question answered with the constant that scores best on the other
// questions of its relation: a relation asked once counts 0, not 1), the in-sample form beside it, and each question's
// own held-out score, so the floor of any subset of the
// questions (an experiment's table keeps the questions every run scored) is the mean over that subset. Reports show it
// beside F1 and EM: a score near it is what answering the typical value of each relation gets without reading.
import type { Qa } from '../world'
import { constantAnswerFloor } from '../gym'

export interface FloorRecord {
  /** What this is, for a reader of the file. */
  what: string
  n: number
  /** Held out (what the reports show). */
  f1: number
  em: number
  /** In-sample: the constant chosen on all the questions of its relation, the scored one included (optimistic). */
  inSampleF1: number
  inSampleEm: number
  /** Relation groups (one constant answer each). */
  groups: number
  /** The largest groups: relation, questions, the constant, its F1 and EM on them. */
  top: { relation: string; n: number; answer: string; f1: number; em: number }[]
  /** Each question's held-out F1 and EM (the best constant of the other questions of its relation). */
  perQuestion: Record<string, { f1: number; em: number }>
}

export const FLOOR_WHAT = "the F1 and EM of the best constant answer per relation on these questions, held out (gym/floor: each question answered with the answer string that scores best on the other questions asking the same relation, chosen among their gold answers; a tie is the tied answers' mean; a relation asked once scores 0) — what a policy that never reads scores; inSample* is the constant chosen on all of them, the scored one included"

export function measureFloor(qas: readonly Qa[]): FloorRecord {
  const f = constantAnswerFloor(qas)
  const perQuestion: FloorRecord['perQuestion'] = {}
  qas.forEach((qa, i) => (perQuestion[qa.id] = f.heldPerQuestion[i]))
  return { what: FLOOR_WHAT, n: f.n, f1: f.heldF1, em: f.heldEm, inSampleF1: f.f1, inSampleEm: f.em, groups: f.groups.length, top: f.groups.slice(0, 5).map(({ relation, n, answer, f1, em }) => ({ relation, n, answer, f1, em })), perQuestion }
}

/** The floor over `ids` (the questions a table keeps); null when the record holds none of them. */
export function floorOver(rec: FloorRecord, ids: readonly string[]): { n: number; f1: number; em: number } | null {
  const xs = ids.map((id) => rec.perQuestion[id]).filter((x): x is { f1: number; em: number } => x !== undefined)
  if (xs.length === 0) return null
  return { n: xs.length, f1: xs.reduce((a, x) => a + x.f1, 0) / xs.length, em: xs.reduce((a, x) => a + x.em, 0) / xs.length }
}

// bench/floor-record: the floor of a run's questions as its folder keeps it (floor.json) — gym/floor's best constant
// answer per relation, with each question's own score under its group's constant, so the floor of any subset of the
// questions (an experiment's table keeps the questions every run scored) is the mean over that subset. Reports show it
// beside F1 and EM: a score near it is what answering the typical value of each relation gets without reading.
import type { Qa } from '../world'
import { constantAnswerFloor, relationKey, scoreAnswer } from '../gym'

export interface FloorRecord {
  /** What this is, for a reader of the file. */
  what: string
  n: number
  f1: number
  em: number
  /** Relation groups (one constant answer each). */
  groups: number
  /** The largest groups: relation, questions, the constant, its F1 and EM on them. */
  top: { relation: string; n: number; answer: string; f1: number; em: number }[]
  /** Each question's F1 and EM under its group's constant answer. */
  perQuestion: Record<string, { f1: number; em: number }>
}

export const FLOOR_WHAT = "the F1 and EM of the best constant answer per relation on these questions (gym/floor: one answer string per group of questions asking the same relation, chosen among the group's gold answers) — what a policy that never reads scores"

export function measureFloor(qas: readonly Qa[]): FloorRecord {
  const f = constantAnswerFloor(qas)
  const byRelation = new Map(f.groups.map((g) => [g.relation, g.answer]))
  const perQuestion: FloorRecord['perQuestion'] = {}
  for (const qa of qas) {
    const s = scoreAnswer(byRelation.get(relationKey(qa)) ?? '', [qa.answer, ...qa.aliases])
    perQuestion[qa.id] = { f1: s.f1, em: s.em }
  }
  return { what: FLOOR_WHAT, n: f.n, f1: f.f1, em: f.em, groups: f.groups.length, top: f.groups.slice(0, 5), perQuestion }
}

/** The floor over `ids` (the questions a table keeps); null when the record holds none of them. */
export function floorOver(rec: FloorRecord, ids: readonly string[]): { n: number; f1: number; em: number } | null {
  const xs = ids.map((id) => rec.perQuestion[id]).filter((x): x is { f1: number; em: number } => x !== undefined)
  if (xs.length === 0) return null
  return { n: xs.length, f1: xs.reduce((a, x) => a + x.f1, 0) / xs.length, em: xs.reduce((a, x) => a + x.em, 0) / xs.length }
}

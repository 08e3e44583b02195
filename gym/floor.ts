// gym/floor: the floor a score must clear — the F1 (and EM) of the best constant answer per relation: for each group of
// questions that ask the same relation (a Simple chain's relations, directions and terminal; a Parallel question's
// operator and attribute; a Combo's kind and parts), the one answer string, chosen among the group's own gold answers,
// that scores best on the whole group. Chosen on the scored questions themselves, so it is an optimistic floor: a
// model that has learnt only "which answer is typical for this relation" reaches it without reading anything.
// Knows nothing of models or episodes: questions in, numbers out.
import type { Qa } from '../world'
import { scoreAnswer } from './answer-metrics'

/** The relation a question asks, as a grouping key (see the header). */
export function relationKey(qa: Pick<Qa, 'type' | 'meta' | 'hops'>): string {
  const m = qa.meta as Record<string, any>
  const steps = (c: any) => (Array.isArray(c?.steps) ? c.steps.map((s: any) => `${s.rel}${s.dir === 'inv' ? '^-1' : ''}`).join('>') : '')
  const terminal = (t: any) => (t ? `${t.kind ?? ''}${t.attr ? ':' + t.attr : ''}` : '')
  if (qa.type === 'simple' && m?.chain) return `simple ${steps(m.chain)} → ${terminal(m.terminal)}`
  if (qa.type === 'parallel' && m?.op) return `parallel ${m.op}${m.attr ? ':' + m.attr : ''}${m.order ? ':' + m.order : ''} (${steps(m.a)} | ${steps(m.b)})`
  if (qa.type === 'combo' && m?.kind) return `combo ${m.kind} ${steps(m.part1?.chain)}${m.part1?.attr ? ':' + m.part1.attr : ''} → ${m.pick?.type ?? ''}:${m.pick?.attr ?? ''} ${steps(m.part2)} → ${terminal(m.part2?.terminal)}`
  return `${qa.type} ${qa.hops} hops`
}

export interface FloorGroup {
  relation: string
  n: number
  /** The constant answer that scores best on the group (by F1, then EM, then the string's order). */
  answer: string
  f1: number
  em: number
}

export interface Floor {
  n: number
  /** Mean over the questions of the best constant answer's F1 / EM in each question's group. */
  f1: number
  em: number
  /** Per relation, largest groups first. */
  groups: FloorGroup[]
}

const goldsOf = (qa: Pick<Qa, 'answer' | 'aliases'>) => [qa.answer, ...qa.aliases.filter((a) => a !== qa.answer)]

/** The floor of a list of questions (see the header). O(Σ group size²) scorings. */
export function constantAnswerFloor(qas: readonly Pick<Qa, 'type' | 'meta' | 'hops' | 'answer' | 'aliases'>[]): Floor {
  const groups = new Map<string, typeof qas[number][]>()
  for (const qa of qas) {
    const k = relationKey(qa)
    if (!groups.has(k)) groups.set(k, [])
    groups.get(k)!.push(qa)
  }
  const out: FloorGroup[] = []
  let f1 = 0, em = 0
  for (const [relation, g] of groups) {
    const candidates = [...new Set(g.flatMap(goldsOf))].sort()
    let best = { answer: '', f1: -1, em: -1 }
    for (const c of candidates) {
      let sf = 0, se = 0
      for (const qa of g) {
        const s = scoreAnswer(c, goldsOf(qa))
        sf += s.f1
        se += s.em
      }
      if (sf > best.f1 || (sf === best.f1 && se > best.em)) best = { answer: c, f1: sf, em: se }
    }
    f1 += best.f1
    em += best.em
    out.push({ relation, n: g.length, answer: best.answer, f1: best.f1 / g.length, em: best.em / g.length })
  }
  out.sort((a, b) => b.n - a.n || (a.relation < b.relation ? -1 : 1))
  return { n: qas.length, f1: qas.length ? f1 / qas.length : 0, em: qas.length ? em / qas.length : 0, groups: out }
}

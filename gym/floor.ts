// gym/floor: the floor a score must clear — the F1 (and EM) of the best constant answer per relation: for each group of
// questions that ask the same relation (a Simple chain's relations, directions and terminal; a Parallel question's
// operator and attribute; a Combo's kind and parts), the one answer string, chosen among the group's own gold answers,
// that scores best on the whole group. Chosen on the scored questions themselves, so it is an optimistic floor (a
// relation asked once is answered right by it). Beside it the held-out form: each question answered with the constant
// that scores best on the OTHER questions of its relation (none: 0; a tie: the tied answers' mean) — what a model that has learnt only "which answer
// is typical for this relation" reaches without reading anything.
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
  /** Leave-one-out: each question scored with the best constant of the others of its group. */
  heldF1: number
  heldEm: number
}

export interface Floor {
  n: number
  /** Mean over the questions of the best constant answer's F1 / EM in each question's group. */
  f1: number
  em: number
  /** The held-out (leave-one-out) form: each question answered with the best constant of the other questions of its
   *  relation (0 when it is the only one). */
  heldF1: number
  heldEm: number
  /** Each question's held-out F1 and EM, in the order of the questions given. */
  heldPerQuestion: { f1: number; em: number }[]
  /** Per relation, largest groups first. */
  groups: FloorGroup[]
}

const goldsOf = (qa: Pick<Qa, 'answer' | 'aliases'>) => [qa.answer, ...qa.aliases.filter((a) => a !== qa.answer)]

/** The floor of a list of questions (see the header). O(Σ group size²) scorings. */
export function constantAnswerFloor(qas: readonly Pick<Qa, 'type' | 'meta' | 'hops' | 'answer' | 'aliases'>[]): Floor {
  const groups = new Map<string, typeof qas[number][]>()
  const at = new Map<typeof qas[number], number>()
  qas.forEach((qa, i) => {
    const k = relationKey(qa)
    if (!groups.has(k)) groups.set(k, [])
    groups.get(k)!.push(qa)
    at.set(qa, i)
  })
  const heldPerQuestion = qas.map(() => ({ f1: 0, em: 0 }))
  const out: FloorGroup[] = []
  let f1 = 0, em = 0, heldF1 = 0, heldEm = 0
  for (const [relation, g] of groups) {
    const candidates = [...new Set(g.flatMap(goldsOf))].sort()
    // score[c][q]: candidate c against question q.
    const score = candidates.map((c) => g.map((qa) => scoreAnswer(c, goldsOf(qa))))
    const sum = score.map((row) => row.reduce((a, s) => ({ f1: a.f1 + s.f1, em: a.em + s.em }), { f1: 0, em: 0 }))
    const better = (a: { f1: number; em: number }, b: { f1: number; em: number }) => a.f1 > b.f1 || (a.f1 === b.f1 && a.em > b.em)
    let best = 0
    for (let c = 1; c < candidates.length; c++) if (better(sum[c], sum[best])) best = c
    f1 += sum[best].f1
    em += sum[best].em
    let gHeldF1 = 0, gHeldEm = 0
    for (let q = 0; q < g.length; q++) {
      if (g.length === 1) continue
      // The best F1 on the others; a tie is a coin toss among the tied answers (their mean), not a pick that could
      // lean on the question itself.
      const rest = (c: number) => sum[c].f1 - score[c][q].f1
      let top = -Infinity
      for (let c = 0; c < candidates.length; c++) top = Math.max(top, rest(c))
      const tied = candidates.map((_, c) => c).filter((c) => rest(c) >= top - 1e-12)
      const h = { f1: tied.reduce((a, c) => a + score[c][q].f1, 0) / tied.length, em: tied.reduce((a, c) => a + score[c][q].em, 0) / tied.length }
      heldPerQuestion[at.get(g[q])!] = h
      gHeldF1 += h.f1
      gHeldEm += h.em
    }
    heldF1 += gHeldF1
    heldEm += gHeldEm
    out.push({ relation, n: g.length, answer: candidates[best], f1: sum[best].f1 / g.length, em: sum[best].em / g.length, heldF1: gHeldF1 / g.length, heldEm: gHeldEm / g.length })
  }
  out.sort((a, b) => b.n - a.n || (a.relation < b.relation ? -1 : 1))
  const n = Math.max(1, qas.length)
  return { n: qas.length, f1: f1 / n, em: em / n, heldF1: heldF1 / n, heldEm: heldEm / n, heldPerQuestion, groups: out }
}

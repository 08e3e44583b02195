// world/write/check-question: the checker of a model's rewording of one question. The rewording must name exactly the
// world entities the original names (the start entities; no others — another name could leak a hop), keep the answer
// out unless the original already states it (a comparison lists its candidates), change no number, and be one
// question. Pure; the path, answer and uniqueness are the graph's and are not touched.
import { NameIndex, numbersIn, type Problem } from './check-article'

export interface QuestionCheckInput {
  original: string
  rewritten: string
  answer: string
  aliases: string[]
  worldNames: NameIndex
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim()

function containsPhrase(text: string, phrase: string): boolean {
  const t = norm(text)
  const p = norm(phrase)
  if (p.length === 0) return false
  let i = t.indexOf(p)
  while (i >= 0) {
    if (!/[\p{L}\p{N}]/u.test(t[i - 1] ?? ' ') && !/[\p{L}\p{N}]/u.test(t[i + p.length] ?? ' ')) return true
    i = t.indexOf(p, i + 1)
  }
  return false
}

/** Normalise a reply: one line, no quotes around it. */
export function cleanQuestion(reply: string): string {
  return reply.replace(/\s+/g, ' ').trim().replace(/^["“'](.*)["”']$/, '$1').trim()
}

export function checkQuestion(q: QuestionCheckInput): Problem[] {
  const problems: Problem[] = []
  const r = q.rewritten
  if (r.length === 0) return [{ kind: 'format', detail: 'empty reply' }]
  // One question or one request ("Give the year of …."): it ends with ? or . and nothing follows a ? or !.
  if (!/[?.]$/.test(r) || /[?!]\s*\S/.test(r)) problems.push({ kind: 'format', detail: 'not exactly one question' })
  if (r.length > 3 * q.original.length + 100) problems.push({ kind: 'format', detail: `${r.length} characters for a ${q.original.length}-character question` })
  if (/https?:\/\/|```|<\/?[a-z]/i.test(r)) problems.push({ kind: 'format', detail: 'links or markup' })
  const want = new Set(q.worldNames.find(q.original))
  const got = new Set(q.worldNames.find(r))
  for (const n of want) if (!got.has(n)) problems.push({ kind: 'missing_fact', detail: `no longer names ${n}` })
  for (const n of got) if (!want.has(n)) problems.push({ kind: 'invented_entity', detail: `names ${n}, which the question does not` })
  const before = new Set(numbersIn(q.original))
  for (const n of numbersIn(r)) if (!before.has(n)) problems.push({ kind: 'invented_number', detail: `states ${n}` })
  for (const n of before) if (!numbersIn(r).includes(n)) problems.push({ kind: 'missing_fact', detail: `drops the number ${n}` })
  for (const a of new Set([q.answer, ...q.aliases]))
    if (containsPhrase(r, a) && !containsPhrase(q.original, a)) problems.push({ kind: 'answer_leak', detail: `states the answer ${a}` })
  return problems
}

// world/write/article: a model reply → the rewritten document (title, the model's lead, the template's infobox, the
// model's sections) with every fact re-recorded at the sentence that states it now — or the checker's problems.
// Pure; the caller keeps the template document when problems come back.
import type { Doc, DocFact } from '../types'
import { checkArticle, type NameIndex, type Problem } from './check-article'
import type { DocTask } from './doc-prompt'

export interface ArticleResult {
  doc?: Doc
  problems: Problem[]
}

/** Articles longer than this many times the template (plus a margin) are refused as run-on output. */
const MAX_GROWTH = 6

/** Normalise a reply: line endings, surrounding blank lines, a leading "# title" line the model may add anyway. */
export function cleanReply(reply: string): string {
  let t = reply.replace(/\r\n?/g, '\n').trim()
  if (/^# [^\n]*(\n|$)/.test(t)) t = t.replace(/^# [^\n]*\n?/, '').trim()
  return t.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n')
}

export function rewriteArticle(task: DocTask, reply: string, worldNames: NameIndex): ArticleResult {
  const prose = cleanReply(reply)
  const t = task.template
  const { problems, sentences } = checkArticle(prose, {
    facts: task.facts,
    allowedNames: task.allowedNames,
    worldNames,
    allowedNumbers: task.allowedNumbers,
    maxChars: MAX_GROWTH * t.text.length + 2000,
  })
  if (problems.length > 0) return { problems }
  const parts = t.text.split('\n\n')
  const infobox = parts.find((p) => p.startsWith('Infobox')) ?? ''
  const infoLines = new Set(infobox.split('\n').slice(1).map((l) => l.replace(/^- /, '')))
  const cut = prose.search(/^## /m)
  const lead = (cut < 0 ? prose : prose.slice(0, cut)).trim()
  const body = cut < 0 ? '' : prose.slice(cut).trim()
  const text = [`# ${t.title}`, lead, infobox, body].filter((p) => p.length > 0).join('\n\n') + '\n'
  const facts: DocFact[] = task.facts.map((f) => ({ kind: f.kind, ref: f.ref, sentence: sentences.get(f.ref)! }))
  for (const f of t.facts) if (f.kind === 'attr' && infoLines.has(f.sentence)) facts.push(f)
  for (const f of facts) if (!text.includes(f.sentence)) return { problems: [{ kind: 'format', detail: `fact sentence lost in assembly: ${f.sentence.slice(0, 60)}` }] }
  return { doc: { url: t.url, entityId: t.entityId, title: t.title, text, facts }, problems: [] }
}

// world/write/check-article: the checker every model-written article must pass before it replaces a template article.
// Every recorded fact still stated in one sentence (both endpoint names, or the value), no other world entity named
// unless it is a neighbour, no number that is not a value of the entity or a neighbour, no links, code or extra
// titles. Returns the sentence that states each fact (re-recorded as the fact's evidence). Pure; knows no HTTP.

/** One fact the article must state. */
export interface RequiredFact {
  kind: 'edge' | 'attr'
  /** Edge id, or `${entityId}#${attr}`. */
  ref: string
  /** Edge: both endpoint names. Attr: empty. */
  names: string[]
  /** Attr: the value as documents write it, without unit ("1,234,567", "12 March 1954", "novel"). */
  value?: string
  /** Attr: compared as a number (digit boundaries) rather than as words (case-insensitive). */
  numeric?: boolean
}

export interface CheckContext {
  facts: RequiredFact[]
  /** Names the article may use: the entity's own and its neighbours'. */
  allowedNames: string[]
  /** Every entity name of the world. */
  worldNames: NameIndex
  /** Numbers the article may state, digits only ("1234567", "16342.3", "1954", "12"). */
  allowedNumbers: Set<string>
  /** Longest acceptable article in characters. */
  maxChars: number
}

export type ProblemKind = 'missing_fact' | 'invented_entity' | 'invented_number' | 'answer_leak' | 'format'
export interface Problem {
  kind: ProblemKind
  detail: string
}

export interface CheckResult {
  problems: Problem[]
  /** ref → the sentence of the article that states it (only for stated facts). */
  sentences: Map<string, string>
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c)

/** Entity names by first word, for finding every mention of any world entity in a text. */
export class NameIndex {
  private readonly byFirst = new Map<string, string[]>()
  constructor(names: Iterable<string>) {
    for (const n of new Set(names)) {
      const first = n.split(/\s+/)[0]
      if (!first) continue
      const l = this.byFirst.get(first) ?? []
      l.push(n)
      this.byFirst.set(first, l)
    }
    for (const l of this.byFirst.values()) l.sort((a, b) => b.length - a.length)
  }
  /** Names mentioned in `text` as whole words (longest match at each position). */
  find(text: string): string[] {
    const found = new Set<string>()
    const re = /[\p{L}\p{N}][^\s]*/gu
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (isWordChar(text[m.index - 1])) continue
      const word = m[0].replace(/[.,;:!?)"'’”]+$/u, '')
      const cands = this.byFirst.get(word) ?? this.byFirst.get(m[0])
      if (!cands) continue
      for (const n of cands)
        if (text.startsWith(n, m.index) && !isWordChar(text[m.index + n.length])) {
          found.add(n)
          break
        }
    }
    return [...found]
  }
}

/** `text` with every occurrence of `names` (longest first, whole words) replaced by same-length blanks (\u0001). */
export function maskNames(text: string, names: string[]): string {
  let out = text
  for (const n of [...new Set(names)].filter((x) => x.length > 0).sort((a, b) => b.length - a.length)) {
    let i = out.indexOf(n)
    while (i >= 0) {
      if (!isWordChar(out[i - 1]) && !isWordChar(out[i + n.length])) out = out.slice(0, i) + '\u0001'.repeat(n.length) + out.slice(i + n.length)
      i = out.indexOf(n, i + 1)
    }
  }
  return out
}

/** Sentences of a prose text as [start, end) ranges: headings skipped, lines split at . ! ? followed by a space. */
export function sentenceRanges(masked: string): [number, number][] {
  const out: [number, number][] = []
  let lineStart = 0
  for (const line of masked.split('\n')) {
    const base = lineStart
    lineStart += line.length + 1
    if (line.trim() === '' || line.startsWith('#')) continue
    const re = /[.!?]["”’)]?(?=\s+|$)/g
    let s = 0
    for (let m = re.exec(line); m; m = re.exec(line)) {
      const e = m.index + m[0].length
      pushTrimmed(out, line, base, s, e)
      s = e
    }
    pushTrimmed(out, line, base, s, line.length)
  }
  return out
}

function pushTrimmed(out: [number, number][], line: string, base: number, s: number, e: number): void {
  while (s < e && /\s/.test(line[s])) s++
  while (e > s && /\s/.test(line[e - 1])) e--
  if (line.startsWith('- ', s)) s += 2 // a list item's sentence starts after its bullet
  if (e > s) out.push([base + s, base + e])
}

/** Numbers written in a text, separators removed ("1,234" → "1234"). */
export function numbersIn(text: string): string[] {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => m[0].replace(/,(?=\d)/g, '').replace(/,+$/, ''))
}

/** Does `sentence` (whose neighbour names are masked in `masked`) mention `name` as whole words? */
function mentions(sentence: string, name: string, allowed: string[]): boolean {
  // A longer allowed name containing this one ("University of Leeds" ⊃ "Leeds") does not count as a mention of it.
  const longer = allowed.filter((n) => n.length > name.length && n.includes(name))
  const s = longer.length > 0 ? maskNames(sentence, longer) : sentence
  let i = s.indexOf(name)
  while (i >= 0) {
    if (!isWordChar(s[i - 1]) && !isWordChar(s[i + name.length])) return true
    i = s.indexOf(name, i + 1)
  }
  return false
}

function statesValue(masked: string, f: RequiredFact): boolean {
  const v = f.value!
  if (f.numeric) return numbersIn(masked).includes(v.replace(/,(?=\d)/g, '')) || containsWords(masked, v, false)
  return containsWords(masked, v, true)
}

function containsWords(text: string, phrase: string, fold: boolean): boolean {
  const t = fold ? text.toLowerCase() : text
  const p = fold ? phrase.toLowerCase() : phrase
  let i = t.indexOf(p)
  while (i >= 0) {
    if (!isWordChar(t[i - 1]) && !isWordChar(t[i + p.length])) return true
    i = t.indexOf(p, i + 1)
  }
  return false
}

/** Check one article's prose (lead and sections, without title or infobox). */
export function checkArticle(prose: string, ctx: CheckContext): CheckResult {
  const problems: Problem[] = []
  const sentences = new Map<string, string>()
  if (prose.trim().length === 0) return { problems: [{ kind: 'format', detail: 'empty reply' }], sentences }
  if (prose.length > ctx.maxChars) problems.push({ kind: 'format', detail: `${prose.length} characters, more than ${ctx.maxChars}` })
  if (/```|https?:\/\/|www\.|<\/?[a-z][^>]*>|\]\(/i.test(prose)) problems.push({ kind: 'format', detail: 'links, markup or code in the article' })
  for (const line of prose.split('\n')) if (/^#/.test(line) && !/^## \S/.test(line)) problems.push({ kind: 'format', detail: `heading other than '## ': ${line.slice(0, 60)}` })

  const masked = maskNames(prose, ctx.allowedNames)
  const ranges = sentenceRanges(masked)
  if (ranges.length === 0) problems.push({ kind: 'format', detail: 'no sentence' })

  for (const name of ctx.worldNames.find(masked)) problems.push({ kind: 'invented_entity', detail: `names ${name}, not a neighbour` })
  for (const n of new Set(numbersIn(masked))) if (!ctx.allowedNumbers.has(n)) problems.push({ kind: 'invented_number', detail: `states ${n}, not a value of the entity or a neighbour` })

  for (const f of ctx.facts) {
    let found: string | undefined
    for (const [s, e] of ranges) {
      const sentence = prose.slice(s, e)
      const ok = f.kind === 'edge' ? f.names.every((n) => mentions(sentence, n, ctx.allowedNames)) : statesValue(masked.slice(s, e), f)
      if (ok) {
        found = sentence
        break
      }
    }
    if (found === undefined) problems.push({ kind: 'missing_fact', detail: f.kind === 'edge' ? `${f.ref} (${f.names.join(' / ')})` : `${f.ref} = ${f.value}` })
    else sentences.set(f.ref, found)
  }
  return { problems, sentences }
}

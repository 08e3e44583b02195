// world/verify/verify-queries: the natural-language search queries that test one edge (u —relation→ v): question style,
// keyword style, with/without type nouns, partial names, reordered words, inverse phrasings. Pure; knows no engine.
import { Rng } from '../../infra/rng'
import { terms } from '../search/tokenize'
import type { RelationSpec } from '../types'

export interface EdgeQueryInput {
  relation: RelationSpec
  /** Name of the edge's source entity u. */
  sourceName: string
  /** Nouns of the source and target entity types ('person', 'city'). */
  sourceNoun: string
  targetNoun: string
}

/** Query styles, in the order their candidates are interleaved. */
export const QUERY_STYLES = ['question', 'keyword', 'phrase', 'inverse', 'reordered', 'typed', 'partial'] as const
export type QueryStyle = (typeof QUERY_STYLES)[number]

const ARTICLES = new Set(['the', 'a', 'an', 'of', 'and', 'de', 'la', 'le', 'von', 'van', 'der', 'du', 'di'])

/** Shorter forms of a name a searcher might type: its last and first significant word (none for one-word names). */
export function partialNames(name: string): string[] {
  const words = name.split(/\s+/).filter((w) => w.length >= 3 && !ARTICLES.has(w.toLowerCase()))
  if (words.length < 2) return []
  const out = [words[words.length - 1], words[0]]
  return out[0] === out[1] ? [out[0]] : out
}

const fill = (pattern: string, s: string) => pattern.split('{s}').join(s)
const stripEnd = (q: string) => q.replace(/[.?!]+$/, '').trim()

/** Every candidate query of one edge, grouped by style (deterministic order). */
export function candidateQueries(input: EdgeQueryInput): Record<QueryStyle, string[]> {
  const { relation: r, sourceName: s, sourceNoun, targetNoun } = input
  const parts = partialNames(s)
  const kws = r.keywords
  const out: Record<QueryStyle, string[]> = { question: [], keyword: [], phrase: [], inverse: [], reordered: [], typed: [], partial: [] }
  for (const q of r.questions) out.question.push(fill(q, s))
  for (const k of kws) out.keyword.push(`${s} ${k}`)
  for (const p of r.targetPhrases) {
    out.phrase.push(fill(p, s))
    out.phrase.push(`which ${targetNoun} is ${fill(p, s)}`)
  }
  // Inverse phrasing: a sentence stated from the target's side, the target replaced by a question word.
  for (const sentence of [...r.inverse, ...r.forward]) {
    const body = stripEnd(sentence)
    if (!body.includes('{t}') || !body.includes('{s}')) continue
    if (body.startsWith('{t}')) out.inverse.push(fill(body.replace('{t}', `which ${targetNoun}`), s))
    else out.inverse.push(fill(body.replace(/\s*\{t\}\s*/, ' ').trim(), s))
  }
  for (const k of kws) {
    out.reordered.push(`${k} ${s}`)
    out.reordered.push(`${k} of ${s}`)
  }
  for (const k of kws) {
    out.typed.push(`${s} ${sourceNoun} ${k}`)
    out.typed.push(`${targetNoun} ${k} ${s}`)
    out.typed.push(`${sourceNoun} ${s} ${targetNoun}`)
  }
  for (const p of parts) {
    for (const q of r.questions) out.partial.push(fill(q, p))
    for (const k of kws) out.partial.push(`${p} ${k}`)
    for (const k of kws) out.partial.push(`${p} ${sourceNoun} ${k}`)
  }
  return out
}

/** Distinctness is by the words an engine sees (case, punctuation and diacritics do not make a new query). */
export function queryKey(q: string): string {
  return terms(q).join(' ')
}

/**
 * `n` distinct queries for one edge: styles interleaved round-robin (each style's candidates shuffled by `rng`),
 * so every edge is tested by a mix of styles. Fewer than `n` only if the relation's forms are too few.
 */
export interface EdgeQuery {
  query: string
  style: QueryStyle
}

export function edgeQueries(input: EdgeQueryInput, n: number, rng: Rng): EdgeQuery[] {
  const groups = candidateQueries(input)
  const pools = QUERY_STYLES.map((style) => rng.shuffle(groups[style].slice()))
  const seen = new Set<string>()
  const out: EdgeQuery[] = []
  let progress = true
  while (out.length < n && progress) {
    progress = false
    for (let g = 0; g < pools.length; g++) {
      const pool = pools[g]
      while (pool.length > 0) {
        const q = pool.shift() as string
        const key = queryKey(q)
        if (key === '' || seen.has(key)) continue
        seen.add(key)
        out.push({ query: q, style: QUERY_STYLES[g] })
        progress = true
        break
      }
      if (out.length >= n) break
    }
  }
  return out
}

/** The seeded stream of one edge's queries: independent of every other edge and of the build order. */
export function edgeQueryRng(seed: number, edgeId: string): Rng {
  return Rng.derive(seed, 'verify-queries', edgeId)
}

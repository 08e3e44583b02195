// world/search/tokenize: the word splitter shared by the engines that need one (embedded BM25, FTS5 query quoting).
// Words are runs of letters/digits; folded to lower case without diacritics. Knows no query syntax, on purpose.

/** A word of a text with its position in the original string (for snippets). */
export interface Token {
  term: string
  start: number
  end: number
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu
const MARKS = /\p{M}/gu
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/

/** Fold one word: lower case, diacritics removed (é → e, ß stays ß), compatibility forms unified (ﬁ → fi). */
export function foldTerm(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase()
  return word.normalize('NFKD').replace(MARKS, '').toLowerCase()
}

/** Words of `text` with their offsets in `text`. */
export function tokenize(text: string): Token[] {
  const out: Token[] = []
  WORD.lastIndex = 0
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    out.push({ term: foldTerm(m[0]), start: m.index, end: m.index + m[0].length })
  }
  return out
}

/** Folded words of `text`, in order (duplicates kept). */
export function terms(text: string): string[] {
  const out: string[] = []
  WORD.lastIndex = 0
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) out.push(foldTerm(m[0]))
  return out
}

/** The words of `text` as written (not folded): what a query becomes once all syntax characters are dropped. */
export function rawWords(text: string): string[] {
  const out: string[] = []
  WORD.lastIndex = 0
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) out.push(m[0])
  return out
}

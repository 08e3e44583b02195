// gym/answer-metrics: token-level F1 and exact match exactly as the official HotpotQA evaluation script computes them
// (SQuAD normalisation + the yes/no/noanswer rule), maximised over gold aliases. Knows nothing of episodes or specs.

/** Python's string.punctuation: the 32 ASCII punctuation characters (and nothing else; Unicode punctuation stays). */
const ASCII_PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')

/** Characters Python's str.split() (no argument) splits on: str.isspace(). Differs from JS \s (\x1c-\x1f, \x85 in; \ufeff out). */
const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/

/** Python's re `\b(a|an|the)\b` on str: word characters are Unicode letters, digits/numerics and '_' (marks are not). */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu

function pySplit(s: string): string[] {
  return s.split(PY_SPACE).filter((t) => t.length > 0)
}

/** SQuAD/HotpotQA normalize_answer: lower → remove ASCII punctuation → articles → whitespace. */
export function normalizeAnswer(s: string): string {
  const lower = s.toLowerCase()
  let noPunct = ''
  for (const ch of lower) if (!ASCII_PUNCT.has(ch)) noPunct += ch
  return pySplit(noPunct.replace(ARTICLES, ' ')).join(' ')
}

export interface F1Result {
  f1: number
  precision: number
  recall: number
}

const ZERO: F1Result = { f1: 0, precision: 0, recall: 0 }
const SPECIAL = new Set(['yes', 'no', 'noanswer'])

/** hotpot_evaluate_v1.f1_score for one gold string. */
export function f1Score(prediction: string, gold: string): F1Result {
  const p = normalizeAnswer(prediction)
  const g = normalizeAnswer(gold)
  if (SPECIAL.has(p) && p !== g) return ZERO
  if (SPECIAL.has(g) && p !== g) return ZERO
  const pt = pySplit(p)
  const gt = pySplit(g)
  const counts = new Map<string, number>()
  for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1)
  let same = 0
  for (const t of pt) {
    const c = counts.get(t) ?? 0
    if (c > 0) {
      same++
      counts.set(t, c - 1)
    }
  }
  if (same === 0) return ZERO
  const precision = same / pt.length
  const recall = same / gt.length
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall }
}

/** hotpot_evaluate_v1.exact_match_score for one gold string. */
export function exactMatch(prediction: string, gold: string): boolean {
  return normalizeAnswer(prediction) === normalizeAnswer(gold)
}

/** F1 and EM of a prediction, each the maximum over the gold answer and its aliases. */
export function scoreAnswer(prediction: string, golds: readonly string[]): { f1: number; em: number } {
  let f1 = 0
  let em = 0
  for (const g of golds) {
    f1 = Math.max(f1, f1Score(prediction, g).f1)
    if (exactMatch(prediction, g)) em = 1
  }
  return { f1, em }
}

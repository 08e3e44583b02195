// world/search/snippet: a short window of a document's text centred on the words that matched a query.
// Works on token positions given by the caller; knows nothing of scoring or engines.

/** Default window length in words. */
export const SNIPPET_WORDS = 24

/**
 * The window of `windowWords` words that collects the most match weight, centred on its matches.
 * `weight(i)` is the weight of token i (0 = not a match). Ellipses mark cut text on either side.
 */
export function centredSnippet(
  text: string,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  weight: (i: number) => number,
  windowWords = SNIPPET_WORDS,
): string {
  const n = starts.length
  if (n === 0) return ''
  const hits: number[] = []
  const ws: number[] = []
  for (let i = 0; i < n; i++) {
    const w = weight(i)
    if (w > 0) {
      hits.push(i)
      ws.push(w)
    }
  }
  let from = 0
  if (hits.length > 0) {
    // Two pointers over the matches: the span of matches inside one window with the largest total weight.
    let best = -1
    let bi = 0
    let bj = 0
    let sum = 0
    let i = 0
    for (let j = 0; j < hits.length; j++) {
      sum += ws[j]
      while (hits[j] - hits[i] >= windowWords) sum -= ws[i++]
      if (sum > best) {
        best = sum
        bi = i
        bj = j
      }
    }
    const centre = (hits[bi] + hits[bj]) / 2
    from = Math.max(0, Math.round(centre - windowWords / 2 + 0.5))
  }
  const to = Math.min(n, from + windowWords)
  from = Math.max(0, to - windowWords)
  const body = text.slice(starts[from], ends[to - 1])
  return (from > 0 ? '…' : '') + body + (to < n ? '…' : '')
}

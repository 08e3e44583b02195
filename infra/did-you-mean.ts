// infra/did-you-mean: the nearest known name to a mistyped one (edit distance), for "did you mean" hints on unknown
// flags and commands. Knows strings only; which names are known is the caller's business.

/** Levenshtein distance (insert, delete, substitute; a swap of two neighbours counts 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  return d[a.length][b.length]
}

/** The known name closest to `word` when it is close enough to be a typo (distance ≤ 1/3 of its length, at least 1;
 *  or one is a prefix of the other), else undefined. Ties: the first in `known`. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase()
  let best: string | undefined
  let bestD = Infinity
  for (const k of known) {
    if (k === word) continue
    const kl = k.toLowerCase()
    const d = kl.startsWith(w) || w.startsWith(kl) ? Math.min(1, editDistance(w, kl)) : editDistance(w, kl)
    if (d < bestD) {
      best = k
      bestD = d
    }
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined
}

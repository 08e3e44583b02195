// infra/engine/bpe-train: learns BPE merges from weighted words (a word's characters are its first symbols: give it
// byte-level strings for a byte-level BPE), and the reference encoder that applies them by rank. Knows nothing of
// pre-tokenizers, tokenizer files or special tokens: world-tokenizer feeds it pre-tokens and writes the merges out.
import { EngineError } from '../errors'

export interface BpeTrainOptions {
  /** Stop once this many new symbols (merge results not already a symbol) have been made. */
  maxNewSymbols: number
  /** A pair is merged only while its weighted count is at least this. Default 2. */
  minPairCount?: number
}

export interface BpeTrainResult {
  /** In the order learned, which is the rank the encoder applies them by. */
  merges: [string, string][]
  /** Every symbol merges made, in the order made (the alphabet not included). */
  newSymbols: string[]
}

/** Pair keys pack two symbol ids into one number: id_a · 2^21 + id_b (exact below 2^53). */
const SHIFT = 2 ** 21

interface HeapEntry {
  key: number
  count: number
}

/**
 * Learn merges greedily: the most frequent adjacent pair is merged, everywhere, then the next. Ties go to the pair whose
 * (left, right) strings sort first, so the result depends only on the word counts, not on their order. Pair counts are
 * updated incrementally (only the words holding the merged pair are rewritten); a max-heap with lazy deletion picks
 * the next pair. Words with the same string are summed.
 */
export function trainBpe(words: Iterable<readonly [string, number]>, opts: BpeTrainOptions): BpeTrainResult {
  const minPairCount = opts.minPairCount ?? 2
  if (!Number.isInteger(opts.maxNewSymbols) || opts.maxNewSymbols < 0) throw new EngineError('engine.bpe', `maxNewSymbols must be a non-negative integer, got ${opts.maxNewSymbols}`)

  const counts = new Map<string, number>()
  for (const [w, n] of words) if (n > 0 && w.length > 0) counts.set(w, (counts.get(w) ?? 0) + n)
  // Symbols get ids in sorted order of the alphabet, so the ids, like the merges, do not depend on the input order.
  const alphabet = [...new Set([...counts.keys()].flatMap((w) => [...w]))].sort(cmp)
  const symbols: string[] = [...alphabet]
  const idOf = new Map<string, number>(alphabet.map((s, i) => [s, i]))
  const seqs: number[][] = []
  const weight: number[] = []
  for (const [w, n] of counts) {
    seqs.push([...w].map((c) => idOf.get(c)!))
    weight.push(n)
  }

  const pairCount = new Map<number, number>()
  const pairWords = new Map<number, Set<number>>()
  const addPair = (key: number, n: number, w: number) => {
    pairCount.set(key, (pairCount.get(key) ?? 0) + n)
    if (n > 0) {
      let s = pairWords.get(key)
      if (!s) pairWords.set(key, (s = new Set()))
      s.add(w)
    }
  }
  for (let w = 0; w < seqs.length; w++) {
    const s = seqs[w]
    for (let i = 0; i + 1 < s.length; i++) addPair(s[i] * SHIFT + s[i + 1], weight[w], w)
  }

  // Max-heap on count, then on the pair's strings ascending.
  const before = (x: HeapEntry, y: HeapEntry): boolean => {
    if (x.count !== y.count) return x.count > y.count
    const xa = symbols[Math.floor(x.key / SHIFT)], ya = symbols[Math.floor(y.key / SHIFT)]
    if (xa !== ya) return xa < ya
    return symbols[x.key % SHIFT] < symbols[y.key % SHIFT]
  }
  const heap: HeapEntry[] = []
  const push = (e: HeapEntry) => {
    heap.push(e)
    let i = heap.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!before(heap[i], heap[p])) break
      ;[heap[i], heap[p]] = [heap[p], heap[i]]
      i = p
    }
  }
  const pop = (): HeapEntry | undefined => {
    if (heap.length === 0) return undefined
    const top = heap[0]
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1, r = l + 1
        let m = i
        if (l < heap.length && before(heap[l], heap[m])) m = l
        if (r < heap.length && before(heap[r], heap[m])) m = r
        if (m === i) break
        ;[heap[i], heap[m]] = [heap[m], heap[i]]
        i = m
      }
    }
    return top
  }
  for (const [key, count] of pairCount) push({ key, count })

  const merges: [string, string][] = []
  const newSymbols: string[] = []
  while (newSymbols.length < opts.maxNewSymbols) {
    const top = pop()
    if (!top) break
    // A stale entry: the pair's count changed after it was pushed (its current count has its own entry).
    if (pairCount.get(top.key) !== top.count) continue
    if (top.count < minPairCount) break
    const a = Math.floor(top.key / SHIFT), b = top.key % SHIFT
    const merged = symbols[a] + symbols[b]
    let id = idOf.get(merged)
    if (id === undefined) {
      id = symbols.length
      if (id >= SHIFT) throw new EngineError('engine.bpe', `more than ${SHIFT} symbols`)
      symbols.push(merged)
      idOf.set(merged, id)
      newSymbols.push(merged)
    }
    merges.push([symbols[a], symbols[b]])

    const changed = new Set<number>()
    for (const w of pairWords.get(top.key) ?? []) {
      const s = seqs[w]
      const out: number[] = []
      let hit = false
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(id)
          i++
          hit = true
        } else out.push(s[i])
      }
      // Sets keep words whose pair an earlier merge removed: nothing to do for those.
      if (!hit) continue
      const delta = new Map<number, number>()
      for (let i = 0; i + 1 < s.length; i++) delta.set(s[i] * SHIFT + s[i + 1], (delta.get(s[i] * SHIFT + s[i + 1]) ?? 0) - weight[w])
      for (let i = 0; i + 1 < out.length; i++) delta.set(out[i] * SHIFT + out[i + 1], (delta.get(out[i] * SHIFT + out[i + 1]) ?? 0) + weight[w])
      for (const [key, d] of delta) {
        if (d === 0) continue
        addPair(key, d, w)
        changed.add(key)
      }
      seqs[w] = out
    }
    pairCount.delete(top.key)
    pairWords.delete(top.key)
    for (const key of changed) {
      const n = pairCount.get(key)
      if (n === undefined || key === top.key) continue
      if (n > 0) push({ key, count: n })
      else (pairCount.delete(key), pairWords.delete(key))
    }
  }
  return { merges, newSymbols }
}

/** The reference encoder: a word's characters, then repeatedly the lowest-ranked merge present (leftmost first), as
 *  Hugging Face's BPE model applies them. */
export function encodeBpe(word: string, merges: readonly (readonly [string, string])[], rank = mergeRanks(merges)): string[] {
  const s = [...word]
  for (;;) {
    let best = -1, at = -1
    for (let i = 0; i + 1 < s.length; i++) {
      const r = rank.get(s[i] + '\u0000' + s[i + 1])
      if (r !== undefined && (best < 0 || r < best)) (best = r), (at = i)
    }
    if (best < 0) return s
    const [l, r] = merges[best]
    // Merge every non-overlapping occurrence of this pair, left to right.
    for (let i = at; i + 1 < s.length; i++) if (s[i] === l && s[i + 1] === r) s.splice(i, 2, l + r)
  }
}

/** Merge → rank, keyed "left\0right" (the first occurrence of a pair wins). */
export function mergeRanks(merges: readonly (readonly [string, string])[]): Map<string, number> {
  const m = new Map<string, number>()
  merges.forEach(([l, r], i) => {
    const k = l + '\u0000' + r
    if (!m.has(k)) m.set(k, i)
  })
  return m
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0
}

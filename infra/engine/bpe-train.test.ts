// Tests for bpe-train: the merges learned on a toy corpus, tie-breaking, determinism, and the reference encoder.
import { encodeBpe, mergeRanks, trainBpe } from './bpe-train'

// The classic example (Sennrich et al. 2016): low ×5, lower ×2, newest ×6, widest ×3.
const TOY: [string, number][] = [
  ['low', 5],
  ['lower', 2],
  ['newest', 6],
  ['widest', 3],
]

/** Plain O(merges · corpus) BPE: recount every pair after each merge (the reference the incremental counts must match). */
function naiveBpe(words: [string, number][], maxNewSymbols: number, minPairCount = 2): [string, string][] {
  let seqs = words.map(([w, n]) => ({ s: [...w], n }))
  const have = new Set(seqs.flatMap((x) => x.s))
  const merges: [string, string][] = []
  let made = 0
  while (made < maxNewSymbols) {
    const c = new Map<string, number>()
    for (const { s, n } of seqs) for (let i = 0; i + 1 < s.length; i++) c.set(s[i] + '\u0000' + s[i + 1], (c.get(s[i] + '\u0000' + s[i + 1]) ?? 0) + n)
    const best = [...c].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]
    if (!best || best[1] < minPairCount) break
    const [l, r] = best[0].split('\u0000') as [string, string]
    merges.push([l, r])
    if (!have.has(l + r)) (have.add(l + r), made++)
    seqs = seqs.map(({ s, n }) => {
      const out: string[] = []
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === l && s[i + 1] === r) (out.push(l + r), i++)
        else out.push(s[i])
      }
      return { s: out, n }
    })
  }
  return merges
}

describe('trainBpe', () => {
  it('learns the most frequent pairs first on a toy corpus', () => {
    const { merges, newSymbols } = trainBpe(TOY, { maxNewSymbols: 4 })
    // e+s (9: newest, widest), es+t (9), l+o (7), lo+w (7).
    expect(merges).toEqual([
      ['e', 's'],
      ['es', 't'],
      ['l', 'o'],
      ['lo', 'w'],
    ])
    expect(newSymbols).toEqual(['es', 'est', 'lo', 'low'])
    expect(encodeBpe('lowest', merges)).toEqual(['low', 'est'])
    expect(encodeBpe('newer', merges)).toEqual(['n', 'e', 'w', 'e', 'r'])
  })

  it('breaks ties by the pair strings, whatever the input order, and sums repeated words', () => {
    const a = trainBpe([['ab', 3], ['cd', 3], ['ba', 3]], { maxNewSymbols: 3 })
    expect(a.merges).toEqual([['a', 'b'], ['b', 'a'], ['c', 'd']])
    const b = trainBpe([['ba', 1], ['cd', 3], ['ab', 3], ['ba', 2]], { maxNewSymbols: 3 })
    expect(b.merges).toEqual(a.merges)
  })

  it('stops at maxNewSymbols and below minPairCount', () => {
    expect(trainBpe(TOY, { maxNewSymbols: 2 }).merges).toHaveLength(2)
    // Every pair of a word seen once is below the default minimum of 2.
    expect(trainBpe([['xyz', 1]], { maxNewSymbols: 10 }).merges).toEqual([])
    expect(trainBpe([['xyz', 1]], { maxNewSymbols: 10, minPairCount: 1 }).newSymbols).toEqual(['xy', 'xyz'])
    expect(() => trainBpe(TOY, { maxNewSymbols: -1 })).toThrow(/non-negative/)
  })

  it('handles runs of one symbol (aaaa: non-overlapping, left to right)', () => {
    const { merges } = trainBpe([['aaaa', 2], ['aaa', 1]], { maxNewSymbols: 2 })
    expect(merges).toEqual([['a', 'a'], ['aa', 'aa']])
    expect(encodeBpe('aaaaa', merges)).toEqual(['aaaa', 'a'])
  })

  it('matches a naive recount-everything BPE on a random corpus, and is deterministic', () => {
    // A seeded LCG: words over a small alphabet with skewed counts.
    let x = 12345
    const next = () => ((x = (x * 1103515245 + 12345) >>> 0), x / 2 ** 32)
    const words: [string, number][] = []
    for (let i = 0; i < 400; i++) {
      let w = ''
      const len = 1 + Math.floor(next() * 9)
      for (let j = 0; j < len; j++) w += 'abcdeéfg'[Math.floor(next() ** 2 * 8)]
      words.push([w, 1 + Math.floor(next() * 20)])
    }
    const fast = trainBpe(words, { maxNewSymbols: 150 })
    expect(fast.merges).toEqual(naiveBpe(words, 150))
    expect(trainBpe([...words].reverse(), { maxNewSymbols: 150 })).toEqual(fast)
  })

  it('round-trips: encoding a word and joining its pieces gives the word back; training words get learned pieces', () => {
    const words: [string, number][] = ['Ġthe', 'Ġcity', 'Ġof', 'ĠLyon', 'ĠLyonnais', 'Ġcities', 'Ġcitizen'].map((w, i) => [w, 10 - i])
    const { merges } = trainBpe(words, { maxNewSymbols: 30 })
    const rank = mergeRanks(merges)
    for (const w of [...words.map(([w]) => w), 'ĠLyonville', 'Ġzebra', 'Ġcitÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ', '']) expect(encodeBpe(w, merges, rank).join('')).toBe(w)
    expect(encodeBpe('Ġthe', merges, rank)).toEqual(['Ġthe'])
    expect(encodeBpe('ĠLyonville', merges, rank)[0]).toBe('ĠLyon')
  })
})

// bench/perf/synthetic-corpus: a seeded stand-in for a world's documents (names, relation sentences, Zipf filler)
// and question/keyword queries about them, for search benchmarks when no built world is at hand.
import { Rng } from '../../infra/rng'
import type { SearchDoc } from '../../world/search/types'

const SYL = 'ka lo mi re ta sen vor il an bri dal fen gar hol jun kel lir mon nor pel qua ros sul tor ven wil yor zan'.split(' ')
const FUNCTION = 'the of and in a to was is for on by with as at from his her its an which that it were also has'.split(' ')
const RELATIONS = [
  ['born', 'birthplace', 'where was {s} born', '{s} birthplace', '{s} was born in {t}.'],
  ['founded', 'founder', 'who founded {s}', '{s} founder', '{t} founded {s}.'],
  ['wrote', 'author', 'who wrote {s}', '{s} author', '{s} was written by {t}.'],
  ['capital', 'capital', 'what is the capital of {s}', '{s} capital city', 'The capital of {s} is {t}.'],
  ['employer', 'works', 'where does {s} work', '{s} employer company', '{s} works for {t}.'],
  ['spouse', 'married', 'who is {s} married to', '{s} spouse', '{s} is married to {t}.'],
]
const TYPES = ['person', 'city', 'company', 'book', 'country', 'university']

function word(rng: Rng, min: number, max: number): string {
  const n = rng.int(min, max)
  let w = ''
  for (let i = 0; i < n; i++) w += rng.pick(SYL)
  return w
}

export interface SyntheticCorpus {
  docs: SearchDoc[]
  /** Natural-language queries (question and keyword style) about edges of the corpus, with the wanted url. */
  queries: { query: string; target: string }[]
}

/** `n` documents of about `words` words each, and `nQueries` queries; same seed ⇒ same corpus. */
export function syntheticCorpus(seed: number, n = 3600, words = 240, nQueries = 20000): SyntheticCorpus {
  const rng = Rng.derive(seed, 'synthetic-corpus')
  const vocab: string[] = []
  const seen = new Set<string>()
  while (vocab.length < 8000) {
    const w = word(rng, 2, 4)
    if (!seen.has(w)) {
      seen.add(w)
      vocab.push(w)
    }
  }
  // Zipf weights over filler words (function words first = most frequent).
  const filler = [...FUNCTION, ...vocab]
  const cum: number[] = []
  let acc = 0
  for (let i = 0; i < filler.length; i++) cum.push((acc += 1 / Math.pow(i + 1, 1.07)))
  const zipf = () => {
    const r = rng.next() * acc
    let lo = 0
    let hi = cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cum[mid] < r) lo = mid + 1
      else hi = mid
    }
    return filler[lo]
  }
  const cap = (w: string) => w[0].toUpperCase() + w.slice(1)
  const names: string[] = []
  const types: string[] = []
  const nameSeen = new Set<string>()
  while (names.length < n) {
    const name = `${cap(word(rng, 1, 2))} ${cap(word(rng, 2, 3))}`
    if (nameSeen.has(name)) continue
    nameSeen.add(name)
    names.push(name)
    types.push(rng.pick(TYPES))
  }
  // Edges: ~4 per entity, hub-biased targets.
  const edges: { s: number; t: number; r: number }[] = []
  for (let s = 0; s < n; s++) {
    const m = rng.int(2, 6)
    for (let j = 0; j < m; j++) {
      const t = Math.min(n - 1, Math.floor(Math.pow(rng.next(), 2) * n))
      if (t !== s) edges.push({ s, t, r: rng.int(0, RELATIONS.length - 1) })
    }
  }
  const facts: string[][] = names.map(() => [])
  for (const e of edges) {
    const sentence = RELATIONS[e.r][4].replace('{s}', names[e.s]).replace('{t}', names[e.t])
    facts[e.s].push(sentence)
    facts[e.t].push(sentence)
  }
  const docs: SearchDoc[] = names.map((name, i) => {
    const parts: string[] = [`${name} is a ${types[i]}.`]
    let count = 4
    for (const f of facts[i].slice(0, 12)) {
      parts.push(f)
      count += f.split(' ').length
    }
    while (count < words) {
      const len = rng.int(8, 18)
      const s: string[] = []
      for (let j = 0; j < len; j++) s.push(zipf())
      parts.push(cap(s.join(' ')) + '.')
      count += len
    }
    return { url: `https://synthetic.test/wiki/${name.replace(/ /g, '_')}`, title: name, text: parts.join(' ') }
  })
  const queries: { query: string; target: string }[] = []
  for (let i = 0; i < nQueries; i++) {
    const e = rng.pick(edges)
    const rel = RELATIONS[e.r]
    const form = rng.pick([2, 3])
    let q = rel[form].replace('{s}', names[e.s])
    if (rng.bool(0.3)) q = q.replace(names[e.s], names[e.s].split(' ')[1])
    if (rng.bool(0.2)) q += ` ${types[e.s]}`
    queries.push({ query: q, target: docs[e.t].url })
  }
  return { docs, queries }
}

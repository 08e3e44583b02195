// world/qa/blur: blurred descriptions of an entity (DeepDive / WebSailor style) — a few of its cues (type, an exact
// value, a year range for a year or date, a verified neighbour) drawn with the seeded Rng so that exactly one entity
// of G satisfies them all, their words, and the search queries built from the cues alone. Knows nothing of search.
import type { Rng } from '../../infra/rng'
import type { AttributeSpec } from '../types'
import { isPersonType } from './format'
import { valueKey, type GraphIndex } from './graph-index'
import type { Cue, Dir } from './spec'
import { nounOf } from './verbalise'

export interface BlurDraw {
  /** Smallest and largest number of cues besides the type. */
  minCues: number
  maxCues: number
  /** 'two-step': one neighbour shared by 2..TWO_STEP_MAX entities of the type, then values and ranges only. */
  style?: 'direct' | 'two-step'
}

/** Most entities a two-step description's neighbour may share with its entity (each is a page a reader opens). */
export const TWO_STEP_MAX = 6

/** A description drawn for an entity, before search has been asked whether it resolves. */
export interface BlurDraft {
  cues: Cue[]
  text: string
  queries: string[]
  /** Cues besides the type the greedy draw had taken when exactly one entity was left (uniqueness's need). */
  needed: number
  /** two-step: the neighbour (entity id) whose page lists the entity among its few candidates. */
  via?: string
}

/** Width choices of a year range cue (a partial value: the year, and only a window around it). */
const YEAR_WIDTHS = [10, 20] as const

/** Per world: entities of G by (relation, direction, neighbour) and by type — the generator's candidate sets. */
export interface BlurIndex {
  g: GraphIndex
  byNeighbour: Map<string, number[]>
  byType: Map<string, number[]>
}

const nKey = (rel: string, dir: Dir, other: number) => `${rel}\u0000${dir}\u0000${other}`

export function buildBlurIndex(g: GraphIndex): BlurIndex {
  const byNeighbour = new Map<string, number[]>()
  const byType = new Map<string, number[]>()
  const push = (m: Map<string, number[]>, k: string, v: number) => {
    const l = m.get(k)
    if (l) {
      if (l[l.length - 1] !== v) l.push(v)
    } else m.set(k, [v])
  }
  g.entities.forEach((e, i) => push(byType, e.type, i))
  for (const e of g.edges) {
    const s = g.entityIndex.get(e.source)
    const t = g.entityIndex.get(e.target)
    if (s === undefined || t === undefined) continue
    push(byNeighbour, nKey(e.relation, 'fwd', t), s)
    push(byNeighbour, nKey(e.relation, 'inv', s), t)
  }
  return { g, byNeighbour, byType }
}

export function yearOf(spec: AttributeSpec, v: unknown): number | null {
  if (spec.kind === 'year' && typeof v === 'number') return v
  if (spec.kind === 'date' && typeof v === 'string') {
    const m = /^(\d{4})-/.exec(v)
    return m ? Number(m[1]) : null
  }
  return null
}

/** The phrase naming an entity from its neighbour (it is the source: sourcePhrases; the target: targetPhrases). */
function neighbourPhrases(g: GraphIndex, rel: string, dir: Dir): string[] {
  const r = g.relations.get(rel)
  if (!r) return []
  return (dir === 'fwd' ? r.sourcePhrases : r.targetPhrases).filter((p) => /^(the|a|an) /.test(p))
}

/** The entities of G satisfying one cue (generator side: indexed look-ups). */
function cueSet(b: BlurIndex, type: string, c: Cue): number[] {
  const g = b.g
  if (c.kind === 'type') return b.byType.get(c.type) ?? []
  if (c.kind === 'neighbour') return (b.byNeighbour.get(nKey(c.rel, c.dir, g.entityIndex.get(c.other)!)) ?? []).filter((i) => g.entities[i].type === type)
  const spec = g.types.get(type)?.attributes.find((a) => a.name === c.attr)
  if (!spec) return []
  if (c.kind === 'value') return g.valueIndex.get(valueKey(type, c.attr, c.value)) ?? []
  return (b.byType.get(type) ?? []).filter((i) => {
    const y = yearOf(spec, g.entities[i].attrs[c.attr])
    return y !== null && y >= c.lo && y <= c.hi
  })
}

/**
 * A description of entity i that exactly one entity of G satisfies, or null. Neighbours on `avoid` (the question's own
 * path) are never cues: naming the next hop would give the walk away.
 */
export function drawBlur(b: BlurIndex, rng: Rng, i: number, avoid: ReadonlySet<number>, opts: BlurDraw): BlurDraft | null {
  const g = b.g
  const e = g.entities[i]
  const type = g.types.get(e.type)
  if (!type) return null
  const neighbours: Cue[] = []
  for (const m of [...g.moves[i], ...g.back[i]]) {
    // A move out of i along rel/fwd means i is the edge's source; a back move into i means i is its target.
    const ed = g.edges[m.edge]
    const isSource = ed.source === e.id
    const other = g.entityIndex.get(isSource ? ed.target : ed.source)!
    const dir: Dir = isSource ? 'fwd' : 'inv'
    if (avoid.has(other) || other === i) continue
    if (neighbourPhrases(g, ed.relation, dir).length === 0) continue
    if (neighbours.some((c) => c.kind === 'neighbour' && c.rel === ed.relation && c.dir === dir && c.other === g.entities[other].id)) continue
    neighbours.push({ kind: 'neighbour', rel: ed.relation, dir, other: g.entities[other].id })
  }
  const attrs: Cue[] = []
  for (const a of type.attributes) {
    const v = e.attrs[a.name]
    if (v === undefined) continue
    if (a.kind === 'string' && typeof v === 'string') attrs.push({ kind: 'value', attr: a.name, value: v })
    const y = yearOf(a, v)
    if (y !== null) {
      const w = rng.pick(YEAR_WIDTHS)
      const lo = y - rng.int(0, w - 1)
      attrs.push({ kind: 'years', attr: a.name, lo, hi: lo + w - 1 })
    }
  }
  // One neighbour leads (it is what search can find); the rest in a random order.
  const order: Cue[] = []
  let via: string | undefined
  if (opts.style === 'two-step') {
    // The neighbour shared by the most entities of the type that a reader can still open one by one; no other neighbour.
    const fit = rng.shuffle(neighbours.filter((c) => {
      const n = cueSet(b, e.type, c).length
      return n >= 2 && n <= TWO_STEP_MAX
    }))
    if (fit.length === 0) return null
    let lead = fit[0]
    for (const c of fit) if (cueSet(b, e.type, c).length > cueSet(b, e.type, lead).length) lead = c
    if (lead.kind === 'neighbour') via = lead.other
    order.push(lead, ...rng.shuffle(attrs))
  } else {
    if (neighbours.length > 0) order.push(neighbours.splice(rng.int(0, neighbours.length - 1), 1)[0])
    order.push(...rng.shuffle([...neighbours, ...attrs]))
  }
  let cands = new Set(b.byType.get(e.type) ?? [])
  const chosen: Cue[] = []
  const rest: Cue[] = []
  let needed = 0
  for (const c of order) {
    if (chosen.length >= opts.maxCues || (cands.size === 1 && chosen.length >= opts.minCues)) break
    const s = new Set(cueSet(b, e.type, c))
    const next = new Set([...cands].filter((x) => s.has(x)))
    if (next.size < cands.size) {
      chosen.push(c)
      cands = next
      if (cands.size === 1 && needed === 0) needed = chosen.length
    } else rest.push(c)
  }
  while (chosen.length < opts.minCues && rest.length > 0) chosen.push(rest.shift()!)
  if (cands.size !== 1 || !cands.has(i) || chosen.length < opts.minCues || chosen.length > opts.maxCues) return null
  // Neighbour cues first (the head of the phrase), then values: a canonical order for the words and the checker.
  chosen.sort((x, y) => rank(x) - rank(y))
  const cues: Cue[] = [{ kind: 'type', type: e.type }, ...chosen]
  const text = blurText(g, rng, cues)
  // A neighbour whose name holds the entity's own would name it after all.
  if (text.toLowerCase().includes(e.name.toLowerCase())) return null
  if (via !== undefined && !cues.some((c) => c.kind === 'neighbour' && c.other === via)) return null
  return { cues, text, queries: blurQueries(g, rng, cues), needed, ...(via !== undefined ? { via } : {}) }
}

const rank = (c: Cue) => (c.kind === 'neighbour' ? 0 : c.kind === 'value' ? 1 : 2)

/** Words of a description: "the only book written by Ann Lee whose genre is fantasy and whose year of publication
 *  falls between 1988 and 1997". */
export function blurText(g: GraphIndex, rng: Rng, cues: readonly Cue[]): string {
  const typeCue = cues.find((c) => c.kind === 'type')
  if (!typeCue || typeCue.kind !== 'type') throw new Error('blurText: a description starts with its type')
  const spec = g.types.get(typeCue.type)
  const who = isPersonType(spec) ? 'who' : 'that'
  const nbs = cues.filter((c): c is Extract<Cue, { kind: 'neighbour' }> => c.kind === 'neighbour')
  const phrase = (c: Extract<Cue, { kind: 'neighbour' }>) => {
    const key = c.dir === 'fwd' ? '{t}' : '{s}'
    const other = g.entities[g.entityIndex.get(c.other)!].name
    return rng.pick(neighbourPhrases(g, c.rel, c.dir)).split(key).join(other)
  }
  let head = `the only ${nounOf(g, typeCue.type)}`
  const clauses: string[] = []
  nbs.forEach((c, k) => {
    const p = phrase(c)
    if (k === 0) head = `the only ${p.replace(/^(the|a|an) /, '')}`
    else clauses.push(`${who} is also ${p.replace(/^an? /, 'a ')}`)
  })
  for (const c of cues) {
    if (c.kind !== 'value' && c.kind !== 'years') continue
    const a = spec?.attributes.find((x) => x.name === c.attr)
    const label = a?.label ?? c.attr
    clauses.push(c.kind === 'value' ? `whose ${label} is ${c.value}` : `whose ${label} falls between ${c.lo} and ${c.hi}`)
  }
  return clauses.length === 0 ? head : `${head} ${clauses.join(' and ')}`
}

/** Search queries from the cues alone (never the entity's name): what a reader of the question could type. */
export function blurQueries(g: GraphIndex, rng: Rng, cues: readonly Cue[], n = 6): string[] {
  const typeCue = cues.find((c) => c.kind === 'type')
  const noun = typeCue && typeCue.kind === 'type' ? nounOf(g, typeCue.type) : ''
  const spec = typeCue && typeCue.kind === 'type' ? g.types.get(typeCue.type) : undefined
  const parts: string[] = []
  const names: string[] = []
  const words: string[] = []
  for (const c of cues) {
    if (c.kind === 'neighbour') {
      const other = g.entities[g.entityIndex.get(c.other)!].name
      const kws = g.relations.get(c.rel)?.keywords ?? []
      const kw = kws.length > 0 ? rng.pick(kws) : ''
      names.push(other)
      parts.push(`${other} ${kw}`.trim())
    } else if (c.kind === 'value') {
      words.push(c.value)
      parts.push(`${spec?.attributes.find((a) => a.name === c.attr)?.label ?? c.attr} ${c.value}`)
    } else if (c.kind === 'years') {
      parts.push(spec?.attributes.find((a) => a.name === c.attr)?.label ?? c.attr)
    }
  }
  const out: string[] = []
  const add = (q: string) => {
    const t = q.replace(/\s+/g, ' ').trim()
    if (t && !out.includes(t)) out.push(t)
  }
  add(`${noun} ${parts.join(' ')}`)
  for (const nm of names) add(`${noun} ${nm} ${words.join(' ')}`)
  for (const p of parts) add(`${noun} ${p}`)
  add(`${names.join(' ')} ${words.join(' ')}`)
  for (const nm of names) add(nm)
  add(parts.join(' '))
  return out.slice(0, n)
}

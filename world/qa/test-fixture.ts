// world/qa/test-fixture: a small hand-made world for QA tests — the real schema, a random graph that respects
// cardinalities (some edges left unverified, some homonyms), and documents whose facts are exact sentences.
// Not a world generator: it exists so the QA code can be tested without the build pipeline.
import { Rng } from '../../infra/rng'
import { ENTITY_TYPES, RELATIONS } from '../schema'
import type { AttrValue, DocFact, Edge, Entity } from '../types'
import { formatValue } from './format'
import type { QaWorldView } from './view'

const SYL = ['ka', 'lo', 'mir', 'ten', 'sa', 'vor', 'el', 'dun', 'ri', 'pa', 'zo', 'bel', 'gan', 'tor', 'lis', 'ne', 'um', 'fa', 'qui', 'ros']

function word(rng: Rng): string {
  const n = rng.int(2, 3)
  let w = ''
  for (let i = 0; i < n; i++) w += rng.pick(SYL)
  return w[0].toUpperCase() + w.slice(1)
}

export interface FixtureOptions {
  seed: number
  /** Entities per type. */
  perType: number
  keptRate: number
  homonymRate: number
}

export function makeFixtureWorld(o: FixtureOptions): QaWorldView {
  const rng = Rng.derive(o.seed, 'fixture')
  const entities: Entity[] = []
  const byType = new Map<string, Entity[]>()
  const names = new Set<string>()
  for (const t of ENTITY_TYPES) {
    const list: Entity[] = []
    for (let k = 0; k < o.perType; k++) {
      let name = ''
      const prev = list.length > 0 ? list[rng.int(0, list.length - 1)] : undefined
      if (prev && rng.bool(o.homonymRate)) name = prev.name
      else
        do name = t.name === 'Person' ? `${word(rng)} ${word(rng)}` : `${word(rng)} ${word(rng)}${t.name === 'Award' ? ' Prize' : ''}`
        while (names.has(name))
      names.add(name)
      const attrs: Record<string, AttrValue> = {}
      for (const a of t.attributes) {
        if (a.kind === 'year') attrs[a.name] = rng.int(1900, 1990)
        else if (a.kind === 'int') attrs[a.name] = rng.int(10, 2_000_000)
        else if (a.kind === 'float') attrs[a.name] = Math.round(rng.float(1, 5000) * 10) / 10
        else if (a.kind === 'date') attrs[a.name] = `${rng.int(1900, 1999)}-0${rng.int(1, 9)}-1${rng.int(0, 9)}`
        else attrs[a.name] = word(rng).toLowerCase()
      }
      const id = `${t.name.toLowerCase()}-${k}`
      const e: Entity = { id, type: t.name, name, attrs, url: `https://fixture.test/wiki/${id}` }
      list.push(e)
      entities.push(e)
    }
    byType.set(t.name, list)
  }
  const edges: Edge[] = []
  const seen = new Set<string>()
  const add = (rel: string, s: Entity, t: Entity) => {
    const k = `${rel}|${s.id}|${t.id}`
    if (s.id === t.id || seen.has(k)) return
    seen.add(k)
    edges.push({ id: `e${edges.length}`, relation: rel, source: s.id, target: t.id })
  }
  for (const r of RELATIONS) {
    const S = byType.get(r.domain)!
    const T = byType.get(r.range)!
    if (r.cardinality === 'n-1') for (const s of S) if (rng.bool(0.8)) add(r.name, s, rng.pick(T))
    if (r.cardinality === '1-n') for (const t of T) if (rng.bool(0.8)) add(r.name, rng.pick(S), t)
    if (r.cardinality === '1-1') {
      const ts = rng.shuffle(T.slice())
      S.forEach((s, i) => {
        if (i < ts.length && rng.bool(0.7)) add(r.name, s, ts[i])
      })
    }
    if (r.cardinality === 'n-n') for (let i = 0; i < S.length; i++) add(r.name, rng.pick(S), rng.pick(T))
  }
  const kept = new Set(edges.filter(() => rng.bool(o.keptRate)).map((e) => e.id))
  const ent = new Map(entities.map((e) => [e.id, e]))
  const factsByUrl = new Map<string, DocFact[]>()
  for (const e of entities) {
    const facts: DocFact[] = []
    for (const a of ENTITY_TYPES.find((t) => t.name === e.type)!.attributes)
      facts.push({ kind: 'attr', ref: `${e.id}#${a.name}`, sentence: `The ${a.label} of ${e.name} is ${formatValue(a, e.attrs[a.name])}.` })
    factsByUrl.set(e.url, facts)
  }
  for (const e of edges) {
    const r = RELATIONS.find((x) => x.name === e.relation)!
    const s = ent.get(e.source)!
    const t = ent.get(e.target)!
    const sentence = (tpl: string) => tpl.split('{s}').join(s.name).split('{t}').join(t.name)
    // Most edges are stated on both pages; some only on one side (the evidence falls back to the other page).
    const where = rng.int(0, 5)
    if (where !== 1) factsByUrl.get(s.url)!.push({ kind: 'edge', ref: e.id, sentence: sentence(r.forward[0]) })
    if (where !== 2) factsByUrl.get(t.url)!.push({ kind: 'edge', ref: e.id, sentence: sentence(r.inverse[0]) })
  }
  return { entityTypes: ENTITY_TYPES, relations: RELATIONS, entities, edges, kept, factsByUrl }
}

/** Document texts of the fixture: every fact sentence of a page, in order. */
export function fixtureDocText(view: QaWorldView, url: string): string {
  return (view.factsByUrl.get(url) ?? []).map((f) => f.sentence).join(' ')
}

// world/qa/describe: naming a start entity so that exactly one entity of the world fits the description
// (plain name; "the <noun> <name>" when another type shares the name; a parenthesised attribute for homonyms).
import type { Entity } from '../types'
import { formatValue } from './format'
import { norm, type GraphIndex } from './graph-index'
import type { StartDesc } from './spec'

/** The least elaborate unambiguous description of entity `i`, or null when none exists (skip it as a start). */
export function describeStart(g: GraphIndex, i: number): StartDesc | null {
  const e = g.entities[i]
  if (g.nameCount.get(norm(e.name)) === 1) return { kind: 'name' }
  const same = g.typedNames.get(`${e.type}\u0000${norm(e.name)}`) ?? []
  if (same.length === 1) return { kind: 'typed' }
  const spec = g.types.get(e.type)
  for (const a of spec?.attributes ?? []) {
    const v = e.attrs[a.name]
    if (v === undefined) continue
    if (same.filter((j) => g.entities[j].attrs[a.name] === v).length === 1) return { kind: 'attr', attr: a.name }
  }
  return null
}

/** Entities of the world that fit a description (the checker wants exactly one). */
export function matchStart(entities: readonly Entity[], e: Entity, d: StartDesc): Entity[] {
  const n = norm(e.name)
  if (d.kind === 'name') return entities.filter((x) => norm(x.name) === n)
  return matchAmong(entities.filter((x) => norm(x.name) === n), e, d)
}

/** matchStart over the entities already known to carry e's name (any type). */
export function matchAmong(sameName: readonly Entity[], e: Entity, d: StartDesc): Entity[] {
  if (d.kind === 'name') return sameName.slice()
  // A blurred description is matched on the whole graph by world/qa/blur-check, not among homonyms.
  if (d.kind === 'blur') return []
  const n = norm(e.name)
  const entities = sameName
  if (d.kind === 'typed') return entities.filter((x) => x.type === e.type && norm(x.name) === n)
  return entities.filter((x) => x.type === e.type && norm(x.name) === n && x.attrs[d.attr] === e.attrs[d.attr])
}

export function startText(g: GraphIndex, i: number, d: StartDesc): string {
  const e = g.entities[i]
  const spec = g.types.get(e.type)
  const noun = spec?.noun ?? e.type.toLowerCase()
  if (d.kind === 'name') return e.name
  if (d.kind === 'blur') return d.text
  if (d.kind === 'typed') return `the ${noun} ${e.name}`
  const a = spec?.attributes.find((x) => x.name === d.attr)
  return `the ${noun} ${e.name} (${a?.label ?? d.attr}: ${formatValue(a, e.attrs[d.attr])})`
}

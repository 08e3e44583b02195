// world/qa/blur-check: the independent re-check of a blurred description — scans every entity and every edge of G
// (no index, no code shared with world/qa/blur) and returns the entities that satisfy all its cues; a description is
// sound iff that is exactly its start entity. Also rejects malformed cue lists (no type cue, unknown attributes).
import type { Edge, Entity, EntityTypeSpec } from '../types'
import type { BlurDesc, Cue } from './spec'

export interface BlurWorld {
  entities: readonly Entity[]
  edges: readonly Edge[]
  entityTypes: readonly EntityTypeSpec[]
}

/** The year of a stored year (number) or date ('YYYY-MM-DD') value; null for anything else. */
function storedYear(kind: string, v: unknown): number | null {
  if (kind === 'year') return typeof v === 'number' && Number.isInteger(v) ? v : null
  if (kind === 'date') return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? Number(v.slice(0, 4)) : null
  return null
}

export function makeBlurMatcher(w: BlurWorld): (cues: readonly Cue[]) => Entity[] {
  // Each entity's incident edges as 'relation|fwd|other' (it is the source) and 'relation|inv|other' (the target).
  const touches = new Map<string, Set<string>>()
  const add = (id: string, k: string) => (touches.get(id) ?? touches.set(id, new Set()).get(id)!).add(k)
  for (const e of w.edges) {
    add(e.source, `${e.relation}|fwd|${e.target}`)
    add(e.target, `${e.relation}|inv|${e.source}`)
  }
  const kinds = new Map<string, Map<string, string>>(w.entityTypes.map((t) => [t.name, new Map(t.attributes.map((a) => [a.name, a.kind]))]))
  const fits = (x: Entity, c: Cue): boolean => {
    if (c.kind === 'type') return x.type === c.type
    if (c.kind === 'neighbour') return touches.get(x.id)?.has(`${c.rel}|${c.dir}|${c.other}`) === true
    const kind = kinds.get(x.type)?.get(c.attr)
    if (kind === undefined) return false
    const v = x.attrs[c.attr]
    if (c.kind === 'value') return kind === 'string' && v === c.value
    const y = storedYear(kind, v)
    return y !== null && y >= c.lo && y <= c.hi
  }
  return (cues) => w.entities.filter((x) => cues.every((c) => fits(x, c)))
}

/** Problems of a blurred start description (empty = it names exactly `startId`). */
export function checkBlurDesc(match: (cues: readonly Cue[]) => Entity[], d: BlurDesc, startId: string, startName: string): string[] {
  const out: string[] = []
  if (!d.cues.some((c) => c.kind === 'type')) out.push('blurred description has no type cue')
  if (d.cues.length < 2) out.push('blurred description has no cue besides its type')
  if (d.text.includes(startName)) out.push(`blurred description names its entity ${JSON.stringify(startName)}`)
  const m = match(d.cues)
  if (m.length !== 1 || m[0].id !== startId) out.push(`blurred description fits ${m.length} entities (${m.slice(0, 3).map((e) => e.id).join(', ')}${m.length > 3 ? ', …' : ''}), not exactly ${startId}`)
  return out
}

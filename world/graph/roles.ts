// world/graph/roles: after the edges are drawn, make the descriptive string attributes agree with what an entity does
// in the graph — a person who directs films is a film director, one who plays for a team an athlete; a company that
// publishes books is in publishing. No constraint reads these attributes, so changing them keeps every edge valid.
import type { Edge, Entity } from '../types'

/** Relation → [which end gets the attribute, attribute, value]. Order = priority when counts tie. */
const ROLES: [string, 'source' | 'target', string, string][] = [
  ['directed_by', 'target', 'occupation', 'film director'],
  ['written_by', 'target', 'occupation', 'writer'],
  ['stars', 'target', 'occupation', 'actor'],
  ['plays_for', 'source', 'occupation', 'athlete'],
  ['coached_by', 'target', 'occupation', 'athlete'],
  ['member_of', 'source', 'occupation', 'musician'],
  ['mayor', 'target', 'occupation', 'politician'],
  ['rector', 'target', 'occupation', 'scientist'],
  ['founded_by', 'target', 'occupation', 'entrepreneur'],
  ['ceo', 'target', 'occupation', 'entrepreneur'],
  ['published_by', 'target', 'industry', 'publishing'],
  ['produced_by', 'target', 'industry', 'film production'],
  ['record_label', 'target', 'industry', 'music recording'],
]

/** A prize winner with no other role takes the occupation of the prize's field. */
const FIELD_OCCUPATION: Record<string, string> = {
  literature: 'writer', cinema: 'film director', music: 'musician', physics: 'scientist', medicine: 'scientist',
  mathematics: 'scientist', architecture: 'architect', journalism: 'journalist', peace: 'politician', design: 'architect',
  photography: 'painter', engineering: 'engineer',
}

/** Set `occupation` / `industry` from each entity's edges (most edges of one role wins; ties by ROLES order). */
export function harmoniseRoles(entities: Entity[], edges: Edge[]): void {
  const byId = new Map(entities.map((e) => [e.id, e]))
  const rank = new Map(ROLES.map((r, i) => [r[0], i]))
  const votes = new Map<string, Map<string, { n: number; rank: number }>>() // entity → "attr=value" → count
  const vote = (id: string, attr: string, value: string, r: number) => {
    const m = votes.get(id) ?? votes.set(id, new Map()).get(id)!
    const k = `${attr}=${value}`
    const v = m.get(k) ?? { n: 0, rank: r }
    v.n++
    v.rank = Math.min(v.rank, r)
    m.set(k, v)
  }
  for (const e of edges) {
    const i = rank.get(e.relation)
    if (i !== undefined) {
      const [, side, attr, value] = ROLES[i]
      vote(side === 'source' ? e.source : e.target, attr, value, i)
    } else if (e.relation === 'won_award') {
      const field = byId.get(e.target)?.attrs.field
      const occ = typeof field === 'string' ? FIELD_OCCUPATION[field] : undefined
      if (occ) vote(e.source, 'occupation', occ, ROLES.length) // below every direct role
    }
  }
  for (const [id, m] of [...votes].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const ent = byId.get(id)
    if (!ent) continue
    const best = new Map<string, { value: string; n: number; rank: number }>()
    for (const [k, v] of m) {
      const [attr, value] = k.split('=')
      if (ent.attrs[attr] === undefined) continue
      const b = best.get(attr)
      // A prize only decides when nothing else does: a direct role outranks any number of prizes.
      const key = (x: { n: number; rank: number }) => [x.rank < ROLES.length ? 1 : 0, x.n, -x.rank]
      const [a0, a1, a2] = key(v)
      const better = !b || a0 > key(b)[0] || (a0 === key(b)[0] && (a1 > key(b)[1] || (a1 === key(b)[1] && a2 > key(b)[2])))
      if (better) best.set(attr, { value, n: v.n, rank: v.rank })
    }
    for (const [attr, b] of best) ent.attrs[attr] = b.value
  }
}

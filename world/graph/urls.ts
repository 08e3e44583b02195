// world/graph/urls: the unique document URL of every entity (Wikipedia-style slugs; homonyms and clashes disambiguated).
// Knows entity names, types and ids only.
import { entityType } from '../schema'
import type { Entity } from '../types'

export const WIKI_BASE = 'https://searchgym.local/wiki/'

/** ASCII slug of a name: diacritics stripped, runs of other characters become '_'. */
export function slugify(name: string): string {
  const s = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '')
  return s || 'Untitled'
}

/** URL per entity id; the first entity (in the given order) keeps the plain slug, later clashes get "_(noun)" then "_(noun_k)". */
export function entityUrls(entities: Entity[]): Map<string, string> {
  const taken = new Set<string>()
  const out = new Map<string, string>()
  for (const e of entities) {
    const base = slugify(e.name)
    const noun = slugify(entityType(e.type)?.noun ?? e.type).toLowerCase()
    let slug = base
    if (taken.has(slug)) slug = `${base}_(${noun})`
    for (let k = 2; taken.has(slug); k++) slug = `${base}_(${noun}_${k})`
    taken.add(slug)
    out.set(e.id, WIKI_BASE + slug)
  }
  return out
}

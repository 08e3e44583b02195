// world/docs/docs: one Wikipedia-style document per entity (title, lead, infobox block, 2–4 sections) that states every
// attribute and every incident edge in both endpoint documents, recording the exact sentence of each fact.
// Template writing only (offline, deterministic per entity); knows the schema, not storage or search.
import { Rng } from '../../infra/rng'
import type { WorldConfig } from '../config'
import { entityType, relation, RELATIONS } from '../schema'
import type { AttrValue, AttributeSpec, Doc, DocFact, Edge, Entity, RelationSpec } from '../types'

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

function groupDigits(intPart: string): string {
  const neg = intPart.startsWith('-')
  const d = neg ? intPart.slice(1) : intPart
  let out = ''
  for (let i = 0; i < d.length; i++) {
    if (i > 0 && (d.length - i) % 3 === 0) out += ','
    out += d[i]
  }
  return (neg ? '-' : '') + out
}

/** How an attribute value is written in documents (locale independent): 1,234,567 · 16,342.3 km² · 12 March 1954. */
export function formatAttr(spec: AttributeSpec, value: AttrValue): string {
  let s: string
  if (spec.kind === 'year' || typeof value === 'string') {
    if (spec.kind === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      const [y, m, d] = value.split('-').map(Number)
      s = `${d} ${MONTHS[m - 1]} ${y}`
    } else s = String(value)
  } else if (spec.kind === 'float') {
    const [i, f] = value.toFixed(1).split('.')
    s = `${groupDigits(i)}.${f}`
  } else s = groupDigits(String(Math.round(value)))
  return spec.unit ? `${s} ${spec.unit}` : s
}

const fill = (tpl: string, vars: Record<string, string>) => tpl.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m)
const cap1 = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** "A", "A and B", "A, B and C". */
export function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/** Section titles per relation: [in the source's document, in the target's document]. */
const SECTION: Record<string, [string, string]> = {
  located_in: ['Geography', 'Cities'], capital: ['Government', 'Government'], born_in: ['Early life', 'Notable people'],
  citizen_of: ['Early life', 'Notable people'], educated_at: ['Education', 'Alumni'], child_of: ['Family', 'Family'],
  influenced_by: ['Influences', 'Legacy'], written_by: ['Authorship', 'Works'], published_by: ['Publication', 'Publications'],
  book_award: ['Reception', 'Recipients'], directed_by: ['Production', 'Works'], adapted_from: ['Production', 'Adaptations'],
  produced_by: ['Production', 'Productions'], stars: ['Cast', 'Works'], film_award: ['Reception', 'Recipients'],
  founded_by: ['History', 'Career'], headquartered_in: ['Organisation', 'Economy'], subsidiary_of: ['Ownership', 'Subsidiaries'],
  ceo: ['Leadership', 'Career'], university_in: ['Campus', 'Education'], rector: ['Leadership', 'Career'],
  award_country: ['History', 'Culture'], won_award: ['Awards', 'Recipients'], team_city: ['History', 'Sport'],
  home_stadium: ['Stadium', 'Tenants'], plays_for: ['Career', 'Squad'], coached_by: ['Staff', 'Career'],
  stadium_in: ['Location', 'Sport'], formed_in: ['History', 'Culture'], member_of: ['Career', 'Members'],
  recorded_by: ['Background', 'Discography'], record_label: ['Release', 'Releases'], museum_in: ['Location', 'Culture'],
  museum_founder: ['History', 'Career'], mayor: ['Government', 'Career'],
}
const RELATION_RANK = new Map(RELATIONS.map((r, i) => [r.name, i]))
const OVERVIEW = 'Overview'
const OTHER = 'Further information'
/** Edge sections per document at most (plus the overview: 2–4 sections in all). */
const MAX_EDGE_SECTIONS = 3
/** Above this many sources of one relation, the target's document lists them in grouped sentences. */
const LIST_THRESHOLD = 3
const LIST_CHUNK = 8

const LEADS: Record<string, string[]> = {
  Country: ['{N} is a country founded in {founded}.', '{N} is a sovereign country that became independent in {founded}.'],
  City: ['{N} is a city founded in {founded}.', '{N} is a city whose history goes back to {founded}.'],
  Person: ['{N} (born {born}) is a {occupation}.', '{N} is a {occupation} born in {born}.'],
  Company: ['{N} is a {industry} company founded in {founded}.', '{N} is a company in the {industry} industry, founded in {founded}.'],
  University: ['{N} is a university founded in {founded}.', '{N} is an institution of higher education established in {founded}.'],
  Book: ['{N} is a {genre} published in {published}.', '{N} is a {genre} first published in {published}.'],
  Film: ['{N} is a {genre} released in {released}.', '{N} is a {released} {genre}.'],
  Award: ['{N} is an award in the field of {field}, established in {established}.', '{N} is a prize for {field} first awarded in {established}.'],
  SportsTeam: ['{N} is a {sport} team founded in {founded}.', '{N} is a professional {sport} club established in {founded}.'],
  Band: ['{N} is a {genre} band formed in {formed}.', '{N} is a {genre} group that formed in {formed}.'],
  Album: ['{N} is an album released on {released}.', '{N} is a studio album first released on {released}.'],
  Stadium: ['{N} is a stadium opened on {opened}.', '{N} is a sports venue that opened on {opened}.'],
  Museum: ['{N} is a museum opened in {opened}.', '{N} is a museum that first opened its doors in {opened}.'],
}
const ATTR_PROSE = ['The {label} of {n} is {v}.', '{N} has {a} {label} of {v}.', 'Records give the {label} of {n} as {v}.']
const FILLER = [
  'Further information about {n} can be found in regional archives.',
  '{N} has been described in several reference works.',
  'This section summarises information from published sources.',
  'Additional material on the subject is held in local collections.',
  'The details below follow the conventions of standard reference works.',
  'Researchers have written about {n} on a number of occasions.',
  'Some older sources spell names in this section differently.',
  'The subject is covered in more detail in specialised literature.',
]

interface Item { sentence: string; facts: DocFact[] }

/** Entity lookups the writer needs (by id). */
export type EntityLookup = (id: string) => Entity

/** The document of one entity; `outEdges`/`inEdges` are its incident edges (any order: they are sorted here). */
export function writeDoc(e: Entity, outEdges: Edge[], inEdges: Edge[], lookup: EntityLookup, config: WorldConfig): Doc {
  const rng = Rng.derive(config.seed, 'doc', e.id)
  const spec = entityType(e.type)
  const attrSpecs = spec?.attributes ?? []
  // Awards are written with the article ("the Garnier Prize"): {n} inside a sentence, {N} at its start.
  const article = e.type === 'Award'
  const vals: Record<string, string> = { n: article ? `the ${e.name}` : e.name, N: article ? `The ${e.name}` : e.name }
  for (const a of attrSpecs) if (e.attrs[a.name] !== undefined) vals[a.name] = formatAttr(a, e.attrs[a.name])
  const attrFact = (a: string, sentence: string): DocFact => ({ kind: 'attr', ref: `${e.id}#${a}`, sentence })

  // Lead: a type-specific sentence stating one or two attributes.
  const leadTpl = rng.pick(LEADS[e.type] ?? ['{N} is a notable subject.'])
  const lead = fill(leadTpl, vals)
  const leadFacts = attrSpecs.filter((a) => leadTpl.includes(`{${a.name}}`)).map((a) => attrFact(a.name, lead))
  // The lead also states the entity's primary outgoing fact (first relation in schema order), as Wikipedia leads do.
  const primary = outEdges.slice().sort((a, b) => RELATION_RANK.get(a.relation)! - RELATION_RANK.get(b.relation)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0]
  let leadText = lead
  if (primary) {
    const r = relation(primary.relation)!
    const sentence = fill(rng.pick(r.forward), { s: e.name, t: lookup(primary.target).name })
    leadText = `${lead} ${sentence}`
    leadFacts.push({ kind: 'edge', ref: primary.id, sentence })
  }

  // Infobox: every attribute as "Label: value".
  const infoLines = attrSpecs.filter((a) => vals[a.name] !== undefined).map((a) => `${cap1(a.label)}: ${vals[a.name]}`)
  const infoFacts = attrSpecs.filter((a) => vals[a.name] !== undefined).map((a, i) => attrFact(a.name, infoLines[i]))

  // Overview: numeric attributes in prose, plus filler.
  const sections = new Map<string, Item[]>()
  const push = (title: string, item: Item) => {
    const l = sections.get(title) ?? []
    l.push(item)
    sections.set(title, l)
  }
  for (const a of attrSpecs) {
    if (vals[a.name] === undefined || a.kind === 'string' || leadTpl.includes(`{${a.name}}`)) continue
    const sentence = (fill(rng.pick(ATTR_PROSE), { n: vals.n, N: vals.N, a: /^[aeiou]/i.test(a.label) ? 'an' : 'a', label: a.label, v: vals[a.name] }))
    push(OVERVIEW, { sentence, facts: [attrFact(a.name, sentence)] })
  }
  if (!sections.has(OVERVIEW)) push(OVERVIEW, { sentence: fill(rng.pick(FILLER), vals), facts: [] })

  // Edge facts from this entity's side: forward sentences where it is the source, inverse (or list) where target.
  const byId = (a: Edge, b: Edge) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  for (const edge of outEdges.slice().sort(byId)) {
    const r = relation(edge.relation)!
    const sentence = (fill(rng.pick(r.forward), { s: e.name, t: lookup(edge.target).name }))
    push(SECTION[r.name]?.[0] ?? OTHER, { sentence, facts: [{ kind: 'edge', ref: edge.id, sentence }] })
  }
  const incoming = new Map<string, Edge[]>()
  for (const edge of inEdges.slice().sort(byId)) {
    const l = incoming.get(edge.relation) ?? []
    l.push(edge)
    incoming.set(edge.relation, l)
  }
  for (const [relName, list] of [...incoming].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const r = relation(relName)!
    const title = SECTION[r.name]?.[1] ?? OTHER
    if (list.length > LIST_THRESHOLD && r.inverseMany && r.inverseMany.length > 0) {
      for (const chunk of chunks(rng.shuffle(list.slice()), LIST_CHUNK)) push(title, listItem(r, e, chunk, lookup, rng))
    } else {
      for (const edge of list) {
        const sentence = (fill(rng.pick(r.inverse), { s: lookup(edge.source).name, t: e.name }))
        push(title, { sentence, facts: [{ kind: 'edge', ref: edge.id, sentence }] })
      }
    }
  }

  // At most MAX_EDGE_SECTIONS edge sections: the smallest ones merge into "Further information".
  const edgeTitles = [...sections.keys()].filter((t) => t !== OVERVIEW)
  if (edgeTitles.length > MAX_EDGE_SECTIONS) {
    const keep = new Set(
      edgeTitles
        .map((t, i) => ({ t, n: sections.get(t)!.length, i }))
        .sort((a, b) => b.n - a.n || a.i - b.i)
        .slice(0, MAX_EDGE_SECTIONS - 1)
        .map((x) => x.t),
    )
    for (const t of edgeTitles) {
      if (keep.has(t) || t === OTHER) continue
      for (const item of sections.get(t)!) push(OTHER, item)
      sections.delete(t)
    }
  }

  const parts: string[] = [`# ${e.name}`, leadText, ['Infobox', ...infoLines.map((l) => `- ${l}`)].join('\n')]
  const facts: DocFact[] = [...leadFacts, ...infoFacts]
  for (const [title, items] of sections) {
    for (let i = 0; i < config.docs.fillerPerSection; i++) items.push({ sentence: fill(rng.pick(FILLER), vals), facts: [] })
    rng.shuffle(items)
    parts.push(`## ${title}\n${items.map((it) => it.sentence).join(' ')}`)
    for (const it of items) facts.push(...it.facts)
  }
  return { url: e.url, entityId: e.id, title: e.name, text: parts.join('\n\n') + '\n', facts }
}

function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n))
  return out
}

function listItem(r: RelationSpec, target: Entity, edges: Edge[], lookup: EntityLookup, rng: Rng): Item {
  const names = edges.map((ed) => lookup(ed.source).name)
  const sentence = (fill(rng.pick(r.inverseMany!), { t: target.name, list: joinNames(names) }))
  return { sentence, facts: edges.map((ed) => ({ kind: 'edge' as const, ref: ed.id, sentence })) }
}

/** Every document of a world, in entity order. */
export function generateDocs(entities: Entity[], edges: Edge[], config: WorldConfig, onProgress?: (done: number, total: number) => void): Doc[] {
  const byId = new Map(entities.map((e) => [e.id, e]))
  const out = new Map<string, Edge[]>()
  const inc = new Map<string, Edge[]>()
  for (const ed of edges) {
    ;(out.get(ed.source) ?? out.set(ed.source, []).get(ed.source)!).push(ed)
    ;(inc.get(ed.target) ?? inc.set(ed.target, []).get(ed.target)!).push(ed)
  }
  const lookup: EntityLookup = (id) => {
    const e = byId.get(id)
    if (!e) throw new Error(`docs: edge refers to unknown entity ${id}`)
    return e
  }
  return entities.map((e, i) => {
    const d = writeDoc(e, out.get(e.id) ?? [], inc.get(e.id) ?? [], lookup, config)
    if (onProgress && (i % 200 === 0 || i === entities.length - 1)) onProgress(i + 1, entities.length)
    return d
  })
}

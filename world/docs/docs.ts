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
  Country: ['{N} is a country founded in {founded}.', '{N} is a sovereign country that became independent in {founded}.', '{N}, independent since {founded}, is a sovereign state.'],
  City: ['{N} is a city founded in {founded}.', '{N} is a city whose history goes back to {founded}.', 'Founded in {founded}, {n} is a city.'],
  Person: ['{N} (born {born}) is a {occupation}.', '{N} is a {occupation} born in {born}.', '{N}, born in {born}, is a {occupation}.'],
  Company: ['{N} is a {industry} company founded in {founded}.', '{N} is a company in the {industry} industry, founded in {founded}.', 'Founded in {founded}, {n} is a company active in {industry}.'],
  University: ['{N} is a university founded in {founded}.', '{N} is an institution of higher education established in {founded}.', '{N} is a university with origins in {founded}.'],
  Book: ['{N} is a {genre} published in {published}.', '{N} is a {genre} first published in {published}.', 'First published in {published}, {n} is a {genre}.'],
  Film: ['{N} is a {genre} released in {released}.', '{N} is a {released} {genre}.', 'Released in {released}, {n} is a {genre}.'],
  Award: ['{N} is an award in the field of {field}, established in {established}.', '{N} is a prize for {field} first awarded in {established}.', 'Established in {established}, {n} is an award for {field}.'],
  SportsTeam: ['{N} is a {sport} team founded in {founded}.', '{N} is a professional {sport} club established in {founded}.', '{N}, founded in {founded}, is a {sport} team.'],
  Band: ['{N} is a {genre} band formed in {formed}.', '{N} is a {genre} group that formed in {formed}.', 'Formed in {formed}, {n} is a {genre} band.'],
  Album: ['{N} is an album released on {released}.', '{N} is a studio album first released on {released}.', 'Released on {released}, {n} is an album.'],
  Stadium: ['{N} is a stadium opened on {opened}.', '{N} is a sports venue that opened on {opened}.', 'Opened on {opened}, {n} is a stadium.'],
  Museum: ['{N} is a museum opened in {opened}.', '{N} is a museum that first opened its doors in {opened}.', 'Opened in {opened}, {n} is a museum.'],
}
const ATTR_PROSE = [
  'The {label} of {n} is {v}.',
  '{N} has {a} {label} of {v}.',
  'Records give the {label} of {n} as {v}.',
  '{N} has a recorded {label} of {v}.',
  '{N} is recorded with {a} {label} of {v}.',
]
/**
 * Neutral sentences per entity type: they state no checkable fact (no name, number or date besides the subject's own
 * name) and avoid meta-text about sources or sections. Drawn without repetition within one document.
 */
const FILLER: Record<string, string[]> = {
  Country: ['{N} is divided into several administrative regions.', 'The landscape of {n} ranges from lowlands to hill country.', 'The history of {n} has been the subject of many studies.', '{N} maintains diplomatic relations with its neighbours.'],
  City: ['{N} has a historic centre with buildings from several periods.', 'The economy of {n} has changed considerably over time.', '{N} is known for its markets and local festivals.', 'Public transport in {n} includes buses and regional trains.'],
  Person: ['{N} has spoken about their work in a number of interviews.', 'The career of {n} has been covered by the press.', '{N} is regarded as an influential figure in their field.', 'Colleagues have described {n} as meticulous.'],
  Company: ['{N} operates through several business units.', 'The company has reorganised its operations more than once.', '{N} publishes an annual report on its activities.', 'Analysts follow the business of {n} closely.'],
  University: ['{N} offers undergraduate and postgraduate programmes.', 'Research at {n} spans the sciences and the humanities.', 'The campus of {n} includes libraries and laboratories.', '{N} takes part in international exchange programmes.'],
  Book: ['Critics have discussed the style of {n} at length.', '{N} has been translated into several languages.', 'The structure of {n} follows its characters over many years.', '{N} has been reprinted in several editions.'],
  Film: ['{N} was shot on location and in the studio.', 'Reviews of {n} praised its photography.', 'The score of {n} was released separately.', '{N} was screened at several festivals.'],
  Award: ['{N} is presented at an annual ceremony.', 'A jury selects the recipients of {n}.', 'Nominations for {n} are made by professionals in the field.', '{N} is regarded as a distinction of note.'],
  SportsTeam: ['{N} has a loyal base of supporters.', 'The club colours of {n} appear on its crest.', '{N} runs a youth academy.', 'Matches of {n} draw large local crowds.'],
  Band: ['{N} has toured widely.', 'The sound of {n} has changed across its records.', 'Critics have compared {n} to its contemporaries.', '{N} is known for its live performances.'],
  Album: ['{N} was recorded over several sessions.', 'Critics singled out the production of {n}.', 'Several songs from {n} were released as singles.', 'The cover art of {n} became well known.'],
  Stadium: ['{N} has been renovated more than once.', 'The stands of {n} are partly covered.', '{N} also hosts concerts and other events.', 'Public transport serves {n} on match days.'],
  Museum: ['{N} runs a programme of temporary exhibitions.', 'The building of {n} is itself of architectural interest.', '{N} offers guided tours.', 'Parts of the collection of {n} are held in storage.'],
}
const GENERIC_FILLER = ['{N} is described in several reference works.', 'Researchers have written about {n} on a number of occasions.', 'The subject is covered in more detail in specialised literature.']

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
  // Filler sentences are drawn without repetition: a document never says the same empty thing twice.
  const fillers = rng.shuffle((FILLER[e.type] ?? GENERIC_FILLER).slice())
  let nextFiller = 0
  const filler = (): string | undefined => (nextFiller < fillers.length ? fill(fillers[nextFiller++], vals) : undefined)
  // "a actor" → "an actor": the article before a drawn word is fixed after filling.
  const lead = fill(leadTpl, vals).replace(/\b([Aa]) (?=(?:actor|architect|engineer|entrepreneur|animated|electronic|essay|ice)\b)/g, '$1n ')
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
  if (!sections.has(OVERVIEW)) push(OVERVIEW, { sentence: filler() ?? fill(GENERIC_FILLER[0], vals), facts: [] })

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
  // The overview comes first; the other sections and the sentences inside each come in a drawn order.
  const order = [...sections.keys()].filter((t) => t !== OVERVIEW)
  rng.shuffle(order)
  for (const title of [OVERVIEW, ...order]) {
    const items = sections.get(title)
    if (!items) continue
    for (let i = 0; i < config.docs.fillerPerSection; i++) {
      const f = filler()
      if (f !== undefined) items.push({ sentence: f, facts: [] })
    }
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

// world/names: entity names per type from @faker-js/faker across several locales, plus attribute values.
// Every draw is seeded from the caller's Rng (faker instances are re-seeded from it); knows nothing of edges or docs.
// Faker is loaded on demand, one locale module at a time (importing all 77 locales costs ~0.4 s of CPU at every start
// of every command that reaches this file): `knownLocale` only resolves a locale's module, `loadFakers` imports it.
import { createRequire } from 'node:module'
import type { Faker } from '@faker-js/faker'
import { ConfigError } from '../infra/errors'
import type { Rng } from '../infra/rng'
import type { AttrValue } from './types'

/** Draws a candidate name for an entity type; `attrs` (already drawn) keep a name coherent with them (an award's field). */
export type Namer = (type: string, attrs?: Record<string, AttrValue>) => string

const cap = (w: string) => w.replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase())
const letters = (w: string) => w.replace(/[^\p{L}]/gu, '')
/** A surname usable inside titles: letters, apostrophes, hyphens and inner spaces only. */
const surname = (w: string) => w.replace(/[^\p{L}' -]/gu, '').trim()

const COUNTRY_SUFFIX = ['ia', 'land', 'stan', 'onia', 'ania', 'ora', 'esia', 'avia', 'mark', 'eria']
/** The fixed words of makeNamer's templates below ("University of …", "… Medal for …"); namerLexicon lists them. */
const TEMPLATE_WORDS = ['University', 'of', 'Institute', 'Technology', 'College', 'The', 'the', 'A', 'in', 'Return', 'Prize', 'Medal', 'for', 'Award', 'and', 'Arena', 'Park', 'Stadium', 'Field', 'Museum', 'Gallery']
/** uniqueName's disambiguators. */
const ROMANS = ['II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X']
const FIELDS = ['Literature', 'Physics', 'Medicine', 'Architecture', 'Music', 'Cinema', 'Journalism', 'Mathematics', 'Peace', 'Design', 'Photography', 'Engineering']
const MUSEUM_TOPICS = ['Modern Art', 'Natural History', 'Science', 'Maritime History', 'Fine Arts', 'Archaeology', 'Photography', 'Technology', 'Folk Art', 'Design']

const resolveHere = createRequire(import.meta.url).resolve
/** Faker's module of one locale (`@faker-js/faker/locale/de`); its `faker` is the very instance `allFakers.de` is. */
const localeModule = (name: string) => `@faker-js/faker/locale/${name}`

/** Whether `name` is one of faker's locales (its module resolves; nothing is loaded). */
export function knownLocale(name: string): boolean {
  if (name === '' || /[./\\]/.test(name)) return false
  try {
    resolveHere(localeModule(name))
    return true
  } catch {
    return false
  }
}

/** Faker's instances for `locales` and for `en` (the words of titles), keyed by locale, importing only those locales'
 *  modules. Empty list or unknown locale → ConfigError. */
export async function loadFakers(locales: string[]): Promise<Record<string, Faker>> {
  if (locales.length === 0) throw new ConfigError('config.locales', 'config.docs.locales must name at least one faker locale, e.g. ["en_US"]')
  const out: Record<string, Faker> = {}
  for (const loc of [...locales, 'en']) {
    if (Object.prototype.hasOwnProperty.call(out, loc)) continue
    if (!knownLocale(loc)) throw new ConfigError('config.locales', `unknown faker locale '${loc}' in config.docs.locales (e.g. en_US, de, fr)`)
    out[loc] = ((await import(localeModule(loc))) as { faker: Faker }).faker
  }
  return out
}

/** Seeded faker instances for the configured locales, from `loadFakers(locales)` (unknown locale → ConfigError). */
export function makeFakers(rng: Rng, locales: string[], known: Record<string, Faker>): Faker[] {
  if (locales.length === 0) throw new ConfigError('config.locales', 'config.docs.locales must name at least one faker locale, e.g. ["en_US"]')
  return locales.map((loc) => {
    const f = Object.prototype.hasOwnProperty.call(known, loc) ? known[loc] : undefined
    if (!f) throw new ConfigError('config.locales', `unknown faker locale '${loc}' in config.docs.locales (e.g. en_US, de, fr)`)
    f.seed(rng.uint32())
    return f
  })
}

/** A function drawing a candidate name for an entity type (not yet unique); `en` is faker's `en` instance. */
export function makeNamer(rng: Rng, fakers: Faker[], en: Faker): Namer {
  // English words for titles come from a dedicated instance, seeded here so that it never keeps faker's random seed.
  en.seed(rng.uint32())
  const loc = () => rng.pick(fakers)
  const last = () => surname(loc().person.lastName()) || 'Nolan'
  const city = () => loc().location.city()
  const adj = () => cap(en.word.adjective())
  const noun = () => cap(en.word.noun())
  const pick = <T>(xs: T[]) => rng.pick(xs)
  return (type: string, attrs?: Record<string, AttrValue>) => {
    // An award named for a field is named for its own field ("Medal for Literature" is a literature award).
    const field = () => (typeof attrs?.field === 'string' ? cap(attrs.field) : pick(FIELDS))
    switch (type) {
      case 'Country': {
        const stem = letters(last().split(' ')[0])
        return cap(stem.slice(0, rng.int(4, 7)).toLowerCase()) + pick(COUNTRY_SUFFIX)
      }
      case 'City': return city()
      case 'Person': { const f = loc(); return `${f.person.firstName()} ${f.person.lastName()}` }
      case 'Company': return loc().company.name()
      case 'University': return pick([() => `University of ${city()}`, () => `${last()} University`, () => `${city()} Institute of Technology`, () => `${last()} College`])()
      case 'Book': return pick([() => `The ${adj()} ${noun()}`, () => `${noun()} of the ${noun()}`, () => `A ${adj()} ${noun()}`, () => `${adj()} ${noun()}s`])()
      case 'Film': return pick([() => `${adj()} ${noun()}`, () => `The ${noun()} of ${last()}`, () => `${noun()} in ${city()}`, () => `Return of the ${noun()}`])()
      case 'Award': return pick([() => `${last()} Prize`, () => `${last()} Medal for ${field()}`, () => `${adj()} ${noun()} Award`, () => `${last()} Award for ${field()}`])()
      case 'SportsTeam': return `${city()} ${cap(en.animal.type())}s`
      case 'Band': return pick([() => `The ${adj()} ${noun()}s`, () => `${noun()} ${noun()}`, () => `${adj()} ${noun()}`])()
      case 'Album': return pick([() => `${adj()} ${noun()}`, () => `${noun()}s and ${noun()}s`, () => `The ${noun()}`])()
      case 'Stadium': return pick([() => `${last()} Arena`, () => `${last()} Park`, () => `${city()} Stadium`, () => `${last()} Field`])()
      case 'Museum': return pick([() => `${city()} Museum of ${pick(MUSEUM_TOPICS)}`, () => `${last()} Gallery`, () => `Museum of ${pick(MUSEUM_TOPICS)} ${city()}`])()
      default: return `${cap(type)} ${last()}`
    }
  }
}

/** Faker's lists that makeNamer's draws read, per locale (person, city and company names) and from `en` alone (the
 *  words of titles). A pattern ("{{person.lastName}} und {{person.lastName}}") contributes its literal words. */
const LOCALE_LISTS: [string, string][] = [
  ['person', 'first_name'], ['person', 'last_name'], ['person', 'last_name_pattern'],
  ['location', 'city_name'], ['location', 'city_prefix'], ['location', 'city_suffix'], ['location', 'city_infix'], ['location', 'city_pattern'],
  ['company', 'legal_entity_type'], ['company', 'name_pattern'],
]
const EN_LISTS: [string, string][] = [['word', 'adjective'], ['word', 'noun'], ['animal', 'type']]

/** Every string leaf of a faker definition (arrays, { generic, female, male } maps, { value, weight } entries). */
function leaves(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) leaves(x, out)
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    if (typeof o.value === 'string' && typeof o.weight === 'number') out.push(o.value)
    else for (const k of Object.keys(o)) leaves(o[k], out)
  }
}

/**
 * Every word and name part the name generator draws from for `locales` (a world config's docs.locales): faker's first
 * names, last names, city names and their prefixes/suffixes, company forms, the English adjectives, nouns and animals
 * of titles, and makeNamer's own suffixes, fields, topics and template words. A tokenizer trained on these besides a
 * world's pages has seen the parts of every name an unseen seed can draw (model init --tokenizer bpe:DIRS).
 * Deduplicated, in a fixed order (list by list, locale by locale). Unknown locale → ConfigError.
 */
export async function namerLexicon(locales: string[]): Promise<string[]> {
  const fakers = await loadFakers(locales)
  const raw: string[] = []
  const list = (f: Faker, mod: string, key: string): unknown => {
    // Faker's definitions (a locale's own, then its fallbacks) throw on a list no locale in the chain has (city_infix).
    try {
      return (f.definitions as unknown as Record<string, Record<string, unknown> | undefined>)[mod]?.[key]
    } catch {
      return undefined
    }
  }
  for (const loc of locales) for (const [mod, key] of LOCALE_LISTS) leaves(list(fakers[loc], mod, key), raw)
  for (const [mod, key] of EN_LISTS) leaves(list(fakers.en, mod, key), raw)
  raw.push(...COUNTRY_SUFFIX, ...FIELDS, ...MUSEUM_TOPICS, ...TEMPLATE_WORDS, ...ROMANS)
  const out = new Set<string>()
  for (const r of raw)
    for (const part of r.split(/\{\{[^}]*\}\}/)) {
      const t = part.trim()
      // A pattern's glue between placeholders (" - ", ", ") holds no letters: nothing to learn.
      if (/\p{L}/u.test(t)) out.add(t)
    }
  return [...out]
}

/** Unique name within a type: redraw a few times, then disambiguate with a roman numeral. */
export function uniqueName(draw: () => string, taken: Set<string>): string {
  for (let i = 0; i < 12; i++) {
    const n = draw().trim()
    if (n && !taken.has(n)) return n
  }
  const base = draw().trim()
  for (const r of ROMANS) if (!taken.has(`${base} ${r}`)) return `${base} ${r}`
  let k = 11
  while (taken.has(`${base} ${k}`)) k++
  return `${base} ${k}`
}

const CURRENCIES = ['krona', 'dinar', 'florin', 'mark', 'peso', 'crown', 'lira', 'real', 'ducat', 'thaler', 'rand', 'franc']
const OCCUPATIONS = ['writer', 'film director', 'actor', 'entrepreneur', 'scientist', 'musician', 'politician', 'athlete', 'architect', 'painter', 'journalist', 'engineer']
const INDUSTRIES = ['publishing', 'film production', 'software', 'banking', 'retail', 'energy', 'music recording', 'telecommunications', 'manufacturing', 'logistics']
const BOOK_GENRES = ['novel', 'short story collection', 'biography', 'poetry collection', 'history', 'essay collection', 'crime novel', 'science fiction novel']
const FILM_GENRES = ['drama', 'comedy', 'thriller', 'documentary', 'science fiction film', 'romance', 'western', 'animated film']
const SPORTS = ['football', 'basketball', 'ice hockey', 'handball', 'volleyball', 'rugby', 'baseball']
const MUSIC_GENRES = ['rock', 'jazz', 'folk', 'electronic', 'pop', 'punk', 'blues', 'metal']

const logn = (rng: Rng, mu: number, sigma: number) => Math.exp(rng.normal(mu, sigma))
const round1 = (x: number) => Math.round(x * 10) / 10
const pad2 = (n: number) => String(n).padStart(2, '0')
const isoDate = (rng: Rng, lo: number, hi: number) => `${rng.int(lo, hi)}-${pad2(rng.int(1, 12))}-${pad2(rng.int(1, 28))}`

/** Award fields by weight: books and films need literature and cinema awards (world/schema pairingCoherent). */
const AWARD_FIELD_WEIGHTS: [string, number][] = [
  ['literature', 3], ['cinema', 3], ['music', 2], ['physics', 1], ['medicine', 1], ['architecture', 1], ['journalism', 1],
  ['mathematics', 1], ['peace', 1], ['design', 1], ['photography', 1], ['engineering', 1],
]
/** The first awards of a world take these fields, so that even a tiny world has a book prize and a film prize. */
const FIRST_AWARD_FIELDS = ['literature', 'cinema']

/** Attribute values for one entity of a type (keys and kinds match world/schema's ENTITY_TYPES); `index` = its rank in its type. */
export function drawAttributes(type: string, rng: Rng, index = 0): Record<string, AttrValue> {
  switch (type) {
    case 'Country': return { founded: rng.int(800, 1995), population: Math.max(50000, Math.round(logn(rng, 15.8, 1.2))), area: round1(Math.max(500, logn(rng, 11.5, 1.3))), currency: rng.pick(CURRENCIES) }
    case 'City': return { founded: rng.int(600, 1950), population: Math.max(1500, Math.round(logn(rng, 11.5, 1.3))), area: round1(Math.max(4, logn(rng, 4.5, 1))), elevation: rng.int(0, 2400) }
    case 'Person': return { born: rng.int(1850, 2003), height: rng.int(150, 201), occupation: rng.pick(OCCUPATIONS) }
    case 'Company': return { founded: rng.int(1850, 2022), revenue: round1(Math.max(0.5, logn(rng, 5, 1.6))), employees: Math.max(5, Math.round(logn(rng, 7, 1.7))), industry: rng.pick(INDUSTRIES) }
    case 'University': return { founded: rng.int(1150, 2015), students: rng.int(800, 65000), endowment: round1(Math.max(1, logn(rng, 6, 1.5))) }
    case 'Book': return { published: rng.int(1880, 2024), pages: rng.int(90, 1200), genre: rng.pick(BOOK_GENRES) }
    case 'Film': return { released: rng.int(1920, 2024), runtime: rng.int(70, 210), budget: round1(Math.max(0.1, logn(rng, 2.5, 1.2))), genre: rng.pick(FILM_GENRES) }
    case 'Award': {
      const drawn = AWARD_FIELD_WEIGHTS[rng.weightedIndex(AWARD_FIELD_WEIGHTS.map((f) => f[1]))][0]
      return { established: rng.int(1850, 1995), prizeMoney: rng.int(1, 1000) * 1000, field: FIRST_AWARD_FIELDS[index] ?? drawn }
    }
    case 'SportsTeam': return { founded: rng.int(1860, 2015), championships: rng.int(0, 30), sport: rng.pick(SPORTS) }
    case 'Band': return { formed: rng.int(1955, 2020), members: rng.int(2, 8), genre: rng.pick(MUSIC_GENRES) }
    case 'Album': return { released: isoDate(rng, 1960, 2024), tracks: rng.int(6, 22), length: rng.int(28, 80) }
    case 'Stadium': return { opened: isoDate(rng, 1890, 2022), capacity: rng.int(40, 900) * 100 }
    case 'Museum': return { opened: rng.int(1750, 2022), visitors: rng.int(5, 5000) * 1000, collection: rng.int(200, 2000000) }
    default: return {}
  }
}

// Tests for world/names' namerLexicon: the parts of every name makeNamer can draw, whatever the seed.
import { Rng } from '../infra/rng'
import { loadFakers, makeFakers, makeNamer, namerLexicon } from './names'
import { ENTITY_TYPES } from './schema'

const LOCALES = ['en_US', 'en_GB', 'de', 'fr', 'es', 'it']
const lower = (s: string) => s.toLocaleLowerCase('en')
const runs = (s: string) => s.match(/\p{L}+/gu) ?? []

describe('namerLexicon', () => {
  let lexicon: string[]
  beforeAll(async () => {
    lexicon = await namerLexicon(LOCALES)
  })

  it('lists faker parts of every configured locale, the English title words and the namer’s own words, once each', () => {
    expect(new Set(lexicon).size).toBe(lexicon.length)
    for (const w of ['Müller', 'Dubois', 'García', 'Rossi', 'Smith', 'ville', 'GmbH', 'und', 'stan', 'Literature', 'Natural History', 'Medal', 'VIII']) expect(lexicon).toContain(w)
    // No pattern placeholders leak through.
    expect(lexicon.filter((w) => w.includes('{{'))).toEqual([])
  })

  it('is the same list on every call, and a locale more only adds to it', async () => {
    expect(await namerLexicon(LOCALES)).toEqual(lexicon)
    const en = await namerLexicon(['en_US'])
    expect(en.length).toBeLessThan(lexicon.length)
    expect(en.filter((w) => !lexicon.includes(w))).toEqual([])
    await expect(namerLexicon(['xx_YY'])).rejects.toThrow(/unknown faker locale/)
  })

  it('covers every letter run of names drawn from unseen seeds: a lexicon word, or a word prefix glued to one (Countries, cities)', async () => {
    const words = new Set(lexicon.flatMap(runs).map(lower))
    const prefixes = new Set<string>()
    for (const w of words) for (let i = 1; i <= w.length; i++) prefixes.add(w.slice(0, i))
    const covered = (r: string) => {
      const l = lower(r)
      if (words.has(l)) return true
      for (let i = 1; i < l.length; i++) if (prefixes.has(l.slice(0, i)) && words.has(l.slice(i))) return true
      return false
    }
    const known = await loadFakers(LOCALES)
    const missed: string[] = []
    let drawn = 0
    for (const seed of [101, 202, 303]) {
      const rng = new Rng(seed)
      const namer = makeNamer(rng, makeFakers(rng, LOCALES, known), known.en)
      for (const t of ENTITY_TYPES)
        for (let i = 0; i < 150; i++) {
          const name = namer(t.name)
          drawn++
          for (const r of runs(name)) if (!covered(r)) missed.push(`${t.name}: ${r} (${name})`)
        }
    }
    expect(drawn).toBeGreaterThan(5000)
    // Plurals of title nouns ("Lions and Tigers") are a noun plus "s": the one glue the lexicon need not spell out.
    expect(missed.filter((m) => !/s \(/.test(m))).toEqual([])
  })
})

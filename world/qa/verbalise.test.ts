// Tests of the phrase filling rules: no doubled articles, "a …" phrases said as "the only …".
import { fill } from './verbalise'

describe('fill', () => {
  const nouns = new Set(['film', 'museum'])
  it('turns an indefinite phrase into "the only"', () => {
    expect(fill('a city in {t}', 't', 'France')).toBe('the only city in France')
    expect(fill('an award won by {s}', 's', 'X')).toBe('the only award won by X')
  })
  it('drops an article or apposition before a phrase that has its own determiner', () => {
    expect(fill('the country that presents the {s}', 's', 'the only award won by X', nouns)).toBe('the country that presents the only award won by X')
    expect(fill('What prize did the film {s} win?', 's', 'the only film directed by Y', nouns)).toBe('What prize did the only film directed by Y win?')
    expect(fill('the country that presents the {s}', 's', 'Nobel Prize', nouns)).toBe('the country that presents the Nobel Prize')
  })
  it('keeps a head noun that is not an apposition', () => {
    expect(fill('the team {s} plays for', 's', 'the parent of X', nouns)).toBe('the team the parent of X plays for')
  })
})

// world/docs/docs.test: number/date formatting, name lists, and one document's facts are exact substrings.
import { DEFAULT_CONFIG } from '../config'
import { formatAttr, joinNames, writeDoc } from './docs'
import type { Edge, Entity } from '../types'

test('formatAttr is locale independent', () => {
  expect(formatAttr({ name: 'p', kind: 'int', label: 'population' }, 1234567)).toBe('1,234,567')
  expect(formatAttr({ name: 'a', kind: 'float', label: 'area', unit: 'km²' }, 16342.25)).toBe('16,342.3 km²')
  expect(formatAttr({ name: 'y', kind: 'year', label: 'year' }, 1999)).toBe('1999')
  expect(formatAttr({ name: 'd', kind: 'date', label: 'date' }, '1954-03-12')).toBe('12 March 1954')
  expect(formatAttr({ name: 'n', kind: 'int', label: 'n' }, 999)).toBe('999')
})

test('joinNames', () => {
  expect(joinNames(['A'])).toBe('A')
  expect(joinNames(['A', 'B'])).toBe('A and B')
  expect(joinNames(['A', 'B', 'C'])).toBe('A, B and C')
})

test('a document states its edges from both sides and records exact sentences', () => {
  const book: Entity = { id: 'book-1', type: 'Book', name: 'The Red Door', attrs: { published: 1990, pages: 300, genre: 'novel' }, url: 'u/book' }
  const author: Entity = { id: 'person-1', type: 'Person', name: 'Ana Ruiz', attrs: { born: 1950, height: 170, occupation: 'writer' }, url: 'u/ana' }
  const edge: Edge = { id: 'e-1', relation: 'written_by', source: 'book-1', target: 'person-1' }
  const lookup = (id: string) => (id === 'book-1' ? book : author)
  const dBook = writeDoc(book, [edge], [], lookup, DEFAULT_CONFIG)
  const dAuthor = writeDoc(author, [], [edge], lookup, DEFAULT_CONFIG)
  for (const d of [dBook, dAuthor]) {
    const facts = d.facts.filter((f) => f.ref === 'e-1')
    expect(facts.length).toBeGreaterThan(0)
    for (const f of facts) {
      expect(d.text).toContain(f.sentence)
      expect(f.sentence).toContain('The Red Door')
      expect(f.sentence).toContain('Ana Ruiz')
    }
    for (const f of d.facts) expect(d.text).toContain(f.sentence)
  }
  expect(dBook.facts.some((f) => f.ref === 'book-1#pages' && f.sentence.includes('300'))).toBe(true)
  expect(dBook.text.startsWith('# The Red Door\n')).toBe(true)
  expect(writeDoc(book, [edge], [], lookup, DEFAULT_CONFIG)).toEqual(dBook)
})

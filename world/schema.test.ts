// world/schema.test: the schema is complete and its phrasings are usable by docs, QA and verification.
import { ENTITY_TYPES, RELATIONS, RELATION_PLAN, entityType, datesCoherent, yearOf } from './schema'

test('at least 10 entity types with numeric attributes', () => {
  expect(ENTITY_TYPES.length).toBeGreaterThanOrEqual(10)
  for (const t of ENTITY_TYPES) {
    expect(t.attributes.some((a) => a.kind === 'int' || a.kind === 'float')).toBe(true)
    expect(t.attributes.some((a) => a.kind === 'year' || a.kind === 'date')).toBe(true)
  }
  expect(new Set(ENTITY_TYPES.map((t) => t.name)).size).toBe(ENTITY_TYPES.length)
})

test('at least 25 relations, every field filled with usable phrasings', () => {
  expect(RELATIONS.length).toBeGreaterThanOrEqual(25)
  expect(new Set(RELATIONS.map((r) => r.name)).size).toBe(RELATIONS.length)
  for (const r of RELATIONS) {
    expect(entityType(r.domain)).toBeDefined()
    expect(entityType(r.range)).toBeDefined()
    expect(RELATION_PLAN[r.name]).toBeDefined()
    for (const s of [...r.forward, ...r.inverse]) {
      expect(s).toContain('{s}')
      expect(s).toContain('{t}')
      expect(s.endsWith('.')).toBe(true)
    }
    for (const s of r.inverseMany ?? []) expect(s.includes('{t}') && s.includes('{list}')).toBe(true)
    expect(r.forward.length).toBeGreaterThanOrEqual(2)
    expect(r.inverse.length).toBeGreaterThanOrEqual(2)
    for (const s of [...r.targetPhrases, ...r.questions]) expect(s).toContain('{s}')
    for (const s of r.sourcePhrases) expect(s).toContain('{t}')
    expect(r.questions.every((q) => q.endsWith('?'))).toBe(true)
    expect(r.keywords.length).toBeGreaterThan(0)
  }
})

test('date coherence', () => {
  expect(datesCoherent('written_by', { published: 1990 }, { born: 1950 })).toBe(true)
  expect(datesCoherent('written_by', { published: 1940 }, { born: 1950 })).toBe(false)
  expect(datesCoherent('child_of', { born: 1980 }, { born: 1950 })).toBe(true)
  expect(datesCoherent('child_of', { born: 1950 }, { born: 1980 })).toBe(false)
  expect(yearOf('1999-04-02')).toBe(1999)
})

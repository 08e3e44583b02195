// world/graph/roles.test: the coherent pairings of a generated world — prizes by field, names that say their field,
// occupations and industries that follow what an entity does in the graph.
import { presetConfig } from '../config'
import { generateWorld } from './graph'

const { entities, edges } = await generateWorld(presetConfig('small'))
const byId = new Map(entities.map((e) => [e.id, e]))

test('books win literature prizes, films cinema prizes; an award named for a field is of that field', () => {
  const prizes = edges.filter((e) => e.relation === 'book_award' || e.relation === 'film_award')
  expect(prizes.length).toBeGreaterThan(20)
  for (const e of prizes) expect([e.relation, byId.get(e.target)!.attrs.field]).toEqual([e.relation, e.relation === 'book_award' ? 'literature' : 'cinema'])
  const named = entities.filter((e) => e.type === 'Award' && / for [A-Z]/.test(e.name))
  expect(named.length).toBeGreaterThan(0)
  for (const a of named) expect(a.name.toLowerCase().endsWith(` for ${a.attrs.field}`)).toBe(true)
})

test('a person with one kind of role has the matching occupation; publishers are in publishing', () => {
  const roles = new Map<string, Set<string>>()
  const add = (id: string, r: string) => (roles.get(id) ?? roles.set(id, new Set()).get(id)!).add(r)
  for (const e of edges) {
    if (['directed_by', 'written_by', 'stars', 'mayor', 'published_by'].includes(e.relation)) add(e.target, e.relation)
    if (['plays_for', 'member_of'].includes(e.relation)) add(e.source, e.relation)
    if (['coached_by', 'rector', 'founded_by', 'ceo', 'produced_by', 'record_label'].includes(e.relation)) add(e.target, e.relation)
  }
  const want: Record<string, [string, string]> = {
    directed_by: ['occupation', 'film director'], written_by: ['occupation', 'writer'], stars: ['occupation', 'actor'],
    mayor: ['occupation', 'politician'], plays_for: ['occupation', 'athlete'], member_of: ['occupation', 'musician'],
    published_by: ['industry', 'publishing'], produced_by: ['industry', 'film production'], record_label: ['industry', 'music recording'],
  }
  let checked = 0
  for (const [id, rs] of roles) {
    if (rs.size !== 1) continue
    const [r] = [...rs]
    if (!want[r]) continue
    const [attr, value] = want[r]
    expect([id, byId.get(id)!.attrs[attr]]).toEqual([id, value])
    checked++
  }
  expect(checked).toBeGreaterThan(50)
})

// world/graph/graph.test: the generator is deterministic per seed and honours counts and homonyms (tiny worlds).
import { presetConfig } from '../config'
import { generateWorld } from './graph'
import { slugify, entityUrls } from './urls'

test('same seed, same world; other seed, other world', async () => {
  const a = await generateWorld(presetConfig('tiny'))
  const b = await generateWorld(presetConfig('tiny'))
  const c = await generateWorld({ ...presetConfig('tiny'), seed: 99 })
  expect(b.entities).toEqual(a.entities)
  expect(b.edges).toEqual(a.edges)
  expect(c.entities.map((e) => e.name)).not.toEqual(a.entities.map((e) => e.name))
})

test('counts per type come from config.entities', async () => {
  const cfg = presetConfig('tiny')
  cfg.entities = { Country: 2, City: 6, Person: 10 }
  const w = await generateWorld(cfg)
  expect(w.entities.filter((e) => e.type === 'City')).toHaveLength(6)
  expect(w.entities).toHaveLength(18)
  expect(w.graph.order).toBe(18)
  expect(w.graph.size).toBe(w.edges.length)
  for (const e of w.entities) expect(w.graph.degree(e.id)).toBeGreaterThan(0)
})

test('URLs: slugs are ASCII, clashes disambiguated', () => {
  expect(slugify('São Paulo FC')).toBe('Sao_Paulo_FC')
  const urls = entityUrls([
    { id: 'a', type: 'Person', name: 'Jo Li', attrs: {}, url: '' },
    { id: 'b', type: 'Person', name: 'Jo Li', attrs: {}, url: '' },
    { id: 'c', type: 'Person', name: 'Jo Li', attrs: {}, url: '' },
  ])
  expect([...urls.values()]).toEqual(['https://searchgym.local/wiki/Jo_Li', 'https://searchgym.local/wiki/Jo_Li_(person)', 'https://searchgym.local/wiki/Jo_Li_(person_2)'])
})

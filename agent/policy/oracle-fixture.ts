// agent/policy/oracle-fixture: a FIXTURE for oracle tests — the gym's six fixture documents given a graph (entities,
// edges of real schema relations) and QA with gold paths, evidence and meta in the QA stage's format.
import { FIXTURE_DOCS } from '../../gym/fixtures/fixture-world'
import type { Edge, Entity, Qa } from '../../world/types'
import type { OracleKnowledge } from './oracle-plan'

const url = (t: string) => FIXTURE_DOCS.find((d) => d.title === t)!.url
const e = (id: string, type: string, name: string, attrs: Entity['attrs']): Entity => ({ id, type, name, attrs, url: url(name) })

export const ORACLE_ENTITIES: Entity[] = [
  e('p1', 'Person', 'Marie Alder', { born: 1931 }),
  e('b1', 'Book', 'The Glass Orchard', { published: 1962 }),
  e('c1', 'Company', 'Harrow House', { founded: 1899 }),
  e('y1', 'City', 'Brenlow', { population: 412000 }),
  e('y2', 'City', 'Velmora', { population: 38500 }),
  e('u1', 'University', 'University of Tessin', { founded: 1788 }),
]
export const ORACLE_EDGES: Edge[] = [
  { id: 'e1', relation: 'written_by', source: 'b1', target: 'p1' },
  { id: 'e2', relation: 'published_by', source: 'b1', target: 'c1' },
  { id: 'e3', relation: 'headquartered_in', source: 'c1', target: 'y1' },
  { id: 'e4', relation: 'born_in', source: 'p1', target: 'y2' },
]

const base = { aliases: [], docs: [], split: 'train' as const }
const chainMA = { start: 'p1', desc: { kind: 'name' }, steps: [{ rel: 'written_by', dir: 'inv' }, { rel: 'published_by', dir: 'fwd' }, { rel: 'headquartered_in', dir: 'fwd' }], edges: ['e1', 'e2', 'e3'] }
const ev = {
  e1: { url: url('Marie Alder'), sentence: 'She wrote the novel The Glass Orchard in 1962.' },
  e2: { url: url('The Glass Orchard'), sentence: 'It was published by Harrow House.' },
  e3: { url: url('Harrow House'), sentence: 'Its headquarters are in Brenlow.' },
  e4: { url: url('Velmora'), sentence: 'The novelist Marie Alder was born in Velmora.' },
}

export const ORACLE_QA: Qa[] = [
  {
    ...base,
    id: 's-3hop',
    type: 'simple',
    hops: 3,
    question: 'In which city is the headquarters of the publisher of the novel written by Marie Alder?',
    answer: 'Brenlow',
    path: ['e1', 'e2', 'e3'],
    evidence: [{ hop: 0, ...ev.e1 }, { hop: 1, ...ev.e2 }, { hop: 2, ...ev.e3 }],
    meta: { chain: chainMA, terminal: { kind: 'entity' }, template: 't' },
  },
  {
    ...base,
    id: 's-attr',
    type: 'simple',
    hops: 1,
    question: 'In what year was the publisher of The Glass Orchard founded?',
    answer: '1899',
    path: ['e2'],
    evidence: [{ hop: 0, ...ev.e2 }, { hop: -1, url: url('Harrow House'), sentence: 'Harrow House is a publishing company founded in 1899.' }],
    meta: { chain: { start: 'b1', desc: { kind: 'name' }, steps: [{ rel: 'published_by', dir: 'fwd' }], edges: ['e2'] }, terminal: { kind: 'attr', attr: 'founded' }, template: 't' },
  },
  {
    ...base,
    id: 'p-compare',
    type: 'parallel',
    hops: 2,
    question: 'Which has the larger population: the city where Harrow House has its headquarters, or the birthplace of Marie Alder?',
    answer: 'Brenlow',
    path: ['e3', 'e4'],
    evidence: [{ hop: 0, ...ev.e3 }, { hop: 1, ...ev.e4 }],
    meta: {
      op: 'compare',
      attr: 'population',
      order: 'max',
      a: { start: 'c1', desc: { kind: 'name' }, steps: [{ rel: 'headquartered_in', dir: 'fwd' }], edges: ['e3'] },
      b: { start: 'p1', desc: { kind: 'name' }, steps: [{ rel: 'born_in', dir: 'fwd' }], edges: ['e4'] },
      template: 't',
    },
  },
  {
    ...base,
    id: 'p-sum',
    type: 'parallel',
    hops: 2,
    question: 'What is the combined population of the city where Harrow House has its headquarters and the birthplace of Marie Alder?',
    answer: '450,500',
    path: ['e3', 'e4'],
    evidence: [{ hop: 0, ...ev.e3 }, { hop: 1, ...ev.e4 }],
    meta: {
      op: 'sum',
      attr: 'population',
      a: { start: 'c1', desc: { kind: 'name' }, steps: [{ rel: 'headquartered_in', dir: 'fwd' }], edges: ['e3'] },
      b: { start: 'p1', desc: { kind: 'name' }, steps: [{ rel: 'born_in', dir: 'fwd' }], edges: ['e4'] },
      template: 't',
    },
  },
  {
    ...base,
    id: 'c-compare-chain',
    type: 'combo',
    hops: 3,
    question: 'Of the city where Harrow House has its headquarters and the birthplace of Marie Alder, take the more populous; in what year was the company headquartered there founded?',
    answer: '1899',
    path: ['e3', 'e4', 'e3'],
    evidence: [{ hop: 0, ...ev.e3 }, { hop: 1, ...ev.e4 }, { hop: 2, ...ev.e3 }],
    meta: {
      kind: 'compare-chain',
      part1: {
        attr: 'population',
        order: 'max',
        a: { start: 'c1', desc: { kind: 'name' }, steps: [{ rel: 'headquartered_in', dir: 'fwd' }], edges: ['e3'] },
        b: { start: 'p1', desc: { kind: 'name' }, steps: [{ rel: 'born_in', dir: 'fwd' }], edges: ['e4'] },
      },
      part2: { steps: [{ rel: 'headquartered_in', dir: 'inv' }], edges: ['e3'], terminal: { kind: 'attr', attr: 'founded' } },
      template: 't',
    },
  },
  {
    ...base,
    id: 'c-param',
    type: 'combo',
    hops: 1,
    question: 'Which city has the same population as the city where Harrow House has its headquarters?',
    answer: 'Brenlow',
    path: ['e3'],
    evidence: [{ hop: 0, ...ev.e3 }, { hop: -1, url: url('Brenlow'), sentence: 'Brenlow is a city in Ostria with a population of 412,000.' }],
    meta: {
      kind: 'param',
      part1: { chain: { start: 'c1', desc: { kind: 'name' }, steps: [{ rel: 'headquartered_in', dir: 'fwd' }], edges: ['e3'] }, attr: 'population' },
      pick: { type: 'City', attr: 'population' },
      part2: { steps: [], edges: [], terminal: { kind: 'entity' } },
      template: 't',
    },
  },
]

export const ORACLE_KNOWLEDGE: OracleKnowledge = {
  entity: (id) => ORACLE_ENTITIES.find((x) => x.id === id),
  edge: (id) => ORACLE_EDGES.find((x) => x.id === id),
  verifiedQueries: () => [],
  entitiesWith: (type, attr, value) => ORACLE_ENTITIES.filter((x) => x.type === type && x.attrs[attr] === value),
}

// world/verify-keep-rule: the keep rule at its boundary — an edge with exactly minHits hits is kept, one with
// minHits − 1 is not — and the top-K edge: a target ranked exactly K counts as a hit, ranked K + 1 does not.
// Real embedded BM25 index over a small hand-written world; the thresholds are set from the hits it measures.
import Database from 'better-sqlite3'
import type { Db } from '../../infra/store'
import { EmbeddedIndex } from '../search/embedded'
import { readSearchDocs } from '../indexing/open'
import type { EntityTypeSpec, RelationSpec } from '../types'
import { verifyEdges, type VerifySchema } from './verify'

const TYPES: EntityTypeSpec[] = [
  { name: 'Person', noun: 'person', attributes: [] },
  { name: 'City', noun: 'city', attributes: [] },
]
const BORN_IN: RelationSpec = {
  name: 'born_in', domain: 'Person', range: 'City', cardinality: 'n-1',
  forward: ['{s} was born in {t}.', 'The birthplace of {s} is {t}.'],
  inverse: ['{t} is the birthplace of {s}.', '{s} is a native of {t}.'],
  targetPhrases: ['the birthplace of {s}', 'the city where {s} was born'],
  sourcePhrases: ['a person born in {t}'],
  questions: ['Where was {s} born?', 'In which city was {s} born?'],
  keywords: ['born', 'birthplace'],
}
const SCHEMA: VerifySchema = { relations: [BORN_IN], types: TYPES }

/** People whose birth city is named with more or less support, so hits spread over 0..15; 30 filler cities. */
function world(): Db {
  const db = new Database(':memory:')
  db.exec(`
    CREATE TABLE entities (id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL UNIQUE);
    CREATE TABLE edges (id TEXT PRIMARY KEY, relation TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL);
    CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, text TEXT NOT NULL);
  `)
  const ents: [string, string, string, string][] = [
    ['P1', 'Person', 'Mabel Smith', 'Mabel Smith is a novelist. Mabel Smith was born in Dorchester.'],
    ['P2', 'Person', 'John Carter', 'John Carter is a poet from Lyon.'],
    ['P3', 'Person', 'Ana Lopez', 'Ana Lopez is a painter.'],
    ['P4', 'Person', 'Ivo Brandt', 'Ivo Brandt is a sailor; Ivo Brandt was born at sea near Kessel.'],
    ['C1', 'City', 'Dorchester', 'Dorchester is a city. Dorchester is the birthplace of Mabel Smith. Mabel Smith was born in Dorchester.'],
    ['C2', 'City', 'Lyon', 'Lyon is a city on two rivers where the poet Carter lived.'],
    ['C3', 'City', 'Tarragona', 'Tarragona is a city by the sea with old walls.'],
    ['C4', 'City', 'Kessel', 'Kessel is a harbour city. Brandt sailed from Kessel.'],
  ]
  for (let i = 0; i < 30; i++)
    ents.push([`F${String(i).padStart(2, '0')}`, 'City', `Hamlet ${i}`, `Hamlet ${i} is a small city where a person was born; the birthplace of many.`])
  const insE = db.prepare('INSERT INTO entities VALUES (?, ?, ?, ?)')
  const insD = db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?)')
  for (const [id, type, name, text] of ents) {
    const url = `https://fixture.test/wiki/${name.replace(/ /g, '_')}`
    insE.run(id, type, name, url)
    insD.run(url, id, name, text)
  }
  const insEdge = db.prepare('INSERT INTO edges VALUES (?, ?, ?, ?)')
  insEdge.run('E1', 'born_in', 'P1', 'C1')
  insEdge.run('E2', 'born_in', 'P2', 'C2')
  insEdge.run('E3', 'born_in', 'P3', 'C3')
  insEdge.run('E4', 'born_in', 'P4', 'C4')
  return db
}

const BASE = { schema: SCHEMA, seed: 5, queriesPerEdge: 15, minHits: 1, topK: 5, quiet: true }

async function run(opts: Partial<typeof BASE>): Promise<{ db: Db; rows: Map<string, { hits: number; kept: number }> }> {
  const db = world()
  const idx = new EmbeddedIndex()
  await idx.upsert(readSearchDocs(db))
  await verifyEdges(db, idx, { ...BASE, ...opts })
  const rows = db.prepare('SELECT edge_id, hits, kept FROM edge_verification').all() as { edge_id: string; hits: number; kept: number }[]
  return { db, rows: new Map(rows.map((r) => [r.edge_id, { hits: r.hits, kept: r.kept }])) }
}

describe('verification keep rule: kept iff hits >= minHits', () => {
  it('an edge with exactly minHits hits is kept; with minHits − 1 hits (minHits one above) it is dropped', async () => {
    const measured = (await run({})).rows
    // An edge strictly between 0 and 15 hits makes both sides of the boundary reachable.
    const inner = [...measured].filter(([, r]) => r.hits >= 2 && r.hits <= 14)
    expect(inner.length).toBeGreaterThan(0)
    for (const [id, { hits }] of inner) {
      const atBoundary = (await run({ minHits: hits })).rows.get(id)!
      expect({ id, hits: atBoundary.hits, kept: atBoundary.kept }).toEqual({ id, hits, kept: 1 })
      const above = (await run({ minHits: hits + 1 })).rows.get(id)!
      expect({ id, hits: above.hits, kept: above.kept }).toEqual({ id, hits, kept: 0 })
    }
  })

  it('minHits = queriesPerEdge keeps only an edge found by every query; minHits = 1 keeps any edge found once', async () => {
    const all = (await run({ minHits: 15 })).rows
    for (const [, r] of all) expect(r.kept).toBe(r.hits === 15 ? 1 : 0)
    const one = (await run({ minHits: 1 })).rows
    for (const [, r] of one) expect(r.kept).toBe(r.hits >= 1 ? 1 : 0)
    expect([...one.values()].some((r) => r.hits === 0)).toBe(true) // E3: Tarragona never names Ana Lopez
  })
})

describe('verification top-K edge: a target at rank exactly K is a hit, at rank K + 1 it is not', () => {
  it('hits at topK = k equal the queries whose rank at topK = 5 lies in 1..k', async () => {
    const wide = await run({ topK: 5 })
    const ranks = wide.db.prepare('SELECT edge_id, rank FROM verification_queries').all() as { edge_id: string; rank: number }[]
    const deep = ranks.filter((r) => r.rank >= 2)
    expect(deep.length).toBeGreaterThan(0) // some target sits below the top result: the edge is exercised
    for (const k of [1, 2, 3, 4]) {
      const narrow = await run({ topK: k })
      const qs = narrow.db.prepare('SELECT edge_id, rank, top_urls FROM verification_queries').all() as { edge_id: string; rank: number; top_urls: string }[]
      for (const q of qs) expect(JSON.parse(q.top_urls).length).toBeLessThanOrEqual(k)
      for (const [id, r] of narrow.rows) {
        const expected = ranks.filter((x) => x.edge_id === id && x.rank >= 1 && x.rank <= k).length
        expect({ id, k, hits: r.hits }).toEqual({ id, k, hits: expected })
      }
    }
  })
})

// world/verify/verify.test: edge verification on a small hand-made world — kept iff hits >= minHits, every query stored,
// resumable in chunks with identical results, deterministic, stored queries re-run to the same ranks.
import Database from 'better-sqlite3'
import type { Db } from '../../infra/store'
import { EmbeddedIndex } from '../search/embedded'
import { readSearchDocs } from '../indexing/open'
import type { EntityTypeSpec, RelationSpec } from '../types'
import { countVerifiedEdges, verificationComplete, verificationHashRows, verifyEdges, type VerifySchema } from './verify'
import { formatVerifyReport, verificationReport } from './verify-report'
import { candidateQueries, edgeQueries, edgeQueryRng, queryKey } from './verify-queries'

const TYPES: EntityTypeSpec[] = [
  { name: 'Person', noun: 'person', attributes: [] },
  { name: 'City', noun: 'city', attributes: [] },
  { name: 'Book', noun: 'book', attributes: [] },
]
const RELATIONS: RelationSpec[] = [
  {
    name: 'born_in', domain: 'Person', range: 'City', cardinality: 'n-1',
    forward: ['{s} was born in {t}.', 'The birthplace of {s} is {t}.'],
    inverse: ['{t} is the birthplace of {s}.', '{s} is a native of {t}.'],
    targetPhrases: ['the birthplace of {s}', 'the city where {s} was born'],
    sourcePhrases: ['a person born in {t}'],
    questions: ['Where was {s} born?', 'In which city was {s} born?'],
    keywords: ['born', 'birthplace'],
  },
  {
    name: 'written_by', domain: 'Book', range: 'Person', cardinality: 'n-1',
    forward: ['{s} was written by {t}.'],
    inverse: ['{t} wrote {s}.', '{t} is the author of {s}.'],
    targetPhrases: ['the author of {s}', 'the writer of {s}'],
    sourcePhrases: ['a book written by {t}'],
    questions: ['Who wrote {s}?', 'Who is the author of {s}?'],
    keywords: ['author', 'writer', 'wrote'],
  },
]
const SCHEMA: VerifySchema = { relations: RELATIONS, types: TYPES }

/** A tiny world: 3 people, 3 cities, 2 books, 30 filler places; edge E4's target never mentions its source. */
function fixtureWorld(): Db {
  const db = new Database(':memory:')
  db.exec(`
    CREATE TABLE entities (id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL UNIQUE);
    CREATE TABLE edges (id TEXT PRIMARY KEY, relation TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL);
    CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, text TEXT NOT NULL);
  `)
  const ents: [string, string, string, string][] = [
    ['P1', 'Person', 'Mabel Smith', 'Mabel Smith is a novelist. Mabel Smith was born in Dorchester. She wrote The Quiet Harbour.'],
    ['P2', 'Person', 'John Carter', 'John Carter is a poet. John Carter was born in Lyon. Carter is the author of Winter Tales.'],
    ['P3', 'Person', 'Ana Lopez', 'Ana Lopez is a painter who lives by the sea. She was born far away.'],
    ['C1', 'City', 'Dorchester', 'Dorchester is a city. Dorchester is the birthplace of Mabel Smith. Mabel Smith was born in Dorchester.'],
    ['C2', 'City', 'Lyon', 'Lyon is a city on two rivers. Lyon is the birthplace of John Carter. John Carter was born in Lyon.'],
    ['C3', 'City', 'Tarragona', 'Tarragona is a city by the sea with old walls.'],
    ['B1', 'Book', 'The Quiet Harbour', 'The Quiet Harbour is a novel. The Quiet Harbour was written by Mabel Smith, its author.'],
    ['B2', 'Book', 'Winter Tales', 'Winter Tales is a book of poems. Winter Tales was written by John Carter. John Carter wrote Winter Tales.'],
  ]
  for (let i = 0; i < 30; i++)
    ents.push([`F${String(i).padStart(2, '0')}`, 'City', `Hamlet ${i}`, `Hamlet ${i} is a small city where a person was born ${i} times; an author and a writer live there.`])
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
  insEdge.run('E3', 'written_by', 'B1', 'P1')
  insEdge.run('E4', 'born_in', 'P3', 'C3') // Tarragona's document never names Ana Lopez: not retrievable
  insEdge.run('E5', 'written_by', 'B2', 'P2')
  return db
}

async function indexOf(db: Db): Promise<EmbeddedIndex> {
  const idx = new EmbeddedIndex()
  await idx.upsert(readSearchDocs(db))
  return idx
}

const OPTS = { schema: SCHEMA, seed: 5, queriesPerEdge: 15, minHits: 5, topK: 5, quiet: true }

function hashRows(db: Db): string[] {
  const rows: string[] = []
  verificationHashRows(db, (r) => rows.push(JSON.stringify(r)))
  return rows
}

describe('edgeQueries', () => {
  const input = { relation: RELATIONS[0], sourceName: 'Mabel Smith', sourceNoun: 'person', targetNoun: 'city' }
  it('gives 15 distinct queries of mixed styles, deterministic per edge', () => {
    const qs = edgeQueries(input, 15, edgeQueryRng(1, 'E1'))
    expect(qs.length).toBe(15)
    expect(new Set(qs.map((q) => queryKey(q.query))).size).toBe(15)
    expect(new Set(qs.map((q) => q.style)).size).toBeGreaterThanOrEqual(6)
    expect(qs.map((q) => q.query)).toContain('Where was Mabel Smith born?')
    expect(edgeQueries(input, 15, edgeQueryRng(1, 'E1'))).toEqual(qs)
    expect(edgeQueries(input, 15, edgeQueryRng(1, 'E2'))).not.toEqual(qs)
    // Partial names and inverse phrasings are among the candidates and the chosen mix.
    const cands = candidateQueries(input)
    expect(cands.partial).toContain('Smith birthplace')
    expect(cands.inverse).toContain('which city is the birthplace of Mabel Smith')
    expect(cands.inverse).toContain('Mabel Smith was born in')
    expect(qs.some((q) => q.style === 'partial' && !queryKey(q.query).includes('mabel smith'))).toBe(true)
    expect(qs.some((q) => q.style === 'inverse')).toBe(true)
  })
})

describe('verifyEdges', () => {
  it('keeps exactly the retrievable edges and stores every query with its result', async () => {
    const db = fixtureWorld()
    const idx = await indexOf(db)
    const run = await verifyEdges(db, idx, OPTS)
    expect(run.verified).toBe(5)
    expect(verificationComplete(db)).toBe(true)
    const rows = db.prepare('SELECT edge_id, hits, kept FROM edge_verification ORDER BY edge_id').all() as { edge_id: string; hits: number; kept: number }[]
    expect(rows.map((r) => r.edge_id)).toEqual(['E1', 'E2', 'E3', 'E4', 'E5'])
    for (const r of rows) expect(r.kept).toBe(r.hits >= 5 ? 1 : 0)
    const kept = Object.fromEntries(rows.map((r) => [r.edge_id, r.kept]))
    expect(kept).toEqual({ E1: 1, E2: 1, E3: 1, E4: 0, E5: 1 })
    expect(countVerifiedEdges(db)).toBe(4)
    const qs = db.prepare('SELECT edge_id, qi, query, rank, top_urls FROM verification_queries ORDER BY edge_id, qi').all() as {
      edge_id: string; qi: number; query: string; rank: number; top_urls: string
    }[]
    expect(qs.length).toBe(75)
    // G* = edges joined with edge_verification where kept = 1.
    const gStar = db.prepare('SELECT e.id FROM edges e JOIN edge_verification v ON v.edge_id = e.id WHERE v.kept = 1 ORDER BY e.id').all()
    expect(gStar).toEqual([{ id: 'E1' }, { id: 'E2' }, { id: 'E3' }, { id: 'E5' }])
    // Re-running the stored queries of kept edges finds d_v at the stored rank.
    const target = new Map((db.prepare('SELECT e.id, t.url FROM edges e JOIN entities t ON t.id = e.target').all() as { id: string; url: string }[]).map((r) => [r.id, r.url]))
    const found = new Map<string, number>()
    for (const q of qs) {
      const hits = await idx.search(q.query, { k: 5 })
      expect(hits.map((h) => h.url)).toEqual(JSON.parse(q.top_urls))
      const rank = hits.findIndex((h) => h.url === target.get(q.edge_id)) + 1
      expect(rank).toBe(q.rank)
      if (rank > 0) found.set(q.edge_id, (found.get(q.edge_id) ?? 0) + 1)
    }
    for (const id of ['E1', 'E2', 'E3', 'E5']) expect(found.get(id)).toBeGreaterThanOrEqual(5)
  })

  it('resumes a killed run chunk by chunk with identical results, and is deterministic', async () => {
    const a = fixtureWorld()
    const ia = await indexOf(a)
    await verifyEdges(a, ia, OPTS)
    const b = fixtureWorld()
    const ib = await indexOf(b)
    const first = await verifyEdges(b, ib, { ...OPTS, chunk: 2, maxChunks: 1 })
    expect(first.verified).toBe(2)
    expect(verificationComplete(b)).toBe(false)
    const second = await verifyEdges(b, ib, { ...OPTS, chunk: 2 })
    expect(second.verified).toBe(3)
    expect(hashRows(b)).toEqual(hashRows(a))
    const again = await verifyEdges(b, ib, OPTS)
    expect(again.verified).toBe(0)
  })

  it('verifies again when the settings change', async () => {
    const db = fixtureWorld()
    const idx = await indexOf(db)
    await verifyEdges(db, idx, OPTS)
    const run = await verifyEdges(db, idx, { ...OPTS, topK: 1, minHits: 3 })
    expect(run.verified).toBe(5)
    const max = db.prepare('SELECT MAX(rank) AS m FROM verification_queries').get() as { m: number }
    expect(max.m).toBeLessThanOrEqual(1)
  })

  it('rejects impossible settings and unknown relations', async () => {
    const db = fixtureWorld()
    const idx = await indexOf(db)
    await expect(verifyEdges(db, idx, { ...OPTS, minHits: 16 })).rejects.toThrow(/cannot exceed/)
    await expect(verifyEdges(db, idx, { ...OPTS, topK: 0 })).rejects.toThrow(/positive integer/)
    await expect(verifyEdges(db, idx, { ...OPTS, schema: { relations: [], types: TYPES } })).rejects.toThrow(/does not define/)
  })

  it('reports pass rates, the hits histogram and failed edges with what was retrieved instead', async () => {
    const db = fixtureWorld()
    await verifyEdges(db, await indexOf(db), OPTS)
    const r = verificationReport(db)
    expect(r.kept).toBe(4)
    expect(r.failedTotal).toBe(1)
    expect(r.hitsHistogram.reduce((s, c) => s + c, 0)).toBe(5)
    expect(r.perRelation.map((p) => [p.relation, p.edges, p.kept])).toEqual([['born_in', 3, 2], ['written_by', 2, 2]])
    expect(r.failed[0].edgeId).toBe('E4')
    expect(r.failed[0].queries.length).toBe(15)
    const text = formatVerifyReport(r)
    expect(text).toContain('## Pass rate per relation')
    expect(text).toContain('E4: Ana Lopez —born_in→ Tarragona')
    expect(text).toContain('https://fixture.test/wiki/Ana_Lopez') // what came back instead
  })
})

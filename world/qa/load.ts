// world/qa/load: the QaWorldView of a world file — entities with attributes, every edge, G* from the verify
// stage's edge_verification (kept = 1) and the facts of every document. Reads the world's tables with plain SQL.
import { WorldError } from '../../infra/errors'
import type { Db } from '../../infra/store'
import { ENTITY_TYPES, RELATIONS } from '../schema'
import type { AttrValue, DocFact, Edge, Entity } from '../types'
import type { QaWorldView } from './view'
import { keptLookups } from '../verify/verify-lookups'

const hasTable = (db: Db, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined

export function loadQaView(db: Db): QaWorldView {
  for (const t of ['entities', 'attributes', 'edges', 'doc_facts'])
    if (!hasTable(db, t)) throw new WorldError('qa.no_world', `the world file has no ${t} table: build the graph and documents first (searchgym world build)`)
  if (!hasTable(db, 'edge_verification'))
    throw new WorldError('qa.unverified', 'the world file has no edge_verification table: QA are sampled on the verified graph only; run the verify stage first (searchgym world build)')
  const entities = new Map<string, Entity>()
  for (const r of db.prepare('SELECT id, type, name, url FROM entities ORDER BY id').all() as { id: string; type: string; name: string; url: string }[])
    entities.set(r.id, { ...r, attrs: {} })
  for (const r of db.prepare('SELECT entity_id, name, value FROM attributes ORDER BY entity_id, name').all() as { entity_id: string; name: string; value: AttrValue }[]) {
    const e = entities.get(r.entity_id)
    if (e) e.attrs[r.name] = r.value
  }
  const edges = db.prepare('SELECT id, relation, source, target FROM edges ORDER BY id').all() as Edge[]
  const kept = new Set((db.prepare('SELECT edge_id FROM edge_verification WHERE kept = 1 ORDER BY edge_id').all() as { edge_id: string }[]).map((r) => r.edge_id))
  if (edges.length > 0 && (db.prepare('SELECT COUNT(*) AS n FROM edge_verification').get() as { n: number }).n === 0)
    throw new WorldError('qa.unverified', 'edge_verification is empty: run the verify stage before the qa stage')
  const factsByUrl = new Map<string, DocFact[]>()
  for (const r of db.prepare('SELECT url, kind, ref, sentence FROM doc_facts ORDER BY url, seq').all() as (DocFact & { url: string })[]) {
    const l = factsByUrl.get(r.url) ?? factsByUrl.set(r.url, []).get(r.url)!
    l.push({ kind: r.kind, ref: r.ref, sentence: r.sentence })
  }
  const lookups = hasTable(db, 'lookup_verification') && db.prepare('SELECT 1 FROM lookup_verification LIMIT 1').get() !== undefined ? keptLookups(db) : undefined
  return { entityTypes: ENTITY_TYPES, relations: RELATIONS, entities: [...entities.values()], edges, kept, factsByUrl, ...(lookups ? { lookups } : {}) }
}

/** Text of one document (for evidence checks). */
export function docText(db: Db, url: string): string | undefined {
  return (db.prepare('SELECT text FROM docs WHERE url = ?').get(url) as { text: string } | undefined)?.text
}

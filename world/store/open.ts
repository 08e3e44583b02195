// world/store/open: openWorld — the read side of a finished world folder for gym, qa, verify and the CLI: the database,
// the resolved config, the manifest and small accessors. Refuses (WorldError, one line) anything unfinished.
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { WorldError } from '../../infra/errors'
import { openDb, type Db } from '../../infra/store'
import type { WorldConfig } from '../config'
import { readDocWhere, readEdges, readEdgesWhere, readEntities, readEntitiesWhere, readManifest, stageStatus, WORLD_FILE } from './store'
import type { Doc, Edge, Entity } from '../types'
import { sqliteCheck } from './integrity'

/** Accessors over a world database (also usable by stages on their StageContext.db). */
export interface WorldReader {
  db: Db
  entity(id: string): Entity | undefined
  /** All entities with this exact name (several for homonyms). */
  entitiesByName(name: string): Entity[]
  entityByUrl(url: string): Entity | undefined
  /** Entities matching an id, a URL or an exact name, in that order of precedence. */
  findEntities(ref: string): Entity[]
  entities(): Entity[]
  edge(id: string): Edge | undefined
  edges(): Edge[]
  /** Edges leaving (`out`) and entering (`in`) an entity, ordered by id. */
  edgesOf(entityId: string): { out: Edge[]; in: Edge[] }
  doc(url: string): Doc | undefined
  docOf(entityId: string): Doc | undefined
}

export interface World extends WorldReader {
  dir: string
  dbPath: string
  config: WorldConfig
  manifest: Record<string, string>
  /** Content hash (empty for an unfinished world opened with allowIncomplete). */
  hash: string
  complete: boolean
  /** Stage name → status ('pending' | 'running' | 'done'). */
  stages: Record<string, string>
  close(): void
}

export function worldReader(db: Db): WorldReader {
  return {
    db,
    entity: (id) => readEntitiesWhere(db, 'id', id)[0],
    entitiesByName: (name) => readEntitiesWhere(db, 'name', name),
    entityByUrl: (url) => readEntitiesWhere(db, 'url', url)[0],
    findEntities(ref) {
      const byId = readEntitiesWhere(db, 'id', ref)
      if (byId.length) return byId
      const byUrl = readEntitiesWhere(db, 'url', ref)
      if (byUrl.length) return byUrl
      return readEntitiesWhere(db, 'name', ref)
    },
    entities: () => readEntities(db),
    edge: (id) => readEdgesWhere(db, 'id', id)[0],
    edges: () => readEdges(db),
    edgesOf: (id) => ({ out: readEdgesWhere(db, 'source', id), in: readEdgesWhere(db, 'target', id) }),
    doc: (url) => readDocWhere(db, 'url', url),
    docOf: (id) => readDocWhere(db, 'entity_id', id),
  }
}

/**
 * Open the world in `dir` (read-only by default). Throws WorldError if the folder is missing, holds no world
 * file, or the world is unfinished (unless `allowIncomplete`). With `check` (serving, benching, stats), a file that
 * fails SQLite's quick_check is refused too (world.corrupt, one line).
 */
export function openWorld(dir: string, opts: { readonly?: boolean; allowIncomplete?: boolean; check?: boolean } = {}): World {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new WorldError('world.missing', `no world folder at ${dir}`)
  const dbPath = join(dir, WORLD_FILE)
  if (!existsSync(dbPath)) throw new WorldError('world.not_world', `${dir} is not a world folder (no ${WORLD_FILE}); build one with: searchgym world build --out ${dir}`)
  let db: Db
  let manifest: Record<string, string>
  let stages: Record<string, string>
  try {
    db = openDb(dbPath, { readonly: opts.readonly ?? true, mustExist: true })
    if (opts.check) {
      const bad = sqliteCheck(db, 'quick_check', 3)
      if (bad.length > 0) {
        db.close()
        throw new WorldError('world.corrupt', `${dbPath} is corrupted (SQLite quick_check: ${bad[0].slice(0, 200)}); see searchgym world verify --deep ${dir}, and rebuild or re-copy the world`)
      }
    }
    manifest = readManifest(db)
    stages = stageStatus(db)
  } catch (e) {
    if (e instanceof WorldError) throw e
    throw new WorldError('world.not_world', `${dbPath} is not a readable world file: ${(e as Error).message.split('\n')[0]}`, { cause: e })
  }
  const complete = manifest.complete === '1' && typeof manifest.content_hash === 'string'
  if (!complete && !opts.allowIncomplete) {
    db.close()
    const pending = Object.entries(stages).filter(([, s]) => s !== 'done').map(([n]) => n)
    throw new WorldError('world.incomplete', `world at ${dir} is not finished${pending.length ? ` (unfinished stages: ${pending.join(', ')})` : ''}; run \`searchgym world build\` with the same config and --out ${dir} to finish it`)
  }
  if (manifest.config === undefined) {
    db.close()
    throw new WorldError('world.not_world', `${dbPath} has no manifest config: not a world file`)
  }
  return {
    ...worldReader(db),
    dir,
    dbPath,
    config: JSON.parse(manifest.config) as WorldConfig,
    manifest,
    hash: complete ? manifest.content_hash : '',
    complete,
    stages,
    close: () => db.close(),
  }
}

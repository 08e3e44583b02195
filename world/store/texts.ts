// world/store/texts: the documents of a world as plain texts ("title\ntext", url order) — what the engine's world
// tokenizer is built from — its entity names, and the locales its names were drawn from. Reads only docs(url, title,
// text) for the texts, so a hand-written world.db with that table works too.
import Database from 'better-sqlite3'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { WorldError } from '../../infra/errors'
import { DEFAULT_CONFIG, type WorldConfig } from '../config'
import { WORLD_FILE } from './store'

/** The world database of a world folder (DIR/world.db), or the file itself when given one. */
export function worldDbPath(dirOrFile: string): string {
  const p = existsSync(dirOrFile) && statSync(dirOrFile).isDirectory() ? join(dirOrFile, WORLD_FILE) : dirOrFile
  if (!existsSync(p)) throw new WorldError('world.missing', `no world database at ${p}: build a world first (searchgym world build) or pass its folder`)
  return p
}

/** Every document of a world as "title\ntext", in url order (deterministic), read lazily. */
export function* worldTexts(dirOrFile: string): Generator<string> {
  const path = worldDbPath(dirOrFile)
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    let stmt
    try {
      stmt = db.prepare('SELECT title, text FROM docs ORDER BY url')
    } catch (e) {
      throw new WorldError('world.no_docs', `${path} has no readable docs(url, title, text) table: ${(e as Error).message}`, { cause: e })
    }
    for (const row of stmt.iterate() as IterableIterator<{ title: string | null; text: string | null }>) yield `${row.title ?? ''}\n${row.text ?? ''}`
  } finally {
    db.close()
  }
}

/** Number of documents in a world (for progress). */
export function countWorldDocs(dirOrFile: string): number {
  const path = worldDbPath(dirOrFile)
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM docs').get() as { n: number }).n
  } catch (e) {
    throw new WorldError('world.no_docs', `${path} has no readable docs table: ${(e as Error).message}`, { cause: e })
  } finally {
    db.close()
  }
}

/** Every entity name of a world, in id order (the world tokenizer's `nameTokens`: `model init --name-tokens`). */
export function worldEntityNames(dirOrFile: string): string[] {
  const path = worldDbPath(dirOrFile)
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare('SELECT name FROM entities ORDER BY id').all() as { name: string }[]).map((r) => r.name)
  } catch (e) {
    throw new WorldError('world.no_entities', `${path} has no readable entities(id, name) table: ${(e as Error).message}`, { cause: e })
  } finally {
    db.close()
  }
}

/** The faker locales a world's names were drawn from (its config's docs.locales, from the manifest), for namerLexicon.
 *  A hand-written world.db without a manifest gets the default config's locales. */
export function worldNameLocales(dirOrFile: string): string[] {
  const path = worldDbPath(dirOrFile)
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const hasManifest = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'manifest'").get() !== undefined
    const row = hasManifest ? (db.prepare("SELECT value FROM manifest WHERE key = 'config'").get() as { value: string } | undefined) : undefined
    if (!row) return [...DEFAULT_CONFIG.docs.locales]
    let config: WorldConfig
    try {
      config = JSON.parse(row.value) as WorldConfig
    } catch (e) {
      throw new WorldError('world.not_world', `${path} has an unreadable manifest config: ${(e as Error).message}`, { cause: e })
    }
    return [...(config.docs?.locales ?? DEFAULT_CONFIG.docs.locales)]
  } finally {
    db.close()
  }
}

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

/** Every document as worldTexts gives it, followed by a `Question: …` / `Answer: …` line pair for each training-split
 *  question of at most `maxHops` hops whose last evidence sentence is on that page — reading drills inside the
 *  pretraining text (the answer is on the page just above it). Bench-split questions are never included. */
export function* worldReadingTexts(dirOrFile: string, maxHops = 1): Generator<string> {
  const path = worldDbPath(dirOrFile)
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const byUrl = new Map<string, string[]>()
    const rows = db.prepare("SELECT question, answer, hops, evidence_json FROM qa WHERE split = 'train' ORDER BY seq").all() as { question: string; answer: string; hops: number; evidence_json: string }[]
    for (const r of rows) {
      if (r.hops > maxHops) continue
      const ev = JSON.parse(r.evidence_json) as { hop: number; url: string }[]
      if (ev.length === 0) continue
      const last = ev.reduce((a, e) => (e.hop > a.hop ? e : a))
      const lines = byUrl.get(last.url) ?? []
      lines.push(`Question: ${r.question}\nAnswer: ${r.answer}`)
      byUrl.set(last.url, lines)
    }
    for (const row of db.prepare('SELECT url, title, text FROM docs ORDER BY url').iterate() as IterableIterator<{ url: string; title: string | null; text: string | null }>) {
      const qa = byUrl.get(row.url)
      yield `${row.title ?? ''}\n${row.text ?? ''}${qa ? `\n\n${qa.join('\n\n')}` : ''}`
    }
  } catch (e) {
    if (e instanceof WorldError) throw e
    throw new WorldError('world.no_qa', `${path} has no readable docs and qa tables: ${(e as Error).message}`, { cause: e })
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

/** Every entity name of a world, in id order (the world tokenizer's `nameTokens`: `model init --set nameTokens=true`). */
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

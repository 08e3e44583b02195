// tests/helpers/tiny-world: a hand-written world.db with a docs(url, entity_id, title, text) table, for tests that need
// a world folder before the world builder is at hand. Deterministic content.
import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

export const TINY_WORLD_DOCS: { url: string; entity_id: string; title: string; text: string }[] = [
  { url: 'https://w.test/acme', entity_id: 'org1', title: 'Acme Corporation', text: 'Acme Corporation is a company founded in 1987 by Marie Curie in Zürich. Acme Corporation makes anvils.' },
  { url: 'https://w.test/curie', entity_id: 'p1', title: 'Marie Curie', text: 'Marie Curie was a physicist born in Warsaw. Marie Curie founded Acme Corporation.' },
  { url: 'https://w.test/zurich', entity_id: 'c1', title: 'Zürich', text: 'Zürich is a city in Switzerland. The population of Zürich is 421878.' },
  { url: 'https://w.test/warsaw', entity_id: 'c2', title: 'Warsaw', text: 'Warsaw is the capital of Poland. Warsaw lies on the Vistula.' },
]

/** Create DIR/world.db holding TINY_WORLD_DOCS; returns DIR. */
export function writeTinyWorld(dir: string): string {
  mkdirSync(dir, { recursive: true })
  const db = new Database(join(dir, 'world.db'))
  db.exec('CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL)')
  const ins = db.prepare('INSERT INTO docs (url, entity_id, title, text) VALUES (@url, @entity_id, @title, @text)')
  for (const d of TINY_WORLD_DOCS) ins.run(d)
  db.close()
  return dir
}

// world/store/texts.test: a world's documents as texts (url order), its name locales, and the errors for a missing world or docs table.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countWorldDocs, worldNameLocales, worldTexts } from './texts'

const tmp = mkdtempSync(join(tmpdir(), 'world-texts-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('worldTexts', () => {
  it('reads docs(url, entity_id, title, text) of a world folder or file in url order', () => {
    const dir = mkdtempSync(join(tmp, 'w-'))
    const db = new Database(join(dir, 'world.db'))
    db.exec('CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT, title TEXT, text TEXT)')
    const ins = db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?)')
    ins.run('https://w/b', 'e2', 'Warsaw', 'Warsaw is the capital of Poland.')
    ins.run('https://w/a', 'e1', 'Acme Corporation', 'Acme Corporation makes anvils.')
    db.close()
    expect(countWorldDocs(dir)).toBe(2)
    expect([...worldTexts(dir)]).toEqual(['Acme Corporation\nAcme Corporation makes anvils.', 'Warsaw\nWarsaw is the capital of Poland.'])
    expect([...worldTexts(join(dir, 'world.db'))]).toHaveLength(2)
  })

  it('says what is missing', () => {
    const dir = mkdtempSync(join(tmp, 'empty-'))
    expect(() => [...worldTexts(dir)]).toThrow(/no world database/)
    new Database(join(dir, 'world.db')).close()
    expect(() => [...worldTexts(dir)]).toThrow(/no readable docs/)
    expect(() => countWorldDocs(dir)).toThrow(/no readable docs/)
  })
})

describe('worldNameLocales', () => {
  it("reads the manifest config's docs.locales; a world.db without a manifest gets the default config's", () => {
    const dir = mkdtempSync(join(tmp, 'loc-'))
    const db = new Database(join(dir, 'world.db'))
    db.exec('CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT, title TEXT, text TEXT)')
    expect(worldNameLocales(dir)).toEqual(['en_US', 'en_GB', 'de', 'fr', 'es', 'it'])
    db.exec('CREATE TABLE manifest (key TEXT PRIMARY KEY, value TEXT)')
    db.prepare('INSERT INTO manifest VALUES (?, ?)').run('config', JSON.stringify({ docs: { locales: ['de', 'fr'] } }))
    db.close()
    expect(worldNameLocales(dir)).toEqual(['de', 'fr'])
  })
})

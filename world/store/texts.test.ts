// world/store/texts.test: a world's documents as texts (url order), its name locales, and the errors for a missing world or docs table.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countWorldDocs, worldNameLocales, worldReadingTexts, worldTexts } from './texts'

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

describe('worldReadingTexts', () => {
  it("appends each training question of ≤ maxHops hops after the page holding its last evidence sentence; bench questions never", () => {
    const dir = mkdtempSync(join(tmp, 'qa-'))
    const db = new Database(join(dir, 'world.db'))
    db.exec('CREATE TABLE docs (url TEXT PRIMARY KEY, entity_id TEXT, title TEXT, text TEXT)')
    db.exec('CREATE TABLE qa (seq INTEGER, question TEXT, answer TEXT, hops INTEGER, evidence_json TEXT, split TEXT)')
    const doc = db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?)')
    doc.run('https://w/a', 'e1', 'Acme', 'Acme is based in Warsaw.')
    doc.run('https://w/b', 'e2', 'Warsaw', 'Warsaw is in Poland.')
    const qa = db.prepare('INSERT INTO qa VALUES (?, ?, ?, ?, ?, ?)')
    const ev = (...hops: [number, string][]) => JSON.stringify(hops.map(([hop, url]) => ({ hop, url, sentence: '' })))
    qa.run(0, 'Where is Acme based?', 'Warsaw', 1, ev([0, 'https://w/a']), 'train')
    qa.run(1, 'Which country is Acme in?', 'Poland', 2, ev([0, 'https://w/a'], [1, 'https://w/b']), 'train')
    qa.run(2, 'Where is Acme?', 'Warsaw', 1, ev([0, 'https://w/a']), 'bench')
    db.close()
    expect([...worldReadingTexts(dir)]).toEqual(['Acme\nAcme is based in Warsaw.\n\nQuestion: Where is Acme based?\nAnswer: Warsaw', 'Warsaw\nWarsaw is in Poland.'])
    // Two hops: the question goes after the page of its last hop.
    expect([...worldReadingTexts(dir, 2)][1]).toBe('Warsaw\nWarsaw is in Poland.\n\nQuestion: Which country is Acme in?\nAnswer: Poland')
  })
})

// tests/world-cli: the real `searchgym world` process — a tiny build, stats --json, show, export; and bad input
// (unknown key, negative / non-numeric count, missing config, unwritable or non-world output, other config):
// one-line error, non-zero exit, and never a folder that `world stats` reports as finished.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = mkdtempSync(join(tmpdir(), 'sg-world-cli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/searchgym.mjs', 'world', ...args], { encoding: 'utf8', env: { ...process.env, SEARCHGYM_QUIET: '1' } })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const statsJson = (dir: string) => {
  const r = cli('stats', dir, '--json')
  return r.code === 0 ? (JSON.parse(r.out) as Record<string, unknown>) : undefined
}

test('tiny build, stats --json, show, export', () => {
  const dir = join(root, 'tiny')
  const b = cli('build', '--preset', 'tiny', '--seed', '4', '--out', dir)
  expect(b.err).toBe('')
  expect(b.code).toBe(0)
  expect(b.out).toMatch(/hash\s+[0-9a-f]{64}/)
  const s = statsJson(dir)!
  for (const k of ['hash', 'entities', 'entityTypes', 'relationTypes', 'edges', 'docs', 'complete']) expect(s).toHaveProperty(k)
  expect(s.complete).toBe(true)
  expect(s.entities).toBeGreaterThanOrEqual(90)
  expect(s.entityTypes).toBeGreaterThanOrEqual(10)
  expect(s.docs).toBe(s.entities)
  const human = cli('stats', dir)
  expect(human.out).toContain('degrees')

  const show = cli('show', dir, 'person-1')
  expect(show.code).toBe(0)
  expect(show.out).toContain('[Person, person-1]')
  expect(show.out).toContain('Infobox')
  const url = /https:\/\/searchgym\.local\/wiki\/\S+/.exec(show.out)![0]
  expect(cli('show', dir, url).out).toContain('[Person, person-1]')
  expect(cli('show', dir, 'no such entity').code).not.toBe(0)

  const ex = join(root, 'export')
  const e = cli('export', dir, '--format', 'jsonl', '--out', ex)
  expect(e.code).toBe(0)
  const lines = readFileSync(join(ex, 'docs.jsonl'), 'utf8').trim().split('\n')
  expect(lines.length).toBe(s.docs)
  const doc = JSON.parse(lines[0]) as { url: string; text: string; facts: { sentence: string }[] }
  expect(doc.text).toContain(doc.facts[0].sentence)
  expect(readFileSync(join(ex, 'edges.jsonl'), 'utf8').trim().split('\n').length).toBe(s.edges)
  expect(cli('export', dir, '--format', 'csv', '--out', ex).code).not.toBe(0)
})

function expectOneLineFailure(r: ReturnType<typeof cli>, pattern: RegExp, dir?: string) {
  expect(r.code).not.toBe(0)
  expect(r.err.trim().split('\n')).toHaveLength(1)
  expect(r.err).toMatch(pattern)
  if (dir && existsSync(dir)) expect(statsJson(dir)?.complete ?? false).toBe(false)
}

test('unknown config key', () => {
  const f = join(root, 'unknown.json')
  writeFileSync(f, JSON.stringify({ graph: { zipfExponnent: 1 } }))
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--config', f, '--out', join(root, 'o1')), /unknown config key 'config\.graph\.zipfExponnent'/, join(root, 'o1'))
  writeFileSync(f, JSON.stringify({ entities: { Dragon: 3 } }))
  expectOneLineFailure(cli('build', '--config', f, '--out', join(root, 'o1')), /unknown entity type 'config\.entities\.Dragon'/, join(root, 'o1'))
})

test('negative or non-numeric count, non-numeric seed', () => {
  const f = join(root, 'neg.json')
  writeFileSync(f, JSON.stringify({ entities: { Person: -3 } }))
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--config', f, '--out', join(root, 'o2')), /config\.entities\.Person must be a non-negative integer, got -3/, join(root, 'o2'))
  writeFileSync(f, JSON.stringify({ entities: { Person: 'many' } }))
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--config', f, '--out', join(root, 'o2')), /config\.entities\.Person must be a number, got "many"/, join(root, 'o2'))
  writeFileSync(f, JSON.stringify({ entities: { Person: 2.5 } }))
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--config', f, '--out', join(root, 'o2')), /non-negative integer, got 2\.5/, join(root, 'o2'))
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--seed', 'abc', '--out', join(root, 'o2')), /seed/, join(root, 'o2'))
  expect(existsSync(join(root, 'o2'))).toBe(false) // config errors come before the folder is touched
})

test('missing config file, bad JSON', () => {
  expectOneLineFailure(cli('build', '--config', join(root, 'nope.json'), '--out', join(root, 'o3')), /config file not found: .*nope\.json/, join(root, 'o3'))
  const f = join(root, 'bad.json')
  writeFileSync(f, '{ "seed": ')
  expectOneLineFailure(cli('build', '--config', f, '--out', join(root, 'o3')), /is not valid JSON/, join(root, 'o3'))
})

test('unwritable output folder', () => {
  const file = join(root, 'a-file')
  writeFileSync(file, 'x')
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--out', join(file, 'world')), /cannot create output folder .*ENOTDIR/)
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--out', '/proc/searchgym-world'), /cannot create output folder|not writable/)
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--out', file), /exists and is not a folder/)
})

test('an existing non-world folder as output is refused and left alone', () => {
  const dir = join(root, 'not-a-world')
  mkdirSync(dir)
  writeFileSync(join(dir, 'notes.txt'), 'keep me')
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--out', dir), /not a world folder/)
  expect(existsSync(join(dir, 'world.db'))).toBe(false)
  expectOneLineFailure(cli('stats', dir), /not a world folder/)
  const junk = join(root, 'junk-db')
  mkdirSync(junk)
  writeFileSync(join(junk, 'world.db'), 'this is not sqlite')
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--out', junk), /world file|not a database/)
})

test('a world folder built with a different config is refused and stays as it was', () => {
  const dir = join(root, 'tiny-other')
  expect(cli('build', '--preset', 'tiny', '--seed', '1', '--out', dir).code).toBe(0)
  const before = statsJson(dir)!.hash
  expectOneLineFailure(cli('build', '--preset', 'tiny', '--seed', '2', '--out', dir), /different config \(differs in: seed\)/)
  expect(statsJson(dir)!.hash).toBe(before)
})

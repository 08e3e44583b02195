// tests/world-write: the LLM writer inside a real world build, against a scripted OpenAI-compatible server over
// loopback (tests/fixtures/article-writer-script on the replay server): every good rewrite is accepted and every
// adversarial one (dropped fact, invented entity, changed year) falls back, exactly, and the same for question
// rewordings (dropped name, changed number, added name); retries on 429/500; verification,
// QA, the oracle check stage and `gym check` run unchanged on the rewritten world; the same cache gives the same hash
// with the server gone; a `world build` process SIGKILLed mid-way resumes without repeating a call.
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { CHECKED_WORLD_STAGES } from '../agent'
import { buildWorld, contentHash, type WorldConfig } from '../world'
import { presetConfig } from '../world/config'
import { generateEntities } from '../world/graph/graph'
import { articleResponder, factsOf, goodArticle, mixedKind, mixedQuestionKind, questionOf, scriptedArticle, scriptedQuestion } from './fixtures/article-writer-script'
import { startReplayServer, type ReplayServer } from './fixtures/replay-server'
import { runCli } from './helpers/cli-process'
import { holdAtPoint } from './helpers/hold'

const root = mkdtempSync(join(tmpdir(), 'sg-world-write-'))
const base = presetConfig('tiny')
const worldNames = (await generateEntities(base)).map((e) => e.name)
const script = { kindOf: mixedKind, questionKindOf: mixedQuestionKind, otherNames: worldNames }
let server: ReplayServer
let first: { dir: string; hash: string; prehashed: string[] }

const withWriter = (url: string, extra: Partial<WorldConfig['write']> = {}): WorldConfig => ({ ...base, write: { ...base.write, model: 'fixture-writer', baseUrl: url, ...extra } })
const rows = <T>(dir: string, sql: string): T[] => {
  const db = new Database(join(dir, 'world.db'), { readonly: true })
  try {
    return db.prepare(sql).all() as T[]
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  // Two faults first: the writer must retry (429, then 500) and still get every article.
  server = await startReplayServer(articleResponder({ ...script, faults: [{ status: 429 }, { status: 500 }] }))
  const dir = join(root, 'first')
  const r = await buildWorld({ config: withWriter(server.url, { backoffMs: 10 }), dir, quiet: true, stages: CHECKED_WORLD_STAGES })
  first = { dir, hash: r.hash, prehashed: r.prehashed }
}, 180_000)
afterAll(async () => {
  await server?.close()
  rmSync(root, { recursive: true, force: true })
})

test('each scripted rewrite is accepted or falls back exactly as scripted; the report counts it', () => {
  const docs = rows<{ url: string; title: string }>(first.dir, 'SELECT url, title FROM docs')
  const cached = rows<{ n: number }>(first.dir, 'SELECT COUNT(*) AS n FROM llm_cache')[0].n
  expect(server.requests.length).toBe(cached + 2) // one call per distinct prompt, plus the two faulted requests
  const articleRequests = server.requests.slice(2).filter((r) => questionOf(r) === undefined)
  expect(articleRequests.length).toBe(docs.length)
  const outcome = new Map(rows<{ url: string; outcome: string }>(first.dir, 'SELECT url, outcome FROM doc_writes').map((r) => [r.url, r.outcome]))
  const urlOf = new Map(docs.map((d) => [d.title, d.url]))
  expect(urlOf.size).toBe(docs.length) // titles are unique in this world, so each request maps to one document
  const want: Record<string, number> = {}
  for (const req of articleRequests) {
    const d = factsOf(req)
    const kind = mixedKind(d.title)
    const altered = scriptedArticle(d, kind, worldNames) !== goodArticle(d)
    const got = outcome.get(urlOf.get(d.title)!)
    if (!altered) expect([d.title, got]).toEqual([d.title, 'model'])
    else if (kind === 'drop') expect([d.title, got]).toEqual([d.title, 'missing_fact'])
    else if (kind === 'invent') expect([d.title, got]).toEqual([d.title, 'invented_entity'])
    else expect({ title: d.title, got }).toEqual({ title: d.title, got: expect.stringMatching(/^(invented_number|missing_fact)$/) })
    want[altered ? kind : 'good'] = (want[altered ? kind : 'good'] ?? 0) + 1
  }
  // The mix really exercises every path.
  expect(want.good).toBeGreaterThan(50)
  for (const k of ['drop', 'invent', 'year']) expect(want[k]).toBeGreaterThan(0)
  const report = JSON.parse(rows<{ report: string }>(first.dir, "SELECT report FROM write_report WHERE stage = 'write'")[0].report)
  expect(report.stages.docs).toMatchObject({ calls: docs.length, cacheHits: 0, retries: 2, accepted: want.good, fallbacks: docs.length - want.good })
  expect(report.stages.docs.failedChecks.invented_entity).toBe(want.invent)
})

test('each scripted question rewording is served or falls back exactly as scripted; path and answer untouched', () => {
  const served = rows<{ id: string; question: string; answer: string; path_json: string }>(first.dir, "SELECT id, question, answer, path_json FROM qa WHERE split IN ('train', 'bench')")
  const log = new Map(rows<{ id: string; original: string; outcome: string }>(first.dir, 'SELECT id, original, outcome FROM qa_rephrase').map((r) => [r.id, r]))
  expect(log.size).toBe(served.length)
  const seen: Record<string, number> = {}
  for (const q of served) {
    const r = log.get(q.id)!
    const kind = mixedQuestionKind(r.original)
    const altered = scriptedQuestion(r.original, kind, worldNames) !== scriptedQuestion(r.original, 'good', worldNames)
    const want = !altered ? 'model' : kind === 'drop-name' ? 'missing_fact' : kind === 'number' ? 'invented_number' : 'invented_entity'
    expect({ id: q.id, kind, outcome: r.outcome }).toEqual({ id: q.id, kind, outcome: want })
    expect(q.question).toBe(r.outcome === 'model' ? scriptedQuestion(r.original, 'good', worldNames) : r.original)
    seen[want] = (seen[want] ?? 0) + 1
  }
  // (few template questions hold a number, so a changed number may not occur in a tiny world; each one that does is checked above)
  for (const k of ['model', 'missing_fact', 'invented_entity']) expect(seen[k]).toBeGreaterThan(0)
  const report = JSON.parse(rows<{ report: string }>(first.dir, "SELECT report FROM write_report WHERE stage = 'rephrase'")[0].report)
  expect(report.stages.questions).toMatchObject({ accepted: seen.model, fallbacks: served.length - seen.model })
})

test('rewritten documents are new text whose recorded fact sentences are all in it', () => {
  const written = rows<{ url: string; text: string }>(first.dir, "SELECT d.url, d.text FROM docs d JOIN doc_writes w ON w.url = d.url WHERE w.outcome = 'model'")
  expect(written.length).toBeGreaterThan(50)
  for (const d of written) {
    expect(d.text).toMatch(/\n## (Background|Details)\n/)
    expect(d.text).not.toContain('\n## Overview\n') // every template article has one; the fixture writes none
    expect(d.text).not.toContain('This section summarises information') // template filler is gone
  }
  const missing = rows<{ url: string }>(first.dir, 'SELECT f.url FROM doc_facts f JOIN docs d ON d.url = f.url WHERE instr(d.text, f.sentence) = 0')
  expect(missing).toEqual([])
})

test('verification, QA and the oracle check stage ran on the rewritten world; gym check solves every served question', async () => {
  const stages = rows<{ name: string; status: string }>(first.dir, 'SELECT name, status FROM stages ORDER BY rowid')
  expect(stages.map((s) => s.name)).toEqual(['graph', 'docs', 'write', 'index', 'verify', 'qa', 'check', 'split', 'rephrase'])
  expect(stages.every((s) => s.status === 'done')).toBe(true)
  const check = await runCli(['gym', 'check', first.dir])
  expect(check.stderr).toBe('')
  expect(check.code).toBe(0)
  const m = /(\d+)\/(\d+) solved/.exec(check.stdout)!
  expect(Number(m[2])).toBeGreaterThan(0)
  expect(m[1]).toBe(m[2])
}, 120_000)

test('with a model rewording questions, the qa section and those after it are hashed at the end; same digest as on one thread', () => {
  // The rephrase stage may change the qa stage's questions (Stage.rewrites): the content-hash worker gets no section
  // past the sealed ones before the build ends, and the digest is what contentHash computes on this thread.
  expect(first.prehashed).toEqual(['graph', 'docs', 'write', 'index', 'verify'])
  const db = new Database(join(first.dir, 'world.db'), { readonly: true })
  try {
    expect(contentHash(db, CHECKED_WORLD_STAGES)).toBe(first.hash)
  } finally {
    db.close()
  }
})

test('the same cache gives the same hash with no call', async () => {
  const dir = join(root, 'from-cache')
  mkdirSync(dir)
  copyFileSync(join(first.dir, 'world.db'), join(dir, 'world.db'))
  const db = new Database(join(dir, 'world.db'))
  // Keep the graph and the call cache; docs (template rows rewritten from scratch), write and every later stage rerun.
  db.exec("DELETE FROM stages WHERE name != 'graph'; UPDATE manifest SET value = '0' WHERE key = 'complete'; DELETE FROM manifest WHERE key = 'content_hash'")
  db.exec('DELETE FROM doc_writes; DELETE FROM docs; DELETE FROM doc_facts; DELETE FROM write_report')
  db.close()
  const before = server.requests.length
  const again = await buildWorld({ config: withWriter(server.url, { backoffMs: 10 }), dir, quiet: true, stages: CHECKED_WORLD_STAGES })
  expect(server.requests.length).toBe(before) // every prompt answered from the cache
  expect(again.hash).toBe(first.hash)
  const report = JSON.parse(rows<{ report: string }>(dir, "SELECT report FROM write_report WHERE stage = 'write'")[0].report)
  expect(report.stages.docs.calls).toBe(0)
  expect(report.stages.docs.cacheHits).toBe(rows<{ n: number }>(dir, 'SELECT COUNT(*) AS n FROM docs')[0].n)
  expect(rows<{ question: string }>(dir, 'SELECT question FROM qa ORDER BY id')).toEqual(rows<{ question: string }>(first.dir, 'SELECT question FROM qa ORDER BY id'))
}, 180_000)

test('a build SIGKILLed mid-write resumes without repeating a call and reaches the same hash', async () => {
  const out = join(root, 'killed')
  const args = ['world', 'build', '--preset', 'tiny', '--out', out, '--set', `write.baseUrl=${server.url}`, '--set', 'write.model=fixture-writer', '--set', 'write.concurrency=1', '--quiet']
  const before = server.requests.length
  const bin = join(process.cwd(), 'bin/searchgym.mjs')
  const signal = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
    const p = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...holdAtPoint('write'), SEARCHGYM_QUIET: '1' }, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      if (err.includes('test hold in stage write')) p.kill('SIGKILL')
    })
    p.on('exit', (code, sig) => (sig ? resolve(sig) : reject(new Error(`build exited ${code} before the hold: ${err}`))))
  })
  expect(signal).toBe('SIGKILL')
  const firstRun = server.requests.slice(before).map((r) => JSON.stringify(r.messages))
  const docs = rows<{ n: number }>(first.dir, 'SELECT COUNT(*) AS n FROM docs')[0].n
  expect(firstRun.length).toBe(Math.ceil(docs / 2))
  expect(rows<{ n: number }>(out, 'SELECT COUNT(*) AS n FROM llm_cache')[0].n).toBe(firstRun.length)

  const again = await runCli(args)
  expect(again.stderr).toBe('')
  expect(again.code).toBe(0)
  const all = server.requests.slice(before).map((r) => JSON.stringify(r.messages))
  expect(new Set(all).size).toBe(all.length) // no prompt sent twice over both runs
  expect(all.length).toBe(rows<{ n: number }>(out, 'SELECT COUNT(*) AS n FROM llm_cache')[0].n) // every call answered and kept
  expect(all.filter((m) => !m.includes('QUESTION_JSON')).length).toBe(docs) // one call per document
  const stats = await runCli(['world', 'stats', out, '--json'])
  expect(JSON.parse(stats.stdout).hash).toBe(first.hash)
}, 600_000)

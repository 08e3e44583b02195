// tests/view-server: the viewer's API over loopback on a real tiny world and a real oracle bench run — entity search
// and pages (document facts located, verification per edge), question filters that agree with the world's own
// counts, the live oracle trajectory, bench trajectories with gold documents marked, paging limits; bad input is a
// JSON 4xx with a one-line message (never a stack); and `searchgym view` refuses a missing run folder and an
// unfinished world with one line and a non-zero exit, and binds loopback by default.
import Database from 'better-sqlite3'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { openRuns, startViewer, WorldData, type RunningViewer } from '../view'
import type { EntityView, ListPage, QuestionSummary, QuestionView, TrajectorySummary, TrajectoryView } from '../view'
import { runCli } from './helpers/cli-process'
import { makeViewRuns, type ViewRuns } from './helpers/view-runs'

const LONG = 600_000
let runs: ViewRuns
let viewer: RunningViewer
let data: WorldData

beforeAll(async () => {
  runs = await makeViewRuns({ train: false })
  data = WorldData.open(runs.world)
  const opened = openRuns([runs.bench])
  viewer = await startViewer({ world: data, runs: opened }, { host: '127.0.0.1', port: 0 })
  // Run files are indexed in the background; these tests read whole lists, so they start once indexing is done.
  await Promise.all(opened.map((r) => r.ready()))
}, LONG)
afterAll(async () => {
  await viewer?.close()
  data?.close()
  if (runs) rmSync(runs.root, { recursive: true, force: true })
})

async function get<T>(path: string, status = 200): Promise<T> {
  const r = await fetch(new URL(path, viewer.url))
  const body = (await r.json()) as T
  expect({ path, status: r.status }).toEqual({ path, status })
  return body
}
const db = () => data.world.db
const count = (sql: string, ...args: unknown[]) => (db().prepare(sql).get(...args) as { n: number }).n

describe('searchgym view API', () => {
  test('listens on 127.0.0.1 and serves the page shell and its bundle', async () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    const html = await (await fetch(viewer.url)).text()
    expect(html).toContain('<script type="module" src="/app.js">')
    const js = await fetch(new URL('/app.js', viewer.url))
    expect(js.headers.get('content-type')).toMatch(/javascript/)
    expect((await js.text()).length).toBeGreaterThan(10_000)
  })

  test('entity search is paged and filtered on the server', async () => {
    const all = await get<ListPage<{ id: string; name: string }>>('/api/entities?limit=7')
    expect(all.items).toHaveLength(7)
    expect(all.total).toBe(count('SELECT COUNT(*) AS n FROM entities'))
    const city = await get<ListPage<{ type: string }>>('/api/entities?type=City&limit=200')
    expect(city.total).toBe(count("SELECT COUNT(*) AS n FROM entities WHERE type = 'City'"))
    expect(city.items.every((e) => e.type === 'City')).toBe(true)
    const name = (db().prepare('SELECT name FROM entities ORDER BY id LIMIT 1').get() as { name: string }).name
    const found = await get<ListPage<{ name: string }>>(`/api/entities?q=${encodeURIComponent(name.slice(0, 6).toLowerCase())}`)
    expect(found.items.map((e) => e.name)).toContain(name)
    const pct = await get<ListPage<unknown>>('/api/entities?q=%25')
    expect(pct.total).toBe(0) // a literal %, not a wildcard
  })

  test("an entity page: document with its fact sentences located, edges with verification (hits of 15, queries, retrieved)", async () => {
    const hub = db().prepare('SELECT source AS id, COUNT(*) AS n FROM edges GROUP BY source ORDER BY n DESC LIMIT 1').get() as { id: string; n: number }
    const v = await get<EntityView>(`/api/entities/${hub.id}?limit=3`)
    expect(v.entity.id).toBe(hub.id)
    expect(v.doc!.facts.length).toBeGreaterThan(0)
    expect(v.doc!.spans.map((s) => s.text).join('')).toBe(data.world.docOf(hub.id)!.text)
    // Every located fact is marked once, alone or in a shared list sentence (the hub's count is of facts, not marks).
    const marked = v.doc!.spans.flatMap((s) => s.facts ?? (s.fact !== undefined ? [s.fact] : []))
    expect(new Set(marked).size).toBe(marked.length)
    expect(v.doc!.facts.filter((f) => f.located).length).toBe(marked.length)
    expect(v.edges.items).toHaveLength(3)
    expect(v.edges.total).toBe(count('SELECT COUNT(*) AS n FROM edges WHERE source = ? OR target = ?', hub.id, hub.id))
    const e = v.edges.items[0]
    const stored = db().prepare('SELECT hits, kept FROM edge_verification WHERE edge_id = ?').get(e.id) as { hits: number; kept: number }
    expect(e.verification).toMatchObject({ hits: stored.hits, of: 15, kept: stored.kept === 1 })
    expect(e.verification!.queries).toHaveLength(15)
    expect(e.verification!.queries.filter((q) => q.rank > 0).length).toBe(stored.hits)
    expect(v.graph.nodes.some((n) => n.key === hub.id)).toBe(true)
    expect(v.graph.edges.length + v.graph.omitted).toBe(v.edges.total)
  })

  test('questions filter by split, type and hops in SQL; the totals agree with the world', async () => {
    const p = await get<ListPage<QuestionSummary>>('/api/questions?split=bench&type=simple&hops=2&limit=5')
    expect(p.total).toBe(count("SELECT COUNT(*) AS n FROM qa WHERE split = 'bench' AND type = 'simple' AND hops = 2"))
    expect(p.items.every((q) => q.split === 'bench' && q.type === 'simple' && q.hops === 2)).toBe(true)
    const all = await get<ListPage<QuestionSummary>>('/api/questions?limit=1')
    expect(all.total).toBe(count('SELECT COUNT(*) AS n FROM qa'))
    const e = db().prepare('SELECT id, url FROM entities ORDER BY id LIMIT 1').get() as { id: string; url: string }
    const mine = await get<ListPage<QuestionSummary>>(`/api/questions?entity=${e.id}&limit=200`)
    expect(mine.total).toBe(count('SELECT COUNT(*) AS n FROM qa WHERE instr(docs_json, ?) > 0', JSON.stringify(e.url)))
    expect(mine.total).toBeGreaterThan(0)
    const splits = mine.items.map((q) => q.split)
    expect(splits).toEqual([...splits].sort((a, b) => Number(b === 'bench') - Number(a === 'bench'))) // bench first
  })

  test('a question: each hop with its edge, document and evidence sentence; its run; the oracle trajectory', async () => {
    const t = (await get<ListPage<TrajectorySummary>>('/api/runs/oracle-bench/trajectories?limit=1')).items[0]
    const q = await get<QuestionView>(`/api/questions/${t.id}`)
    expect(q.question).toBe(t.question)
    expect(q.hops_.length).toBeGreaterThan(0)
    for (const hp of q.hops_) {
      expect(hp.spans.some((s) => s.fact === 0 && s.text === hp.sentence)).toBe(true)
      if (hp.hop >= 0) expect(hp.edge?.id).toBeDefined()
    }
    expect(q.runs).toEqual([expect.objectContaining({ run: 'oracle-bench', f1: 1 })])
    const o = await get<TrajectoryView>(`/api/questions/${t.id}/oracle`)
    expect(o.f1).toBe(1)
    expect(o.stopReason).toBe('answer')
    expect(o.goldDocs.length).toBe(q.docs.length)
    expect(o.goldDocs.every((g) => g.status === 'opened')).toBe(true)
    expect(o.turns_.some((turn) => turn.calls.some((c) => c.name === 'search'))).toBe(true)
  }, LONG)

  test('bench trajectories: filters by outcome, type and hops; one trajectory turn by turn with gold documents marked', async () => {
    const correct = await get<ListPage<TrajectorySummary>>('/api/runs/oracle-bench/trajectories?outcome=correct&limit=200')
    expect(correct.total).toBe(12)
    expect((await get<ListPage<TrajectorySummary>>('/api/runs/oracle-bench/trajectories?outcome=wrong')).total).toBe(0)
    const t0 = correct.items[0]
    const byHops = await get<ListPage<TrajectorySummary>>(`/api/runs/oracle-bench/trajectories?hops=${t0.hops}&type=${t0.type}&limit=200`)
    expect(byHops.items.every((t) => t.hops === t0.hops && t.type === t0.type)).toBe(true)
    expect(byHops.items.map((t) => t.id)).toContain(t0.id)
    const t = await get<TrajectoryView>(`/api/runs/oracle-bench/trajectories/${t0.id}`)
    expect(t.turns_.length).toBe(t0.turns)
    expect(t.turns_.at(-1)!.answer).toBe(t.prediction)
    expect(t.goldDocs.length).toBeGreaterThan(0)
    expect(t.goldDocs.every((g) => g.status === 'opened')).toBe(true)
    const accessCalls = t.turns_.flatMap((x) => x.calls).filter((c) => c.name === 'access')
    expect(accessCalls.length).toBeGreaterThan(0)
  })

  test('bad input is a JSON 4xx with a one-line message, never a stack trace', async () => {
    const cases: [string, number, RegExp][] = [
      ['/api/entities/no-such-entity', 404, /no entity with id 'no-such-entity'/],
      ['/api/questions/no-such-question', 404, /no question with id 'no-such-question'/],
      ['/api/questions/no-such-question/oracle', 404, /no question with id/],
      ['/api/runs/no-such-run/trajectories', 404, /no run named 'no-such-run'; loaded runs: oracle-bench/],
      ['/api/runs/oracle-bench/trajectories/nope', 404, /no trajectory for question 'nope'/],
      ['/api/runs/oracle-bench/trajectories?outcome=great', 400, /outcome must be one of/],
      ['/api/questions?hops=two', 400, /hops must be an integer/],
      ['/api/entities?limit=100000', 400, /limit must be an integer in \[1, 200\]/],
      ['/api/nothing-here', 404, /no such page or API route/],
    ]
    for (const [path, status, msg] of cases) {
      const body = await get<{ error: { message: string; code: string } }>(path, status)
      expect(body.error.message).toMatch(msg)
      expect(body.error.message).not.toMatch(/\n|    at /)
    }
  })
})

describe('searchgym view CLI', () => {
  const BIN = fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url))

  test('a missing run folder, a non-run folder and an unfinished world are one-line errors with a non-zero exit', async () => {
    const missing = await runCli(['view', '--runs', join(runs.root, 'nope')])
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim()).toMatch(/^searchgym: error: no run folder at .*nope$/)
    const notRun = await runCli(['view', '--runs', runs.world])
    expect(notRun.code).toBe(1)
    expect(notRun.stderr.trim()).toMatch(/^searchgym: error: .* is not a run folder/)
    const unfinished = join(runs.root, 'unfinished')
    cpSync(runs.world, unfinished, { recursive: true })
    const w = new Database(join(unfinished, 'world.db'))
    w.prepare("UPDATE manifest SET value = '0' WHERE key = 'complete'").run()
    w.prepare("UPDATE stages SET status = 'running' WHERE name = 'split'").run()
    w.close()
    const r = await runCli(['view', '--world', unfinished])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/is not finished \(unfinished stages: split\)/)
    const none = await runCli(['view'])
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/give --world DIR, --runs DIR/)
  }, LONG)

  test('prints its URL on 127.0.0.1 by default and serves until SIGTERM', async () => {
    const p = spawn(process.execPath, [BIN, 'view', '--world', runs.world, '--runs', runs.bench, '--port', '0'], { cwd: fileURLToPath(new URL('..', import.meta.url)) })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ''
        let err = ''
        const timer = setTimeout(() => reject(new Error(`no URL within 120 s; stderr: ${err}`)), 120_000)
        p.stderr.on('data', (d: Buffer) => (err += d.toString()))
        p.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const m = /searchgym view: (http:\/\/\S+)/.exec(out)
          if (m) {
            clearTimeout(timer)
            resolve(m[1])
          }
        })
        p.once('exit', (code) => reject(new Error(`view exited with ${code}: ${err}`)))
      })
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      const info = (await (await fetch(new URL('/api/info', url))).json()) as { world: { entities: number }; runs: { name: string }[] }
      expect(info.world.entities).toBe(count('SELECT COUNT(*) AS n FROM entities'))
      expect(info.runs.map((r) => r.name)).toEqual(['oracle-bench'])
    } finally {
      const exited = new Promise((r) => p.once('exit', r))
      p.kill('SIGTERM')
      await exited
    }
  }, LONG)
})

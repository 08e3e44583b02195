// tests/view-guard-compare: the viewer's security and its record handling over loopback, on a real tiny world and a
// real oracle bench run — a foreign Host is refused (4xx) while 127.0.0.1 and localhost work; CSP, nosniff and
// frame-ancestors on every answer; the live oracle refuses a cross-site page; offset=1e300 is a 400; a favicon; a run
// with malformed records lists the good ones and flags the bad (never a 500); and the paired comparison lists
// exactly the questions whose F1 differs, checked against bench's own loadRun/compareRuns. Run B of the comparison
// is a FIXTURE: the real oracle run's log with a few questions' F1/EM lowered and one raised (a second real policy
// needs an LLM endpoint).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { compareRuns, loadRun } from '../bench'
import { openRuns, startViewer, WorldData, type RunningViewer } from '../view'
import type { FlaggedRow, PairedComparison, RunInfo, TrajectoryPage } from '../view'
import { makeViewRuns, type ViewRuns } from './helpers/view-runs'

const LONG = 600_000
let runs: ViewRuns
let viewer: RunningViewer
let data: WorldData
let bad: string
let changed: string

/** A raw GET with the headers given as they are (fetch would not let a test set Host). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(viewer.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  runs = await makeViewRuns({ train: false })
  data = WorldData.open(runs.world)
  const lines = readFileSync(join(runs.bench, 'trajectories.jsonl'), 'utf8').split('\n').filter(Boolean)
  // A run with three bad records among the good ones.
  bad = join(runs.root, 'bad-records')
  mkdirSync(bad)
  copyFileSync(join(runs.bench, 'config.json'), join(bad, 'config.json'))
  const first = JSON.parse(lines[0]) as Record<string, unknown>
  writeFileSync(join(bad, 'trajectories.jsonl'), [lines[0], JSON.stringify({ ...first, id: 'bad-f1', f1: '0.5' }), JSON.stringify({ ...first, id: 'bad-turns', turns: 'oops' }), '{"id": "torn', ...lines.slice(1)].join('\n') + '\n')
  // Run B: the oracle's log with questions 0, 2, 4 made wrong (F1 0) — the FIXTURE of the header.
  changed = join(runs.root, 'oracle-changed')
  mkdirSync(changed)
  copyFileSync(join(runs.bench, 'config.json'), join(changed, 'config.json'))
  writeFileSync(join(changed, 'trajectories.jsonl'), lines.map((l, i) => (i % 2 === 0 && i < 6 ? JSON.stringify({ ...JSON.parse(l), f1: 0, em: 0, prediction: 'nobody' }) : l)).join('\n') + '\n')
  viewer = await startViewer({ world: data, runs: openRuns([runs.bench, bad, changed]) }, { host: '127.0.0.1', port: 0 })
}, LONG)
afterAll(async () => {
  await viewer?.close()
  data?.close()
  if (runs) rmSync(runs.root, { recursive: true, force: true })
})

describe('viewer security', () => {
  test('a foreign Host is refused; 127.0.0.1 and localhost work; headers on every answer', async () => {
    const port = new URL(viewer.url).port
    const foreign = await raw('/api/info', { host: `rebind.attacker.example:${port}` })
    expect(foreign.status).toBe(421)
    expect(foreign.body).not.toContain(runs.root)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const ok = await raw('/api/info', { host })
      expect(ok.status).toBe(200)
      expect(ok.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
      expect(ok.headers['x-content-type-options']).toBe('nosniff')
      expect((await raw('/', { host })).status).toBe(200)
    }
    const crossOrigin = await raw('/api/info', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })
    expect(crossOrigin.status).toBe(403)
  })

  test('the live oracle answers same-origin pages and plain clients, not a cross-site page', async () => {
    const port = new URL(viewer.url).port
    const id = (data.world.db.prepare("SELECT id FROM qa WHERE split = 'bench' ORDER BY seq LIMIT 1").get() as { id: string }).id
    const cross = await raw(`/api/questions/${id}/oracle`, { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })
    expect(cross.status).toBe(403)
    expect(JSON.parse(cross.body).error.message).toMatch(/only the viewer's own pages/)
    const same = await raw(`/api/questions/${id}/oracle`, { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })
    expect(same.status).toBe(200)
    expect(JSON.parse(same.body).id).toBe(id)
  }, LONG)

  test('offset=1e300 is a 400, a favicon is served', async () => {
    for (const path of ['/api/entities?offset=1e300', '/api/runs/oracle-bench/trajectories?offset=1e300', '/api/questions?offset=1e300']) {
      const r = await fetch(new URL(path, viewer.url))
      expect({ path, status: r.status }).toEqual({ path, status: 400 })
    }
    const icon = await fetch(new URL('/favicon.ico', viewer.url))
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toMatch(/image\/svg/)
  })
})

describe('malformed records', () => {
  test('the good records are listed and the bad ones flagged with their line and reason; no 500', async () => {
    const list = await (await fetch(new URL('/api/runs/bad-records/trajectories?limit=200', viewer.url))).json() as TrajectoryPage
    const good = readFileSync(join(runs.bench, 'trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).length
    expect(list.complete).toBe(true)
    expect(list.total).toBe(good)
    expect(list.items.map((t) => t.id)).not.toContain('bad-f1')
    expect(list.flaggedTotal).toBe(3)
    const flagged = await (await fetch(new URL('/api/runs/bad-records/flagged', viewer.url))).json() as FlaggedRow[]
    expect(flagged.map((f) => [f.line, f.reason.split(',')[0]])).toEqual([
      [2, '"f1" must be a number'],
      [3, '"turns" must be an array'],
      [4, expect.stringMatching(/^not JSON/)],
    ])
    const info = (await (await fetch(new URL('/api/runs', viewer.url))).json()) as RunInfo[]
    expect(info.find((r) => r.name === 'bad-records')!.flagged).toBe(3)
    const missing = await fetch(new URL('/api/runs/bad-records/trajectories/bad-turns', viewer.url))
    expect(missing.status).toBe(404)
  })
})

describe('paired comparison', () => {
  test('lists exactly the questions whose F1 differs, as bench compare computes them', async () => {
    const A = loadRun(runs.bench)
    const B = loadRun(changed)
    const differ = [...A.records.keys()].filter((id) => B.records.has(id) && A.records.get(id)!.f1 !== B.records.get(id)!.f1).sort()
    expect(differ.length).toBe(3)
    const cmp = await (await fetch(new URL('/api/compare?a=oracle-bench&b=oracle-changed&result=changed&limit=200', viewer.url))).json() as PairedComparison
    expect(cmp.questions.items.map((q) => q.id).sort()).toEqual(differ)
    expect(cmp.questions.items.every((q) => q.result === 'loss')).toBe(true)
    const bench = compareRuns([A, B], { resamples: 2000, seed: 0 })
    const row = bench.rows.find((r) => r.group === 'all' && r.metric === 'f1')!
    const mine = cmp.table.find((r) => r.group === 'all' && r.metric === 'f1')!
    expect([mine.wins, mine.losses, mine.ties]).toEqual([row.diff.wins, row.diff.losses, row.diff.ties])
    expect(mine.diff).toBeCloseTo(row.diff.mean, 12)
    expect([mine.lo, mine.hi]).toEqual([row.diff.lo, row.diff.hi])
    expect(cmp.counts).toEqual({ win: row.diff.wins, loss: row.diff.losses, tie: row.diff.ties })
    // Filters by type and hops keep to the same questions.
    const t = A.records.get(differ[0])!
    const byType = await (await fetch(new URL(`/api/compare?a=oracle-bench&b=oracle-changed&result=changed&type=${t.type}&hops=${t.hops}`, viewer.url))).json() as PairedComparison
    expect(byType.questions.items.map((q) => q.id).sort()).toEqual(differ.filter((id) => A.records.get(id)!.type === t.type && A.records.get(id)!.hops === t.hops))
  })
})

describe('searchgym view --host 0.0.0.0', () => {
  test('prints a URL a browser can open and a warning', async () => {
    const { spawn } = await import('node:child_process')
    const { fileURLToPath } = await import('node:url')
    const p = spawn(process.execPath, [fileURLToPath(new URL('../bin/searchgym.mjs', import.meta.url)), 'view', '--runs', runs.bench, '--port', '0', '--host', '0.0.0.0'], { cwd: fileURLToPath(new URL('..', import.meta.url)) })
    try {
      const out = await new Promise<{ url: string; err: string }>((resolve, reject) => {
        let o = ''
        let e = ''
        const timer = setTimeout(() => reject(new Error(`no URL within 120 s: ${e}`)), 120_000)
        p.stderr.on('data', (d: Buffer) => (e += d.toString()))
        p.stdout.on('data', (d: Buffer) => {
          o += d.toString()
          const m = /searchgym view: (http:\/\/\S+)/.exec(o)
          if (m) setTimeout(() => (clearTimeout(timer), resolve({ url: m[1], err: e })), 300)
        })
      })
      expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      expect(out.err).toMatch(/warning: bound to 0\.0\.0\.0: anyone who can reach this machine/)
      expect((await fetch(new URL('/api/runs', out.url))).status).toBe(200)
    } finally {
      const exited = new Promise((r) => p.once('exit', r))
      p.kill('SIGTERM')
      await exited
    }
  }, LONG)
})


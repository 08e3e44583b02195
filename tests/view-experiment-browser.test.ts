// tests/view-experiment-browser: `searchgym view` in a real headless Chromium on a real experiment (the shipped tiny
// experiment run by the real CLI into a folder the viewer is given the parent of) and one of its tiny worlds — the
// experiment page's arms × seeds tables carry report.json's numbers row for row, each arm's curve has its band across
// seeds, the links open the GRPO runs and the bench runs; a Combo question's path is drawn as a tree (one node per
// path entity, one line per path edge, children left of their parents, the answer on the right). Screenshots go to
// test-artifacts/view-experiment/. Reports itself skipped, with how to install a browser, where none is found.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'puppeteer-core'
import { makeViewExperiment, type ViewExperiment } from './helpers/view-experiment'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/searchgym.mjs')
const ARTIFACTS = join(ROOT, 'test-artifacts', 'view-experiment')
const LONG = 600_000

function findChromium(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((p): p is string => !!p && existsSync(p))
}
const chromium = findChromium()
if (!chromium)
  console.warn('view-experiment-browser: SKIPPED — no Chromium found ($CHROME_PATH, /usr/bin/chromium, …). Install one: sudo apt-get update && sudo apt-get install -y chromium (or run .ci/install-browser)')
const maybe = chromium ? describe : describe.skip

interface Est {
  n: number
  mean: number
  lo: number
  hi: number
}
interface Report {
  arms: { name: string }[]
  seeds: number[]
  steps: number
  sets: { set: string; access: boolean; start: { f1: Est; em: number }; arms: { arm: string; seedF1: Record<string, number>; f1: Est; em: number; gain: Est }[] }[]
}
// bench/report's pct / ci and bench/experiment/report's gain text, written out again here.
const pct = (x: number) => (100 * x).toFixed(1)
const ci = (e: Est) => `${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`
const gain = (e: Est) => `${e.mean >= 0 ? '+' : ''}${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`

maybe('searchgym view: experiments and path trees in headless Chromium', () => {
  let exp: ViewExperiment
  let world: string
  let server: ChildProcess
  let browser: Browser
  let page: Page
  const errors: string[] = []

  const shot = async (name: string) => {
    const path = join(ARTIFACTS, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    console.log(`view-experiment-browser: screenshot ${path}`)
  }
  const open = async (hash: string, sel: string) => {
    await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = ${JSON.stringify(hash)}`)
    await page.waitForSelector(`body[data-state=ready] ${sel}`, { timeout: 60_000 })
  }
  const text = (sel: string) => page.$eval(sel, (e) => (e as unknown as { innerText: string }).innerText)

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true })
    mkdirSync(ARTIFACTS, { recursive: true })
    exp = await makeViewExperiment()
    world = join(exp.parent, 'worlds', readdirSync(join(exp.parent, 'worlds')).sort()[0])
    server = spawn(process.execPath, [BIN, 'view', '--world', world, '--runs', exp.parent, '--port', '0'], { cwd: ROOT })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      let err = ''
      const timer = setTimeout(() => reject(new Error(`searchgym view printed no URL in 180 s; stderr: ${err}`)), 180_000)
      server.stderr!.on('data', (d: Buffer) => (err += d.toString()))
      server.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /searchgym view: (http:\/\/\S+)/.exec(out)
        if (m) (clearTimeout(timer), resolve(m[1]))
      })
      server.once('exit', (code) => reject(new Error(`searchgym view exited with ${code}: ${err}`)))
    })
    const puppeteer = (await import('puppeteer-core')).default
    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'], protocolTimeout: 180_000 })
    page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 })
    await page.waitForSelector('body[data-state=ready] [data-testid=experiments]', { timeout: 60_000 })
  }, LONG)

  afterAll(async () => {
    await browser?.close()
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r))
      server.kill('SIGTERM')
      await exited
    }
    if (exp) rmSync(exp.parent, { recursive: true, force: true })
  })

  test(
    "experiment page: arms × seeds rows with report.json's numbers, a band per arm, links into every run and bench",
    async () => {
      expect(await text('[data-testid=experiments]')).toMatch(/tiny\s+two-stage, mixed\s+0, 1\s+2\s+4\/4/)
      await page.click('[data-testid=experiments] a')
      await page.waitForSelector('body[data-state=ready] [data-testid=exp-curves] svg[data-curve=rewardMean]', { timeout: 60_000 })
      const r = JSON.parse(readFileSync(join(exp.dir, 'report.json'), 'utf8')) as Report
      expect(r.sets.length).toBeGreaterThan(0)
      for (const set of r.sets) {
        const sel = `[data-set="${set.set}${set.access ? '' : '+noaccess'}"]`
        const rows = await page.$$eval(`${sel} tr.exp-seed`, (rs) =>
          rs.map((tr) => ({
            arm: tr.getAttribute('data-arm'),
            seed: tr.getAttribute('data-seed'),
            cells: Object.fromEntries([...tr.querySelectorAll('td[data-cell]')].map((td) => [td.getAttribute('data-cell'), td.textContent])),
            links: [...tr.querySelectorAll('a[data-run-link]')].map((a) => a.getAttribute('data-run-link')),
          })),
        )
        expect(rows).toHaveLength(r.arms.length * r.seeds.length)
        for (const a of r.arms)
          r.seeds.forEach((seed, i) => {
            const row = rows.find((x) => x.arm === a.name && x.seed === String(seed))!
            const res = set.arms.find((x) => x.arm === a.name)!
            expect(row.cells['seed-f1']).toBe(pct(res.seedF1[`s${seed}`]))
            expect(row.links).toEqual([`${a.name}-s${seed}`, `${a.name}-s${seed}@${set.set}${set.access ? '' : '+noaccess'}`])
            if (i === 0) expect([row.cells.arm, row.cells.f1, row.cells.em, row.cells.gain]).toEqual([a.name, ci(res.f1), pct(res.em), gain(res.gain)])
          })
        expect(await page.$eval(`${sel} tr.exp-start td[data-cell=f1]`, (td) => td.textContent)).toBe(ci(set.start.f1))
      }
      for (const key of ['rewardMean', 'f1']) {
        const drawn = await page.$$eval(`svg[data-curve=${key}] path[data-band]`, (ps) => ps.map((p) => [p.getAttribute('data-band'), p.getAttribute('d')]))
        expect(drawn.map(([arm]) => arm)).toEqual(r.arms.map((a) => a.name))
        for (const [, d] of drawn) expect(d).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+Z$/)
        expect(await page.$$eval(`svg[data-curve=${key}] path[data-run]`, (ps) => ps.map((p) => p.getAttribute('data-points')))).toEqual(r.arms.map(() => String(r.steps)))
      }
      await shot('experiment')
      await page.select('[data-testid=band]', 'sd')
      await page.waitForSelector('body[data-state=ready] [data-testid=exp-curves] svg[data-curve=rewardMean] path[data-band]', { timeout: 60_000 })
      expect(await text('[data-testid=exp-curves] h2')).toContain('mean ± 1 sd')

      await open('#/experiment/tiny', `[data-set] a[data-run-link="mixed-s1"]`)
      await page.click('[data-set] a[data-run-link="mixed-s1"]')
      await page.waitForSelector('body[data-state=ready] [data-testid=curves] svg[data-curve=rewardMean]', { timeout: 60_000 })
      expect(await text('main h1')).toBe('Training run mixed-s1')
      await open('#/experiment/tiny', `[data-set] a[data-run-link="mixed-s1@${r.sets[0].set}"]`)
      await page.click(`[data-set] a[data-run-link="mixed-s1@${r.sets[0].set}"]`)
      await page.waitForSelector('body[data-state=ready] [data-testid=trajectory-list]', { timeout: 60_000 })
      expect(await text('main h1')).toBe(`Bench run mixed-s1@${r.sets[0].set}`)
      await open('#/runs', '[data-testid=runs] tr[data-experiment=tiny] a')
      expect(await text('[data-testid=runs] tr[data-experiment=tiny]')).toContain('experiment tiny (14 runs)')
      expect(errors).toEqual([])
    },
    LONG,
  )

  test(
    "a Combo question's path is a tree: one node per path entity, one line per path edge, branches towards the answer",
    async () => {
      const db = new Database(join(world, 'world.db'), { readonly: true })
      const q = db.prepare("SELECT id, path_json FROM qa WHERE type = 'combo' ORDER BY hops DESC, seq LIMIT 1").get() as { id: string; path_json: string }
      const path = [...new Set(JSON.parse(q.path_json) as string[])]
      const ends = new Set<string>()
      for (const id of path) {
        const e = db.prepare('SELECT source, target FROM edges WHERE id = ?').get(id) as { source: string; target: string }
        ends.add(e.source).add(e.target)
      }
      db.close()
      await open(`#/question/${encodeURIComponent(q.id)}`, 'svg[data-testid=path-tree]')
      const nodes = await page.$$eval('svg[data-testid=path-tree] g[data-node]', (gs) =>
        gs.map((g) => {
          const m = /translate\(([\d.]+),([\d.]+)\)/.exec(g.getAttribute('transform')!)!
          return { key: g.getAttribute('data-node')!, role: g.getAttribute('data-role')!, x: Number(m[1]), y: Number(m[2]) }
        }),
      )
      const entities = nodes.filter((n) => n.role !== 'answer')
      expect(entities.map((n) => n.key).sort()).toEqual([...ends].sort())
      const edges = await page.$$eval('svg[data-testid=path-tree] line[data-edge]', (ls) => ls.map((l) => ({ key: l.getAttribute('data-edge')!, child: l.getAttribute('data-child')!, parent: l.getAttribute('data-parent')!, cross: l.getAttribute('stroke-dasharray') !== '' })))
      expect(edges.map((e) => e.key).sort()).toEqual([...path].sort())
      const at = new Map(nodes.map((n) => [n.key, n]))
      // A tree towards the answer: each child sits one column left of its parent; the answer is the rightmost node;
      // no two nodes share a spot; a Combo question has more than one branch (two leaves at least).
      for (const e of edges.filter((x) => !x.cross)) expect(at.get(e.child)!.x).toBeLessThan(at.get(e.parent)!.x)
      const answer = nodes.find((n) => n.role === 'answer')!
      expect(Math.max(...nodes.map((n) => n.x))).toBe(answer.x)
      expect(new Set(nodes.map((n) => `${n.x},${n.y}`)).size).toBe(nodes.length)
      expect(nodes.filter((n) => n.role === 'start').length).toBeGreaterThanOrEqual(2)
      expect(await text('svg[data-testid=path-tree] + * , .path-tree + .graph-note')).toMatch(new RegExp(`^${ends.size} entities, ${path.length} edges`))
      await shot('combo-path-tree')
      expect(errors).toEqual([])
    },
    LONG,
  )
})

// tests/view-browser: `searchgym view` driven in a real headless Chromium (Debian's package, through puppeteer-core)
// on the shared tiny world, an oracle bench run and a two-step training run, all made with the real CLI. Opens each
// view, clicks entity → question → trajectory, asserts on the rendered text, and saves screenshots under
// test-artifacts/view/ (path printed). Reports itself skipped, with how to install a browser, where none is found.
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'puppeteer-core'
import { makeViewRuns, type ViewRuns } from './helpers/view-runs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/searchgym.mjs')
const ARTIFACTS = join(ROOT, 'test-artifacts', 'view')
const LONG = 600_000

/** Chromium from $CHROME_PATH, else the usual Debian/Ubuntu/Google paths. */
function findChromium(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((p): p is string => !!p && existsSync(p))
}

const chromium = findChromium()
if (!chromium)
  console.warn('view-browser: SKIPPED — no Chromium found ($CHROME_PATH, /usr/bin/chromium, …). Install one: sudo apt-get update && sudo apt-get install -y chromium (or run .ci/install-browser)')
const maybe = chromium ? describe : describe.skip

maybe('searchgym view in headless Chromium', () => {
  let runs: ViewRuns
  let server: ChildProcess
  let url: string
  let browser: Browser
  let page: Page
  let shots = 0
  let changed: string
  let differ: string[]

  const shot = async (name: string) => {
    const path = join(ARTIFACTS, `${String(++shots).padStart(2, '0')}-${name}.png`)
    await page.screenshot({ path, fullPage: true })
    console.log(`view-browser: screenshot ${path}`)
  }
  /** Navigate by hash and wait until the page has rendered the element `sel`. */
  const open = async (hash: string, sel: string) => {
    await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = ${JSON.stringify(hash)}`)
    await page.waitForSelector(`body[data-state=ready] ${sel}`, { timeout: 60_000 })
  }
  const text = (sel: string) => page.$eval(sel, (e) => (e as unknown as { innerText: string }).innerText)

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true })
    mkdirSync(ARTIFACTS, { recursive: true })
    runs = await makeViewRuns({ train: true })
    changed = join(runs.root, 'oracle-changed')
    mkdirSync(changed)
    copyFileSync(join(runs.bench, 'config.json'), join(changed, 'config.json'))
    const lines = readFileSync(join(runs.bench, 'trajectories.jsonl'), 'utf8').split('\n').filter(Boolean)
    writeFileSync(join(changed, 'trajectories.jsonl'), lines.map((l, i) => (i % 2 === 0 && i < 6 ? JSON.stringify({ ...JSON.parse(l), f1: 0, em: 0, prediction: 'nobody' }) : l)).join('\n') + '\n')
    differ = lines.filter((_, i) => i % 2 === 0 && i < 6).map((l) => (JSON.parse(l) as { id: string }).id).sort()
    server = spawn(process.execPath, [BIN, 'view', '--world', runs.world, '--runs', runs.bench, runs.train!, changed, '--port', '0'], { cwd: ROOT })
    url = await new Promise<string>((resolve, reject) => {
      let out = ''
      let err = ''
      const timer = setTimeout(() => reject(new Error(`searchgym view printed no URL in 180 s; stderr: ${err}`)), 180_000)
      server.stderr!.on('data', (d: Buffer) => (err += d.toString()))
      server.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /searchgym view: (http:\/\/\S+)/.exec(out)
        if (m) {
          clearTimeout(timer)
          resolve(m[1])
        }
      })
      server.once('exit', (code) => reject(new Error(`searchgym view exited with ${code}: ${err}`)))
    })
    const puppeteer = (await import('puppeteer-core')).default
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
      protocolTimeout: 180_000,
    })
    page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 })
    await page.waitForSelector('body[data-state=ready]', { timeout: 60_000 })
    expect(errors).toEqual([])
  }, LONG)

  afterAll(async () => {
    await browser?.close()
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r))
      server.kill('SIGTERM')
      await exited
    }
    if (runs) rmSync(runs.root, { recursive: true, force: true })
  })

  test(
    'home → entity search → entity (document, graph, verification) → question (hops, evidence, oracle) → bench trajectory',
    async () => {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/)
      expect(await text('main')).toMatch(/World \S+: \d+ entities/)
      await shot('home')

      // The entity of the first bench question's first document: its questions list puts bench questions first.
      const db = new Database(join(runs.world, 'world.db'), { readonly: true })
      const first = db.prepare("SELECT id, question, docs_json FROM qa WHERE split = 'bench' ORDER BY seq LIMIT 1").get() as { id: string; question: string; docs_json: string }
      const entity = db.prepare('SELECT id, name FROM entities WHERE url = ?').get((JSON.parse(first.docs_json) as string[])[0]) as { id: string; name: string }
      db.close()

      await open(`#/entities?q=${encodeURIComponent(entity.name)}`, `[data-testid=entity-list] a[data-entity="${entity.id}"]`)
      expect(await text('[data-testid=entity-list]')).toContain(entity.name)
      await shot('entity-search')

      await page.click(`[data-testid=entity-list] a[data-entity="${entity.id}"]`)
      await page.waitForSelector('[data-testid=entity-name]')
      expect(await text('[data-testid=entity-name]')).toBe(entity.name)
      expect(await page.$$eval('.doc mark.fact', (m) => m.length)).toBeGreaterThan(0)
      expect(await text('[data-testid=edges]')).toMatch(/\d+ of 15 hits \(keep ≥ 5\) — (kept|dropped)/)
      await page.waitForSelector('[data-testid=graph][data-rendered]')
      expect(await page.$eval('[data-testid=graph]', (g) => g.getAttribute('data-rendered'))).toBe('sigma')
      const drawn = await page.$eval('[data-testid=graph]', (g) => [g.getAttribute('data-nodes-inside'), g.getAttribute('data-nodes-apart')])
      const nodes = /^(\d+) nodes/.exec(await text('[data-testid=graph] + .graph-note'))![1]
      expect(Number(nodes)).toBeGreaterThan(1)
      expect(drawn).toEqual([nodes, 'true'])
      await shot('entity')

      await page.click(`[data-testid=question-list] a[data-question="${first.id}"]`)
      await page.waitForSelector('[data-testid=question-text]')
      expect(await text('[data-testid=question-text]')).toBe(first.question)
      expect((await page.$$('[data-testid=evidence]')).length).toBeGreaterThan(0)
      await page.waitForSelector('[data-testid=oracle] [data-testid=trajectory]', { timeout: 120_000 })
      expect(await text('[data-testid=oracle]')).toMatch(/correct[\s\S]*Turn 1[\s\S]*search: /)
      await shot('question')

      await page.click('[data-testid=question-runs] a[data-run=oracle-bench]')
      await page.waitForSelector('[data-testid=trajectory-question]')
      expect(await text('[data-testid=trajectory-question]')).toBe(first.question)
      expect(await text('[data-testid=outcome]')).toBe('correct')
      const golds = await page.$$eval('[data-testid=gold-docs] [data-gold]', (g) => g.map((x) => x.getAttribute('data-gold')))
      expect(golds.length).toBeGreaterThan(0)
      expect(golds.every((g) => g === 'opened')).toBe(true)
      expect(await page.$$eval('[data-call=access]', (c) => c.length)).toBeGreaterThan(0)
      await shot('trajectory')
    },
    LONG,
  )

  test(
    'runs: training curves with stage markers, bench summary with CIs, trajectory filters; bad ids give a clear page',
    async () => {
      await open('#/runs', '[data-testid=curves] svg[data-curve=rewardMean]')
      expect(await page.$$eval('svg[data-curve] path[data-run=two-step-train]', (l) => l.length)).toBeGreaterThanOrEqual(4)
      expect(await text('[data-testid=bench-summary]')).toMatch(/overall\s+100\.0 \[100\.0, 100\.0\]\s+100\.0 \[100\.0, 100\.0\]/)
      expect(await text('[data-testid=curves]')).toMatch(/two-step-train \(stages: stage1@1/)
      await shot('runs')

      await open('#/run/oracle-bench?outcome=correct', '[data-testid=trajectory-list]')
      expect(await text('[data-testid=page-info]')).toBe('1–12 of 12')
      await open('#/run/oracle-bench?outcome=wrong', '[data-testid=page-info]')
      expect(await text('[data-testid=page-info]')).toBe('nothing matches')
      await open('#/run/two-step-train', '[data-testid=no-trajectories]')
      // The curves above the list arrive on their own request (the page is ready before them).
      await page.waitForSelector('[data-testid=curves][data-complete=true] svg[data-curve=rewardMean]', { timeout: 60_000 })
      expect(await text('[data-testid=curves]')).toContain('reward')
      await shot('train-run')

      await open('#/entity/no-such-entity', '[data-testid=error]')
      expect(await text('[data-testid=error-message]')).toBe("no entity with id 'no-such-entity' in this world; search for it by name on the entities page")
      await shot('error-entity')
      await open('#/run/no-such-run', '[data-testid=error]')
      expect(await text('[data-testid=error-message]')).toMatch(/^no run named 'no-such-run'; loaded runs: oracle-bench, two-step-train, oracle-changed$/)
      await open('#/question/no-such-question', '[data-testid=error]')
      expect(await text('[data-testid=error-message]')).toMatch(/no question with id 'no-such-question'/)
      expect(await text('main')).not.toMatch(/    at |Error:/)
    },
    LONG,
  )

  test(
    'paired comparison: the bench compare table, exactly the questions whose F1 differs, one question side by side',
    async () => {
      await open('#/compare?a=oracle-bench&b=oracle-changed', '[data-testid=compare-table]')
      expect(await text('[data-testid=compare-table]')).toMatch(/all\s+F1\s+12\s+100\.0\s+75\.0\s+-25\.0 \[/)
      expect(await text('main')).toContain('0 wins, 3 losses, 9 ties for oracle-changed')
      await shot('compare')
      await open('#/compare?a=oracle-bench&b=oracle-changed&result=changed', '[data-testid=pair-list]')
      const listed = await page.$$eval('[data-testid=pair-list] tr[data-pair]', (r) => r.map((x) => x.getAttribute('data-pair')!))
      expect(listed.sort()).toEqual(differ)
      await page.click(`[data-testid=pair-list] tr[data-pair="${differ[0]}"] a`)
      await page.waitForSelector('body[data-state=ready] [data-testid=pair] [data-side=oracle-changed] [data-testid=trajectory]')
      expect(await page.$$eval('[data-testid=pair] [data-testid=outcome]', (o) => o.map((x) => x.textContent))).toEqual(['correct', 'wrong'])
      await shot('pair')
    },
    LONG,
  )
})

// tests/view-search-r1-browser: the viewer reads each run's turns with the protocol the run's policy wrote (issue 59,
// item 8a). A bench run played in search-r1 (the oracle writing <search>/<answer> tags through the real env, the
// protocol every shipped experiment uses) has no malformed turn in its own counts; its trajectory page and the side by
// side page show none either (c3906aa parsed every turn as hermes and painted each tool turn red, "malformed:
// no_action"). Checked through the API and in headless Chromium (Debian's package; skipped with how to install one
// where none is found), with a screenshot under test-artifacts/view-search-r1/.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'puppeteer-core'
import { ORACLE_BUDGETS, ORACLE_MAX_QUERIES_PER_PAGE, oraclePolicy, worldOracleKnowledge } from '../agent'
import { openBenchWorld } from '../bench/gym-world'
import { runBench } from '../bench/run'
import { loadTrajectories } from '../bench/trajectory-log'
import type { BenchRunConfig } from '../bench/types'
import { scoreAnswer } from '../gym'
import { openWorld } from '../world'
import { sharedTinyWorld } from './helpers/shared-world'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/searchgym.mjs')
const ARTIFACTS = join(ROOT, 'test-artifacts', 'view-search-r1')
const LONG = 300_000
const chromium = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p): p is string => !!p && existsSync(p))
if (!chromium) console.warn('view-search-r1-browser: the browser part is SKIPPED — no Chromium found. Install one: sudo apt-get update && sudo apt-get install -y chromium (or .ci/install-browser)')

const root = mkdtempSync(join(tmpdir(), 'sg-view-sr1-'))
let world = ''
let run = ''
let server: ChildProcess | undefined
let url = ''
let ids: string[] = []

beforeAll(async () => {
  world = (await sharedTinyWorld()).dir
  run = join(root, 'search-r1-oracle')
  // The oracle's knowledge reads the world file as it walks: the world stays open until the run is done.
  const w = openWorld(world)
  const knowledge = worldOracleKnowledge(w)
  const bw = await openBenchWorld(world)
  try {
    const config: BenchRunConfig = {
      world, worldId: bw.id, split: 'train', policy: 'oracle', model: '', baseURL: '', apiKeyEnv: 'OPENAI_API_KEY', protocol: 'search-r1', limit: 6, limitMode: 'first',
      concurrency: 2, seed: 0, timeoutMs: 60_000, maxRetries: 0, temperature: 0, maxTokens: 1024, ragDocs: 3, prices: null, judge: null,
      gym: { accessByTitle: true, budgets: { ...ORACLE_BUDGETS } }, bootstrap: 50,
    } as BenchRunConfig
    const plan = { maxQueriesPerPage: ORACLE_MAX_QUERIES_PER_PAGE, pages: 'needed' as const, answer: 'read' as const }
    await runBench(run, config, { world: bw, policyFor: (qa) => oraclePolicy(qa, knowledge, plan, 'search-r1', true), scorer: scoreAnswer, quiet: true, warn: () => undefined })
  } finally {
    await bw.close()
    w.close()
  }
  server = spawn(process.execPath, [BIN, 'view', '--world', world, '--runs', run, '--port', '0'], { cwd: ROOT })
  url = await new Promise<string>((resolve, reject) => {
    let out = ''
    server!.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /searchgym view: (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    server!.once('exit', (code) => reject(new Error(`searchgym view exited ${code}`)))
  })
}, LONG)

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r))
    server.kill('SIGTERM')
    await exited
  }
  rmSync(root, { recursive: true, force: true })
})

test('the run itself: search-r1 turns, tool calls made, nothing malformed', () => {
  const recs = loadTrajectories(join(run, 'trajectories.jsonl')).records
  expect(recs.length).toBe(6)
  ids = recs.map((r) => r.id)
  for (const r of recs) {
    expect(r.counts.malformed).toBe(0)
    expect(r.formatValid).toBe(true)
    expect(r.turns.some((t) => /<search>/.test(t.text))).toBe(true)
  }
})

test('the viewer API parses every turn with the run\'s protocol: calls shown, no malformed mark', async () => {
  const info = (await (await fetch(`${url}api/runs`)).json()) as { name: string; protocol: string }[]
  expect(info).toEqual([expect.objectContaining({ name: 'search-r1-oracle', protocol: 'search-r1' })])
  for (const id of ids) {
    const t = (await (await fetch(`${url}api/runs/search-r1-oracle/trajectories/${encodeURIComponent(id)}`)).json()) as { turns_: { malformed: string | null; calls: { name: string }[]; answer: string | null }[] }
    expect(t.turns_.filter((x) => x.malformed !== null)).toEqual([])
    expect(t.turns_.some((x) => x.calls.some((c) => c.name === 'search'))).toBe(true)
    expect(t.turns_.at(-1)!.answer).not.toBeNull()
  }
})

const maybe = chromium ? test : test.skip
maybe('in Chromium: the trajectory and the side by side pages show the calls and no "malformed" (screenshot)', async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  const puppeteer = (await import('puppeteer-core')).default
  const browser: Browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'], protocolTimeout: 180_000 })
  try {
    const page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    await page.goto(`${url}#/trajectory/search-r1-oracle/${encodeURIComponent(ids[0])}`, { waitUntil: 'load', timeout: 120_000 })
    await page.waitForSelector('body[data-state=ready] [data-testid=trajectory-question]', { timeout: 60_000 })
    const main = await page.$eval('main', (e) => (e as unknown as { innerText: string }).innerText)
    expect(main).not.toMatch(/malformed/)
    expect(await page.$$eval('[data-call=search]', (c) => c.length)).toBeGreaterThan(0)
    expect(await page.$$eval('.outcome-wrong', (c) => c.length)).toBe(0)
    // Pages opened by title count as opened gold documents.
    expect(await page.$$eval('[data-testid=gold-docs] [data-gold]', (g) => g.map((x) => x.getAttribute('data-gold')))).toContain('opened')
    const shot = join(ARTIFACTS, 'search-r1-trajectory.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`view-search-r1-browser: screenshot ${shot}`)
    await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = ${JSON.stringify(`#/pair/search-r1-oracle/search-r1-oracle/${encodeURIComponent(ids[0])}`)}`)
    await page.waitForSelector('body[data-state=ready] [data-testid=pair] [data-side]', { timeout: 60_000 })
    const side = await page.$eval('main', (e) => (e as unknown as { innerText: string }).innerText)
    expect(side).not.toMatch(/malformed/)
    expect(await page.$$eval('[data-call=search]', (c) => c.length)).toBeGreaterThan(0)
    await page.screenshot({ path: join(ARTIFACTS, 'search-r1-side-by-side.png'), fullPage: true })
  } finally {
    await browser.close()
  }
}, LONG)

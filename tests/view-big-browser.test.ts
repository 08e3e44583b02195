// tests/view-big-browser: `searchgym view` on big runs in a real headless Chromium — a 20,000-step training run and a
// trajectories.jsonl of SG_VIEW_BIG_MB megabytes (default 48 here; the 400 MB timings are in bench/RESULTS.md) with a
// 5,000-turn record (one 50,000-character text) and a malformed one, generated into a temporary folder. Asserts: the
// pages render while the big file is still being indexed, other requests are answered meanwhile, curves are downsampled,
// the long trajectory is paged and its long text collapsed, the malformed record is a flagged row. The issue-40 timing
// bars (first render < 2 s — the runs table and the first curves drawn, partial while metrics.jsonl is still being
// indexed; the complete curves are timed and printed too —, other requests < 100 ms) are asserted only with SG_VIEW_BIG_TIMING=1 (a benchmark on an idle
// box); every timing is printed. Screenshots under test-artifacts/view-big/.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'puppeteer-core'
import { makeBigRuns, type BigRuns } from './helpers/view-big-runs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/searchgym.mjs')
const ARTIFACTS = join(ROOT, 'test-artifacts', 'view-big')
const LONG = 600_000
const MB = Number(process.env.SG_VIEW_BIG_MB ?? 48)
const STEPS = Number(process.env.SG_VIEW_BIG_STEPS ?? 20_000)
/** The bars of issue 40: first render < 2 s, other requests < 100 ms. */
const RENDER_MS = 2000
const REQUEST_MS = 100

function findChromium(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((p): p is string => !!p && existsSync(p))
}
const chromium = findChromium()
if (!chromium) console.warn('view-big-browser: SKIPPED — no Chromium found ($CHROME_PATH, /usr/bin/chromium, …); run .ci/install-browser')
const maybe = chromium ? describe : describe.skip

maybe(`searchgym view on a ${STEPS}-step run and a ${MB} MB trajectories.jsonl`, () => {
  let root: string
  let big: BigRuns
  let server: ChildProcess
  let url: string
  let browser: Browser
  let page: Page
  const timings: Record<string, number | string> = {}

  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true })
    mkdirSync(ARTIFACTS, { recursive: true })
    root = mkdtempSync(join(tmpdir(), 'sg-view-big-'))
    const t0 = Date.now()
    big = makeBigRuns(root, { steps: STEPS, mb: MB })
    timings.generateS = (Date.now() - t0) / 1000
    timings.fileMB = +(big.bytes / 2 ** 20).toFixed(1)
    timings.records = big.records
    const puppeteer = (await import('puppeteer-core')).default
    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'], protocolTimeout: 180_000 })
    page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    // Warm the browser (and the page bundle's build) on a blank page, so the first render timed below is the viewer's.
    await page.goto('about:blank')
    server = spawn(process.execPath, [BIN, 'view', '--runs', big.train, big.bench, '--port', '0'], { cwd: ROOT })
    url = await new Promise<string>((resolve, reject) => {
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
    timings.startedAt = Date.now()
  }, LONG)

  afterAll(async () => {
    console.log(`view-big-browser timings: ${JSON.stringify(timings)}`)
    await browser?.close()
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r))
      server.kill('SIGTERM')
      await exited
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  const timed = async (path: string) => {
    const t = performance.now()
    const r = await fetch(new URL(path, url))
    await r.arrayBuffer()
    expect({ path, status: r.status }).toEqual({ path, status: 200 })
    return performance.now() - t
  }

  test(
    'first render of the runs page < 2 s while indexing; other requests < 100 ms meanwhile; the 5,000-turn trajectory < 2 s',
    async () => {
      // The client's own first fetch costs tens of ms (Node loads its HTTP client on first use): paid on a throwaway
      // loopback server, so the latencies below are the viewer's.
      const warm = createServer((_q, r) => r.end('{}'))
      await new Promise<void>((r) => warm.listen(0, '127.0.0.1', r))
      await (await fetch(`http://127.0.0.1:${(warm.address() as { port: number }).port}/`)).arrayBuffer()
      await new Promise((r) => warm.close(r))
      // Requests from another client all through the indexing, in the background of the page loads below.
      const lat: number[] = []
      let indexing = true
      const poller = (async () => {
        const paths = ['/api/info', '/api/runs', '/favicon.ico', '/api/runs/big-bench/trajectories?limit=50', '/api/runs/big-bench/trajectories?outcome=correct&offset=100']
        for (let k = 0; indexing; k++) {
          const ms = await timed(paths[k % paths.length])
          if (ms > Math.max(0, ...lat)) timings.requestMaxPath = `${paths[k % paths.length]} at +${((Date.now() - (timings.startedAt as number)) / 1000).toFixed(1)} s`
          lat.push(ms)
          await new Promise((r) => setTimeout(r, 20))
        }
      })()

      const t0 = performance.now()
      await page.goto(`${url}#/runs`, { waitUntil: 'domcontentloaded' })
      await page.waitForSelector('body[data-state=ready] [data-testid=runs] tr[data-run=big-bench]', { timeout: 60_000 })
      timings.runsPageMs = Math.round(performance.now() - t0)
      // First drawn from the metrics lines indexed so far (the page redraws until all are in), then complete.
      await page.waitForSelector('[data-testid=curves] svg[data-curve=rewardMean] path[data-run=big-train]', { timeout: 60_000 })
      timings.runsPageCurvesMs = Math.round(performance.now() - t0)
      await page.waitForSelector('[data-testid=curves][data-complete=true] svg[data-curve=rewardMean] path[data-run=big-train]', { timeout: 60_000 })
      timings.runsPageCurvesCompleteMs = Math.round(performance.now() - t0)
      expect(await page.$eval('svg[data-curve=rewardMean] [data-run=big-train]', (p) => p.getAttribute('d')!.split('L').length)).toBeGreaterThan(500)
      const stillIndexing = await page.$eval('[data-run=big-bench] [data-testid=run-trajectories]', (e) => e.textContent ?? '')
      timings.runsPageSawIndexing = stillIndexing
      // The 20k steps arrive as ≤ 600 buckets: one path per series, a min/max band.
      expect(Number(await page.$eval('svg[data-curve=rewardMean] path[data-run=big-train]', (p) => p.getAttribute('data-points')))).toBeLessThanOrEqual(600)
      expect(await page.$$eval('svg[data-curve] circle', (c) => c.length)).toBe(0)
      await page.screenshot({ path: join(ARTIFACTS, '01-runs-while-indexing.png'), fullPage: true })

      // Hover a chart: the crosshair reads the run's value there (the curves are complete: nothing redraws them).
      const box = (await (await page.$('svg[data-curve=rewardMean] rect'))!.boundingBox())!
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
      expect(await page.$eval('svg[data-curve=rewardMean] [data-testid=hover]', (e) => e.textContent ?? '')).toMatch(/^big-train @ \d+: [\d.]+ \[[\d.]+, [\d.]+\]/)
      await page.screenshot({ path: join(ARTIFACTS, '02-curves-hover.png') })
      // Every metric selectable, log scale and the wall-clock axis.
      await page.evaluate(`location.hash = '#/runs?keys=gradNorm,kl,timing/rssMB&log=1&x=time&smooth=0.9'`)
      await page.waitForSelector('body[data-state=ready] svg[data-curve="timing/rssMB"] path[data-run=big-train]', { timeout: 60_000 })
      expect(await page.$$eval('svg[data-curve]', (s) => s.map((x) => x.getAttribute('data-curve')))).toEqual(['gradNorm', 'kl', 'timing/rssMB'])
      expect(await page.$eval('svg[data-curve=kl]', (s) => s.textContent ?? '')).toMatch(/KL|kl \(log\)[\s\S]*wall clock/)
      await page.screenshot({ path: join(ARTIFACTS, '03-curves-log-wallclock.png'), fullPage: true })

      // Wait for the index to finish, then stop the poller.
      const tIdx = performance.now()
      for (;;) {
        const runs = (await (await fetch(new URL('/api/runs', url))).json()) as { name: string; indexing: { complete: boolean } }[]
        if (runs.every((r) => r.indexing.complete)) break
        await new Promise((r) => setTimeout(r, 100))
      }
      timings.indexDoneAfterStartS = (Date.now() - (timings.startedAt as number)) / 1000
      timings.indexWaitS = +((performance.now() - tIdx) / 1000).toFixed(1)
      indexing = false
      await poller
      lat.sort((a, b) => a - b)
      timings.requestsDuringIndexing = lat.length
      timings.requestMedianMs = +lat[Math.floor(lat.length / 2)].toFixed(1)
      timings.requestP95Ms = +lat[Math.floor(lat.length * 0.95)].toFixed(1)
      timings.requestMaxMs = +lat[lat.length - 1].toFixed(1)
      expect(lat.length).toBeGreaterThan(5)

      // The 5,000-turn trajectory, first render (its line read, parsed and laid out on this request).
      const t1 = performance.now()
      await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = '#/trajectory/big-bench/${big.longId}'`)
      await page.waitForSelector('body[data-state=ready] [data-testid=trajectory] [data-turn="100"]', { timeout: 60_000 })
      timings.longTrajectoryMs = Math.round(performance.now() - t1)
      expect(await page.$$eval('[data-turn]', (t) => t.length)).toBe(100)
      expect(await page.$eval('[data-testid=page-info]', (e) => e.textContent)).toBe('1–100 of 5000')
      await page.screenshot({ path: join(ARTIFACTS, '04-trajectory-5000-turns.png') })
      // A 50,000-character text: collapsed on the page, cut at 20,000 by the API, whole after "show all".
      expect(await page.$eval('[data-turn="1"] pre', (p) => [p.getAttribute('data-collapsed'), p.textContent!.length])).toEqual(['true', 1202])
      await page.click('[data-turn="1"] button.more')
      await page.waitForSelector('[data-turn="1"] pre[data-collapsed=false]')
      expect(await page.$eval('[data-turn="1"] pre', (p) => p.textContent!.length)).toBe(50_000)
      await page.click('[data-testid=next]')
      await page.waitForSelector('body[data-state=ready] [data-turn="101"]', { timeout: 60_000 })
      // Timing bars are a benchmark, not a CI gate (a loaded 2-core CI box decides nothing about speed): asserted only
      // with SG_VIEW_BIG_TIMING=1 on an idle machine; always printed.
      console.log(`view-big-browser timings: ${JSON.stringify(timings)}`)
      if (process.env.SG_VIEW_BIG_TIMING === '1') {
        expect(timings.requestMaxMs).toBeLessThan(REQUEST_MS)
        expect(timings.runsPageMs).toBeLessThan(RENDER_MS)
        expect(timings.runsPageCurvesMs).toBeLessThan(RENDER_MS)
        expect(timings.longTrajectoryMs).toBeLessThan(RENDER_MS)
      }
    },
    LONG,
  )

  test('a malformed record is a flagged row; the rest of the run lists', async () => {
    await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = '#/run/big-bench'`)
    await page.waitForSelector('body[data-state=ready] [data-testid=flagged] tr.flagged', { timeout: 60_000 })
    expect(await page.$eval('[data-testid=flagged]', (e) => (e as unknown as { innerText: string }).innerText)).toMatch(/Malformed records skipped \(1\)[\s\S]*trajectories\.jsonl\s+11\s+"f1" must be a number, got a string \("0\.5"\)/)
    expect(await page.$eval('[data-testid=page-info]', (e) => e.textContent)).toBe(`1–50 of ${big.records - 1}`)
    await page.screenshot({ path: join(ARTIFACTS, '05-run-flagged-row.png'), fullPage: true })
  }, LONG)
})

// bench/perf/view: how fast the viewer answers on a large world — the entity view (median-degree entity and the
// biggest hub) and the question list (first page, a filtered page, a deep page, an entity's questions), each over
// HTTP on loopback from the real server (p50 / max of --reps), and, when a Chromium is found, the time from a
// navigation to the rendered page in headless Chromium (what a person waits for). The target is < 1 s each.
// Usage: node bin/run-ts.mjs bench/perf/view.ts --world DIR [--reps 20] [--chromium PATH|none]
import { existsSync } from 'node:fs'
import { openRuns, startViewer, WorldData } from '../../view'
import { machineLine, pct, perfArgs, timed } from './perf-kit'

const USAGE = 'node bin/run-ts.mjs bench/perf/view.ts --world DIR [--reps 20] [--chromium PATH|none]'
const { values: a } = perfArgs(USAGE, { world: { type: 'string' }, reps: { type: 'string', default: '20' }, chromium: { type: 'string' } })
if (!a.world) {
  process.stderr.write(`give --world DIR; usage: ${USAGE}\n`)
  process.exit(2)
}
const reps = Number(a.reps)
if (!Number.isInteger(reps) || reps < 1) {
  process.stderr.write(`--reps must be a positive integer; usage: ${USAGE}\n`)
  process.exit(2)
}

const opened = await timed(() => WorldData.open(a.world!))
const data = opened.value
const db = data.world.db
const degrees = db.prepare('SELECT id, (SELECT COUNT(*) FROM edges WHERE source = e.id) + (SELECT COUNT(*) FROM edges WHERE target = e.id) AS d FROM entities e ORDER BY d, id').all() as { id: string; d: number }[]
const median = degrees[Math.floor(degrees.length / 2)]
const hub = degrees[degrees.length - 1]
const info = data.info()
const qaTotal = Object.values(info.questions).reduce((x, y) => x + y, 0)
const viewer = await startViewer({ world: data, runs: openRuns([]) }, { host: '127.0.0.1', port: 0 })

const cases: [string, string][] = [
  [`entity view, median degree (${median.d} edges)`, `/api/entities/${median.id}`],
  [`entity view, biggest hub (${hub.d} edges)`, `/api/entities/${hub.id}`],
  ['question list, first page (50)', '/api/questions?limit=50'],
  ['question list, split+type+hops filter', '/api/questions?split=bench&type=combo&hops=3&limit=50'],
  ['question list, text filter', '/api/questions?text=capital&limit=50'],
  [`question list, deep page (offset ${qaTotal - 50})`, `/api/questions?offset=${qaTotal - 50}&limit=50`],
  ["an entity's questions (the hub)", `/api/questions?entity=${hub.id}&limit=20`],
  ['entity search "an"', '/api/entities?q=an&limit=50'],
]

console.log(`view perf on ${a.world}: ${info.entities} entities, ${info.edges} edges, ${qaTotal} questions; ${reps} reps; ${machineLine()}`)
console.log(`open (world + the viewer's temp question tables): ${opened.wall.toFixed(2)} s wall, ${opened.cpu.toFixed(2)} s CPU`)
console.log('| request | p50 ms | max ms | bytes |')
console.log('| --- | ---: | ---: | ---: |')
const total = await timed(async () => {
  for (const [name, path] of cases) {
    const ms: number[] = []
    let bytes = 0
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now()
      const r = await fetch(new URL(path, viewer.url))
      const body = await r.arrayBuffer()
      ms.push(performance.now() - t0)
      if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${Buffer.from(body).toString().slice(0, 200)}`)
      bytes = body.byteLength
    }
    console.log(`| ${name} | ${pct(ms, 0.5).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${bytes} |`)
  }
})
console.log(`HTTP part: ${total.wall.toFixed(1)} s wall, ${total.cpu.toFixed(1)} s CPU (user+sys, this process: server and client)`)

const chromium = a.chromium === 'none' ? undefined : (a.chromium ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p)))
if (!chromium) console.log('page load in Chromium: not measured (no Chromium; pass --chromium PATH)')
else {
  const puppeteer = (await import('puppeteer-core')).default
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'], protocolTimeout: 180_000 })
  try {
    const page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    await page.goto(viewer.url, { waitUntil: 'load', timeout: 120_000 })
    await page.waitForSelector('body[data-state=ready]', { timeout: 120_000 })
    const pages: [string, string][] = [
      ['entity page, median degree', `#/entity/${median.id}`],
      ['entity page, biggest hub', `#/entity/${hub.id}`],
      ['question list', '#/questions'],
      ['question list, filtered', '#/questions?split=bench&type=combo&hops=3'],
    ]
    console.log('| page in headless Chromium (navigation → rendered) | p50 ms | max ms | renderer main-thread busy p50 ms |')
    console.log('| --- | ---: | ---: | ---: |')
    for (const [name, hash] of pages) {
      const ms: number[] = []
      const busy: number[] = []
      for (let i = 0; i < Math.min(reps, 10); i++) {
        await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = '#/runs'`)
        await page.waitForSelector('body[data-state=ready]', { timeout: 120_000 })
        // TaskDuration: seconds the renderer's main thread was busy (CPU-like; fairer than wall time under load).
        const m0 = (await page.metrics()).TaskDuration ?? 0
        const t0 = performance.now()
        await page.evaluate(`document.body.dataset.state = 'stale'; location.hash = ${JSON.stringify(hash)}`)
        await page.waitForSelector('body[data-state=ready]', { timeout: 120_000 })
        ms.push(performance.now() - t0)
        busy.push(((await page.metrics()).TaskDuration ?? 0) * 1000 - m0 * 1000)
      }
      console.log(`| ${name} | ${pct(ms, 0.5).toFixed(0)} | ${Math.max(...ms).toFixed(0)} | ${pct(busy, 0.5).toFixed(0)} |`)
    }
  } finally {
    await browser.close()
  }
}
await viewer.close()
data.close()

// bench/perf/soak: a bounded soak of `gym serve` over loopback — N clients (default 64) for S seconds (default 600)
// mixing env create/step/close, /v1/search and Search-R1 /retrieve batches; reports errors, latency p50/p99 per
// operation, the server's resident memory at start/end (sampled every 10 s), and open envs at the end.
// Usage: node bin/run-ts.mjs bench/perf/soak.ts [--seconds 600] [--clients 64] [--world DIR] [--workers N] [--out FILE.json]
// --workers N is passed to `gym serve` (default: its own default, one worker per core); RSS is the primary's plus its workers'.
// --world DIR is required (the paper world for recorded numbers). Draws come from Rng(seed).
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { Rng } from '../../infra/rng'
import { jsonClient, pct, startGymServe, treeRssMiB, worldWorkload, type JsonReply } from './loopback'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/soak.ts [--seconds 600] [--clients 64] [--world DIR] [--workers N] [--out FILE.json]', {
  seconds: { type: 'string', default: '600' },
  clients: { type: 'string', default: '64' },
  world: { type: 'string' },
  out: { type: 'string' },
  seed: { type: 'string', default: '1' },
  workers: { type: 'string' },
})
const seconds = Number(opt.seconds)
const clients = Number(opt.clients)
const world = opt.world
const out = opt.out
const seed = Number(opt.seed)
const workers = opt.workers
if (!(seconds > 0) || !Number.isInteger(clients) || clients < 1) {
  process.stderr.write('soak: --seconds must be > 0 and --clients a positive integer\n')
  process.exit(2)
}

type Op = 'create' | 'step' | 'close' | 'search' | 'retrieve'
const lat: Record<Op, number[]> = { create: [], step: [], close: [], search: [], retrieve: [] }
const errors: { op: Op; what: string }[] = []
let errorCount = 0

const load = await worldWorkload(world, 'soak')
const server = await startGymServe({ world: world!, flags: ['--max-envs', '100000', ...(workers ? ['--workers', workers] : [])] })
const http = jsonClient(server.url, clients)
const { qaIds, words, urls } = load

async function timed(op: Op, method: string, path: string, body: unknown, ok: (r: JsonReply) => boolean): Promise<JsonReply | undefined> {
  const t0 = performance.now()
  try {
    const r = await http.call(method, path, body)
    lat[op].push(performance.now() - t0)
    if (!ok(r)) {
      errorCount++
      if (errors.length < 20) errors.push({ op, what: `${r.status} ${JSON.stringify(r.body).slice(0, 160)}` })
      return undefined
    }
    return r
  } catch (e) {
    errorCount++
    if (errors.length < 20) errors.push({ op, what: (e as Error).message })
    return undefined
  }
}

const query = (rng: Rng) => Array.from({ length: rng.int(1, 4) }, () => words[rng.int(0, words.length - 1)]).join(' ')

async function episode(rng: Rng): Promise<void> {
  const c = await timed('create', 'POST', '/v1/envs', { qaId: qaIds[rng.int(0, qaIds.length - 1)] }, (r) => r.status === 201)
  if (!c) return
  const id = c.body.envId as string
  const steps = rng.int(1, 4)
  for (let s = 0; s < steps; s++) {
    const text =
      s === steps - 1
        ? '<answer>Brenlow</answer>'
        : rng.bool()
          ? `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(query(rng))}}}</tool_call>`
          : `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(urls[rng.int(0, urls.length - 1)])}}}</tool_call>`
    await timed('step', 'POST', `/v1/envs/${id}/step`, { action: text }, (r) => r.status === 200)
  }
  await timed('close', 'DELETE', `/v1/envs/${id}`, undefined, (r) => r.status === 200)
}

const rss: { t: number; mib: number }[] = []
const t0 = performance.now()
const sampleRss = () => rss.push({ t: (performance.now() - t0) / 1000, mib: treeRssMiB(server.pid) })
sampleRss()
const sampler = setInterval(sampleRss, 10_000)
const end = t0 + seconds * 1000
console.log(`# soak — ${clients} clients, ${seconds} s, world ${world}, workers ${workers ?? 'default'}, node ${process.version}, load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)

await Promise.all(
  Array.from({ length: clients }, async (_, c) => {
    const rng = Rng.derive(seed, 'soak-client', c)
    while (performance.now() < end) {
      const pick = rng.weightedIndex([1, 2, 1])
      if (pick === 0) await episode(rng)
      else if (pick === 1) await timed('search', 'POST', '/v1/search', { query: query(rng) }, (r) => r.status === 200)
      else {
        // Search-R1 batches: often empty (no sample searched), sometimes hundreds of queries.
        const n = rng.bool(0.2) ? 0 : rng.int(1, rng.bool(0.1) ? 512 : 16)
        const queries = Array.from({ length: n }, () => query(rng))
        await timed('retrieve', 'POST', '/retrieve', { queries, topk: 3 }, (r) => r.status === 200 && Array.isArray(r.body.result) && (r.body.result as unknown[]).length === n)
      }
    }
  }),
)
clearInterval(sampler)
sampleRss()
const health = await http.call('GET', '/health')
const wall = (performance.now() - t0) / 1000
const all = Object.values(lat).flat()
const ops = Object.fromEntries(
  (Object.keys(lat) as Op[]).map((k) => [k, { n: lat[k].length, p50: +pct(lat[k], 0.5).toFixed(2), p99: +pct(lat[k], 0.99).toFixed(2) }]),
)
// Growth over the second half: memory that levels off has a slope near 0.
const half = rss.filter((r) => r.t >= wall / 2)
const slope = half.length >= 2 ? (half[half.length - 1].mib - half[0].mib) / ((half[half.length - 1].t - half[0].t) / 60) : NaN
const report = {
  clients,
  workers: workers ?? 'default',
  seconds: +wall.toFixed(1),
  world,
  node: process.version,
  calls: all.length,
  callsPerSec: +(all.length / wall).toFixed(0),
  errors: errorCount,
  errorSamples: errors,
  p50: +pct(all, 0.5).toFixed(2),
  p99: +pct(all, 0.99).toFixed(2),
  ops,
  rssStartMiB: +rss[0].mib.toFixed(1),
  rssEndMiB: +rss[rss.length - 1].mib.toFixed(1),
  rssMaxMiB: +Math.max(...rss.map((r) => r.mib)).toFixed(1),
  rssSecondHalfMiBPerMin: +slope.toFixed(2),
  openEnvsAtEnd: health.body.envs,
  loadAvgAfter: loadavg().map((x) => +x.toFixed(1)),
  rss: rss.map((r) => [+r.t.toFixed(0), +r.mib.toFixed(1)]),
}
console.log(JSON.stringify({ ...report, rss: undefined }, null, 2))
if (out) writeFileSync(out, JSON.stringify(report, null, 2) + '\n')
http.close()
await server.stop()
process.exit(errorCount === 0 ? 0 : 1)

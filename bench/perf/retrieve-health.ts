// bench/perf/retrieve-health: does a maximal /retrieve stall `gym serve`? Over loopback against a real `gym serve
// --workers N` — /health latency (p50, p99, max) from P probes on a fresh connection per call (as a load balancer
// checks; the primary hands a new connection to a worker that is free) and P probes each on one kept-alive connection
// (as a trainer's pool: stuck to whichever worker took it), first with no batch in flight, then during one and during two concurrent maximal
// batches (--max-retrieve-hits / topk queries: 16,384 x topk 4 by default, distinct world questions, answers read and
// counted, not parsed). Prints the machine, the date and the command; the figures for bench/RESULTS.md come from a quiet box.
// Usage: node bin/run-ts.mjs bench/perf/retrieve-health.ts --world DIR [--workers 2] [--topk 4] [--probes 2] [--quiet-seconds 3] [--rounds 1] [--retrieve-unit page|passage] [--out FILE.json]
import { writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { DEFAULT_SERVER_OPTIONS } from '../../gym/server'
import { RETRIEVE_UNITS } from '../../world/search/retrieve-units'
import { pct, startGymServe, worldWorkload } from './loopback'
import { perfArgs } from './perf-args'

const args = process.argv.slice(2)
const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/retrieve-health.ts --world DIR [--workers 2] [--topk 4] [--probes 2] [--quiet-seconds 3] [--rounds 1] [--retrieve-unit page|passage] [--out FILE.json]', {
  world: { type: 'string' },
  workers: { type: 'string', default: '2' },
  topk: { type: 'string', default: '4' },
  probes: { type: 'string', default: '2' },
  'quiet-seconds': { type: 'string', default: '3' },
  rounds: { type: 'string', default: '1' },
  'retrieve-unit': { type: 'string', default: 'page' },
  out: { type: 'string' },
})
const world = opt.world
const workers = Number(opt.workers)
const topk = Number(opt.topk)
const probes = Number(opt.probes)
const quietSeconds = Number(opt['quiet-seconds'])
const rounds = Number(opt.rounds)
const unit = opt['retrieve-unit']!
const out = opt.out
for (const [k, v] of Object.entries({ workers, topk, probes, rounds }))
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`bench/perf/retrieve-health: --${k} must be a positive integer, got ${String(v)}\n`)
    process.exit(2)
  }
if (!(RETRIEVE_UNITS as readonly string[]).includes(unit)) {
  process.stderr.write(`bench/perf/retrieve-health: --retrieve-unit must be ${RETRIEVE_UNITS.join(' or ')}, got ${unit}\n`)
  process.exit(2)
}
if (!(quietSeconds > 0)) {
  process.stderr.write('bench/perf/retrieve-health: --quiet-seconds must be > 0\n')
  process.exit(2)
}
const batch = Math.min(DEFAULT_SERVER_OPTIONS.maxBatchQueries, Math.floor(DEFAULT_SERVER_OPTIONS.maxRetrieveHits / topk))
const load = await worldWorkload(world, 'bench/perf/retrieve-health')
const la = () => loadavg().map((x) => x.toFixed(2)).join(' ')

console.log(`# /health during maximal /retrieve batches — ${new Date().toISOString()}`)
console.log(`command: node bin/run-ts.mjs bench/perf/retrieve-health.ts ${args.join(' ')}`)
console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load avg ${la()}`)
console.log(`server: gym serve ${world} --workers ${workers} --retrieve-unit ${unit} (default limits); batch ${batch} queries x topk ${topk} = ${batch * topk} hits`)

/** One HTTP call, on its own connection or on `agent`'s; resolves with the status and the bytes of the answer (read, not kept). */
function call(url: URL, method: string, path: string, body?: string, agent?: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = agent ? {} : { connection: 'close' }
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: agent ?? false }, (res) => {
      let bytes = 0
      res.on('data', (d: Buffer) => (bytes += d.length))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

interface Latency {
  n: number
  p50: number
  p99: number
  max: number
}

interface Phase {
  phase: string
  batches: number
  /** Probes on a fresh connection per call. */
  fresh: Latency
  /** Probes each on one kept-alive connection. */
  kept: Latency
  /** Wall time of each batch, ms. */
  batchMs: number[]
  /** Answer size of each batch, MiB. */
  batchMiB: number[]
  bad: number
  /** This (client) process's own event-loop delay max, ms: a probe that waited on the client, not the server. */
  clientLagMax: number
}

const server = await startGymServe({ world: world!, flags: ['--workers', String(workers), '--retrieve-unit', unit] })
const url = new URL(server.url)
const phases: Phase[] = []
try {
  // Distinct queries per batch (the world's questions, numbered), so no engine cache answers a batch twice.
  const queries = (b: number) => Array.from({ length: batch }, (_, i) => `${load.questions[(b * batch + i) % load.questions.length]} ${b}-${i}`)
  for (let i = 0; i < 20; i++) await call(url, 'GET', '/health')
  let nextBatch = 0
  const run = async (phase: string, concurrent: number): Promise<Phase> => {
    const lag = monitorEventLoopDelay({ resolution: 10 })
    lag.enable()
    const fresh: number[] = []
    const kept: number[] = []
    let bad = 0
    let done = false
    const probe = async (lat: number[], agent?: Agent) => {
      while (!done) {
        const t0 = performance.now()
        const r = await call(url, 'GET', '/health', undefined, agent)
        if (!done) lat.push(performance.now() - t0)
        if (r.status !== 200) bad++
      }
      agent?.destroy()
    }
    const bodies = Array.from({ length: concurrent }, () => JSON.stringify({ queries: queries(nextBatch++), topk, return_scores: true }))
    const batchMs: number[] = []
    const batchMiB: number[] = []
    const work =
      concurrent === 0
        ? new Promise<void>((r) => setTimeout(r, quietSeconds * 1000))
        : Promise.all(
            bodies.map(async (b) => {
              const t0 = performance.now()
              const r = await call(url, 'POST', '/retrieve', b)
              batchMs.push(Math.round(performance.now() - t0))
              batchMiB.push(+(r.bytes / 2 ** 20).toFixed(1))
              if (r.status !== 200) bad++
            }),
          ).then(() => undefined)
    await Promise.all([
      work.then(() => (done = true)),
      ...Array.from({ length: probes }, () => probe(fresh)),
      ...Array.from({ length: probes }, () => probe(kept, new Agent({ keepAlive: true, maxSockets: 1 }))),
    ])
    const stats = (l: number[]): Latency => ({ n: l.length, p50: +pct(l, 0.5).toFixed(1), p99: +pct(l, 0.99).toFixed(1), max: +Math.max(...l).toFixed(1) })
    lag.disable()
    return { phase, batches: concurrent, fresh: stats(fresh), kept: stats(kept), batchMs, batchMiB, bad, clientLagMax: +(lag.max / 1e6).toFixed(1) }
  }
  for (let r = 0; r < rounds; r++)
    for (const [name, n] of [
      ['no batch', 0],
      ['one batch', 1],
      ['two batches', 2],
    ] as const) {
      const p = await run(name, n)
      phases.push(p)
      console.log(
        `${p.phase.padEnd(11)}: /health fresh connections n=${p.fresh.n} p50 ${p.fresh.p50} ms, p99 ${p.fresh.p99} ms, max ${p.fresh.max} ms; ` +
          `kept-alive n=${p.kept.n} p50 ${p.kept.p50} ms, p99 ${p.kept.p99} ms, max ${p.kept.max} ms` +
          (n ? `; batch wall ${p.batchMs.join(', ')} ms, answer ${p.batchMiB.join(', ')} MiB` : '') +
          `; non-200 ${p.bad}; client event-loop delay max ${p.clientLagMax} ms; load ${la()}`,
      )
    }
} finally {
  await server.stop()
}
if (out) writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), args, cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, batch, topk, workers, phases }, null, 2) + '\n')
process.exit(phases.every((p) => p.bad === 0) ? 0 : 1)

// bench/perf/gym-workers: full-episode throughput of `gym serve --workers N` over loopback, one server per worker
// count — C concurrent clients (default 64) each running whole episodes (create, search, access, search, answer,
// close) for S seconds, then S seconds of stateless /v1/search. Reports env steps/s, searches/s (search tool calls
// inside episodes), /v1/search calls/s, step latency p50/p99, errors, (N > 1) the step p50 over one connection of an
// env on each worker (one local, the others forwarded: the forwarding cost), the server tree's RSS, the load average before
// and after, and each count's speedup over the first. Draws come from Rng(seed); the workload from the world.
// Usage: node bin/run-ts.mjs bench/perf/gym-workers.ts --world DIR [--workers 1,2] [--clients 64] [--seconds 20] [--out FILE.json]
import { writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { Rng } from '../../infra/rng'
import { jsonClient, pct, startGymServe, treeRssMiB, worldWorkload } from './loopback'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/gym-workers.ts --world DIR [--workers 1,2] [--clients 64] [--seconds 20] [--out FILE.json]', {
  world: { type: 'string' },
  workers: { type: 'string', default: `1,${availableParallelism()}` },
  clients: { type: 'string', default: '64' },
  seconds: { type: 'string', default: '20' },
  seed: { type: 'string', default: '1' },
  out: { type: 'string' },
})
const world = opt.world
const counts = opt.workers.split(',').map(Number)
const clients = Number(opt.clients)
const seconds = Number(opt.seconds)
const seed = Number(opt.seed)
const out = opt.out
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(clients) || clients < 1 || !(seconds > 0)) {
  process.stderr.write('gym-workers: --workers is a comma list of positive integers (e.g. 1,2), --clients a positive integer, --seconds > 0\n')
  process.exit(2)
}
const load = await worldWorkload(world, 'gym-workers')
const la = () => loadavg().map((x) => +x.toFixed(2))

interface Run {
  workers: number
  stepsPerSec: number
  searchesPerSec: number
  episodesPerSec: number
  stepP50: number
  stepP99: number
  v1SearchPerSec: number
  v1SearchP99: number
  errors: number
  errorSamples: string[]
  rssMiB: number
  /** --workers > 1: mean step latency over ONE connection for an env on each worker (one local, the others forwarded). */
  oneConnectionStepMs?: Record<string, number>
  loadBefore: number[]
  loadAfter: number[]
}

async function measure(workers: number): Promise<Run> {
  const server = await startGymServe({ world: world!, flags: ['--workers', String(workers), '--max-envs', '100000'] })
  const http = jsonClient(server.url, clients)
  const errorSamples: string[] = []
  let errors = 0
  const bad = (what: string) => {
    errors++
    if (errorSamples.length < 10) errorSamples.push(what)
  }
  const word = (rng: Rng) => load.words[rng.int(0, load.words.length - 1)]
  const search = (rng: Rng) => `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(`${word(rng)} ${word(rng)}`)}}}</tool_call>`
  const access = (rng: Rng) => `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(load.urls[rng.int(0, load.urls.length - 1)])}}}</tool_call>`
  try {
    // Warm-up: every worker's caches and JIT see the workload before the clock starts.
    for (let i = 0; i < 100 * workers; i++) await http.call('POST', '/v1/search', { query: load.questions[i % load.questions.length] })
    const loadBefore = la()
    const lat: number[] = []
    let steps = 0
    let searches = 0
    let episodes = 0
    let end = performance.now() + seconds * 1000
    let t0 = performance.now()
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const rng = Rng.derive(seed, 'gym-workers', c)
        while (performance.now() < end) {
          const made = await http.call('POST', '/v1/envs', { qaId: load.qaIds[rng.int(0, load.qaIds.length - 1)] })
          if (made.status !== 201) {
            bad(`create ${made.status} ${JSON.stringify(made.body).slice(0, 120)}`)
            continue
          }
          const id = made.body.envId as string
          for (const [kind, action] of [
            ['search', search(rng)],
            ['access', access(rng)],
            ['search', search(rng)],
            ['answer', `<answer>${word(rng)}</answer>`],
          ] as const) {
            const t = performance.now()
            const r = await http.call('POST', `/v1/envs/${id}/step`, { action })
            lat.push(performance.now() - t)
            if (r.status !== 200) bad(`step ${r.status} ${JSON.stringify(r.body).slice(0, 120)}`)
            else {
              steps++
              if (kind === 'search') searches++
            }
          }
          const closed = await http.call('DELETE', `/v1/envs/${id}`)
          if (closed.status !== 200) bad(`close ${closed.status}`)
          else episodes++
        }
      }),
    )
    const wall = (performance.now() - t0) / 1000
    const rssMiB = +treeRssMiB(server.pid).toFixed(1)
    const searchLat: number[] = []
    end = performance.now() + seconds * 1000
    t0 = performance.now()
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = c; performance.now() < end; i += clients) {
          const t = performance.now()
          const r = await http.call('POST', '/v1/search', { query: load.questions[i % load.questions.length] })
          searchLat.push(performance.now() - t)
          if (r.status !== 200) bad(`/v1/search ${r.status}`)
        }
      }),
    )
    const searchWall = (performance.now() - t0) / 1000
    // Forwarding cost: over one connection (so one worker parses every request), steps of an env on each worker in
    // turn; the worker the connection landed on answers its own env's steps, and forwards the others'.
    let oneConnectionStepMs: Record<string, number> | undefined
    if (workers > 1) {
      const one = jsonClient(server.url, 1)
      const byWorker = new Map<string, string>()
      for (let i = 0; i < 4 * workers && byWorker.size < workers; i++) {
        const r = await one.call('POST', '/v1/envs', { qaId: load.qaIds[i % load.qaIds.length], options: { budgets: { maxTurns: 1000, maxContextTokens: 100_000_000 } } })
        if (r.status !== 201) bad(`one-connection create ${r.status} ${JSON.stringify(r.body).slice(0, 120)}`)
        const w = /^env_w(\d+)_/.exec(String(r.body.envId))?.[1]
        if (w !== undefined && !byWorker.has(w)) byWorker.set(w, r.body.envId as string)
      }
      const ms: Record<string, number[]> = {}
      const rng = Rng.derive(seed, 'gym-workers-one-connection')
      for (let i = 0; i < 400; i++)
        for (const [w, id] of byWorker) {
          const t = performance.now()
          const r = await one.call('POST', `/v1/envs/${id}/step`, { action: search(rng) })
          if (r.status !== 200) bad(`one-connection step ${r.status}`)
          if (i >= 50) (ms[`worker ${w}`] ??= []).push(performance.now() - t)
        }
      oneConnectionStepMs = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, +pct(v, 0.5).toFixed(3)]))
      one.close()
    }
    return {
      oneConnectionStepMs,
      workers,
      stepsPerSec: Math.round(steps / wall),
      searchesPerSec: Math.round(searches / wall),
      episodesPerSec: Math.round(episodes / wall),
      stepP50: +pct(lat, 0.5).toFixed(2),
      stepP99: +pct(lat, 0.99).toFixed(2),
      v1SearchPerSec: Math.round(searchLat.length / searchWall),
      v1SearchP99: +pct(searchLat, 0.99).toFixed(2),
      errors,
      errorSamples,
      rssMiB,
      loadBefore,
      loadAfter: la(),
    }
  } finally {
    http.close()
    await server.stop()
  }
}

console.log(`# gym-workers — world ${world}, ${clients} clients, ${seconds} s a phase, workers ${counts.join(' vs ')}, ${availableParallelism()} cores, node ${process.version}, load avg ${la().join(' ')}`)
const runs: Run[] = []
for (const n of counts) {
  const r = await measure(n)
  runs.push(r)
  const base = runs[0]
  console.log(
    `--workers ${n}: ${r.stepsPerSec} env steps/s (x${(r.stepsPerSec / base.stepsPerSec).toFixed(2)}), ${r.searchesPerSec} searches/s in episodes, ${r.episodesPerSec} episodes/s, step p50 ${r.stepP50} ms p99 ${r.stepP99} ms; ` +
      `/v1/search ${r.v1SearchPerSec} calls/s (x${(r.v1SearchPerSec / base.v1SearchPerSec).toFixed(2)}) p99 ${r.v1SearchP99} ms; errors ${r.errors}; RSS ${r.rssMiB} MiB; load ${r.loadBefore.join(' ')} → ${r.loadAfter.join(' ')}` +
      (r.oneConnectionStepMs ? `; one connection, step p50 by owner: ${Object.entries(r.oneConnectionStepMs).map(([k, v]) => `${k} ${v} ms`).join(', ')}` : ''),
  )
}
if (out) writeFileSync(out, JSON.stringify({ world, clients, seconds, cores: availableParallelism(), node: process.version, runs }, null, 2) + '\n')
process.exit(runs.every((r) => r.errors === 0) ? 0 : 1)

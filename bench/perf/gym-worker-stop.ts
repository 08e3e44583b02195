// bench/perf/gym-worker-stop: `gym serve --workers 2` under load with one worker SIGSTOPped in the middle (issue 59) —
// C clients (default 32) run whole episodes (create, search, access, search, answer, close) for S seconds (default 60),
// each over its own keep-alive connection; at S/2 − STOP/2 worker 1 is SIGSTOPped for STOP seconds (default 10), then
// SIGCONT. Every request is classed by phase (before / during / after the stop), kind (create, step, close) and the
// worker that holds its env; reported: requests and failures per class with their codes, requests slower than 2 s (a
// keep-alive connection the stopped worker holds waits for it), whether /health (polled on fresh connections every
// 0.5 s) named the stopped worker while it was stopped, and the envs open after every client closed its own (a client
// whose step failed closes its env at the end). Claims it checks (exit 1 when one fails): no failure on an env of the
// running worker, no failed create, /health degraded naming worker 1 during the stop, 0 envs open after.
// Usage: node bin/run-ts.mjs bench/perf/gym-worker-stop.ts --world DIR [--clients 32] [--seconds 60] [--stop 10] [--out FILE.json]
import { writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { request } from 'node:http'
import { Rng } from '../../infra/rng'
import { jsonClient, pct, startGymServe, treeRssMiB, worldWorkload, type JsonReply } from './loopback'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/gym-worker-stop.ts --world DIR [--clients 32] [--seconds 60] [--stop 10] [--out FILE.json]', {
  world: { type: 'string' },
  clients: { type: 'string', default: '32' },
  seconds: { type: 'string', default: '60' },
  stop: { type: 'string', default: '10' },
  seed: { type: 'string', default: '1' },
  out: { type: 'string' },
})
const clients = Number(opt.clients)
const seconds = Number(opt.seconds)
const stopS = Number(opt.stop)
const seed = Number(opt.seed)
if (!Number.isInteger(clients) || clients < 1 || !(seconds > 0) || !(stopS > 0) || stopS >= seconds) {
  process.stderr.write('gym-worker-stop: --clients is a positive integer, --seconds > 0, 0 < --stop < --seconds\n')
  process.exit(2)
}
const load = await worldWorkload(opt.world, 'gym-worker-stop')
const la = () => loadavg().map((x) => +x.toFixed(2))

type Phase = 'before' | 'during' | 'after'
type Kind = 'create' | 'step' | 'close'
interface Tally {
  requests: number
  failures: number
  codes: Record<string, number>
  slow: number
  latencies: number[]
}
const tallies = new Map<string, Tally>()
const tally = (phase: Phase, kind: Kind, owner: string): Tally => {
  const k = `${phase} ${kind} ${owner}`
  let t = tallies.get(k)
  if (!t) tallies.set(k, (t = { requests: 0, failures: 0, codes: {}, slow: 0, latencies: [] }))
  return t
}

/** One request on a fresh connection (so it reaches a worker that takes connections); null when none answered in ms. */
function fresh(base: string, path: string, ms: number): Promise<JsonReply | null> {
  const u = new URL(base)
  return new Promise((resolve) => {
    const req = request({ host: u.hostname, port: u.port, path, agent: false, headers: { connection: 'close' } }, (res) => {
      let t = ''
      res.on('data', (d: Buffer) => (t += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(t) as Record<string, unknown> }))
    })
    req.setTimeout(ms, () => {
      req.destroy()
      resolve(null)
    })
    req.on('error', () => resolve(null))
    req.end()
  })
}

const server = await startGymServe({ world: opt.world!, flags: ['--workers', '2', '--max-envs', '100000'] })
const ownerOf = (id: string) => /^env_w(\d+)_/.exec(id)?.[1] ?? '?'
let phase: Phase = 'before'
const healthDuring: { at: number; named: boolean; status: string | null }[] = []
let exitCode = 0
try {
  const list = (await fresh(server.url, '/health', 10_000))!.body.workers as { list: { index: number; pid: number }[] }
  const victim = list.list[1]
  const word = (rng: Rng) => load.words[rng.int(0, load.words.length - 1)]
  const search = (rng: Rng) => `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(`${word(rng)} ${word(rng)}`)}}}</tool_call>`
  const access = (rng: Rng) => `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(load.urls[rng.int(0, load.urls.length - 1)])}}}</tool_call>`
  const loadBefore = la()
  const t0 = performance.now()
  const end = t0 + seconds * 1000
  const stopAt = ((seconds - stopS) / 2) * 1000
  // The stop, and /health polled on fresh connections while it lasts.
  const stopper = (async () => {
    await new Promise((r) => setTimeout(r, stopAt))
    process.kill(victim.pid, 'SIGSTOP')
    phase = 'during'
    const until = performance.now() + stopS * 1000
    while (performance.now() < until) {
      const h = await fresh(server.url, '/health', 1000)
      const w = (h?.body.workers as { list: { index: number; responding?: boolean }[] } | undefined)?.list[1]
      healthDuring.push({ at: +((performance.now() - t0) / 1000).toFixed(1), named: w?.responding === false, status: h ? String(h.body.status) : null })
      await new Promise((r) => setTimeout(r, 500))
    }
    process.kill(victim.pid, 'SIGCONT')
    phase = 'after'
  })()
  let steps = 0
  const leftOpen: string[] = []
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const http = jsonClient(server.url, 1)
      const rng = Rng.derive(seed, 'gym-worker-stop', c)
      const timed = async (kind: Kind, owner: string, method: string, path: string, body?: unknown) => {
        const p = phase
        const t = performance.now()
        let r: JsonReply
        try {
          r = await http.call(method, path, body)
        } catch (e) {
          r = { status: 0, body: { error: { code: (e as NodeJS.ErrnoException).code ?? 'network' } } }
        }
        const ms = performance.now() - t
        const o = kind === 'create' && r.status === 201 ? ownerOf(String(r.body.envId)) : owner
        const x = tally(p, kind, o)
        x.requests++
        x.latencies.push(ms)
        if (ms > 2000) x.slow++
        const ok = r.status === (kind === 'create' ? 201 : 200)
        if (!ok) {
          x.failures++
          const code = `${r.status} ${String((r.body.error as { code?: string } | undefined)?.code ?? '')}`
          x.codes[code] = (x.codes[code] ?? 0) + 1
        }
        return { ok, r }
      }
      while (performance.now() < end) {
        const made = await timed('create', 'any', 'POST', '/v1/envs', { qaId: load.qaIds[rng.int(0, load.qaIds.length - 1)] })
        if (!made.ok) continue
        const id = made.r.body.envId as string
        let failed = false
        for (const action of [search(rng), access(rng), search(rng), `<answer>${word(rng)}</answer>`]) {
          const s = await timed('step', ownerOf(id), 'POST', `/v1/envs/${id}/step`, { action })
          if (s.ok) steps++
          else {
            failed = true
            break
          }
        }
        const closed = failed ? { ok: false } : await timed('close', ownerOf(id), 'DELETE', `/v1/envs/${id}`)
        if (!closed.ok) leftOpen.push(id)
      }
      http.close()
    }),
  )
  await stopper
  const wall = (performance.now() - t0) / 1000
  // Envs whose step or close failed (their worker was stopped): closed now, as a client would once it answers again.
  let health = (await fresh(server.url, '/health', 10_000))!
  for (let i = 0; i < 50 && health.body.status !== 'ok'; i++) {
    await new Promise((r) => setTimeout(r, 200))
    health = (await fresh(server.url, '/health', 10_000))!
  }
  const closer = jsonClient(server.url, 4)
  const lateCloses = await Promise.all(leftOpen.map((id) => closer.call('DELETE', `/v1/envs/${id}`)))
  closer.close()
  const after = (await fresh(server.url, '/health', 10_000))!.body
  const rows = [...tallies].sort(([a], [b]) => a.localeCompare(b)).map(([k, t]) => ({ class: k, requests: t.requests, failures: t.failures, codes: t.codes, slowOver2s: t.slow, p50ms: +pct(t.latencies, 0.5).toFixed(1), p99ms: +pct(t.latencies, 0.99).toFixed(1) }))
  const failuresOn = (pred: (k: string) => boolean) => rows.filter((r) => pred(r.class)).reduce((s, r) => s + r.failures, 0)
  const claims = {
    noFailureOnRunningWorkersEnvs: failuresOn((k) => / 0$/.test(k)) === 0,
    noFailedCreate: failuresOn((k) => / create /.test(k)) === 0,
    healthNamedStoppedWorker: healthDuring.some((h) => h.named),
    zeroEnvsOpenAfter: after.envs === 0,
  }
  const result = {
    world: opt.world, clients, seconds, stopSeconds: stopS, stoppedWorker: victim, cores: availableParallelism(), node: process.version, wall: +wall.toFixed(1),
    stepsPerSec: Math.round(steps / wall), rows, healthDuring, lateCloses: { count: lateCloses.length, ok: lateCloses.filter((r) => r.status === 200).length },
    envsOpenAfter: after.envs, orphansClosed: after.orphansClosed, rssMiB: +treeRssMiB(server.pid).toFixed(1), loadBefore, loadAfter: la(), claims,
  }
  console.log(`# gym-worker-stop — world ${opt.world}, --workers 2, ${clients} clients, ${seconds} s, worker 1 (pid ${victim.pid}) SIGSTOPped for ${stopS} s from ${(stopAt / 1000).toFixed(0)} s; ${availableParallelism()} cores, node ${process.version}`)
  console.log(`${result.stepsPerSec} env steps/s over ${result.wall} s; RSS ${result.rssMiB} MiB; load ${loadBefore.join(' ')} → ${result.loadAfter.join(' ')}`)
  console.log('| phase kind env-worker | requests | failures (codes) | > 2 s | p50 ms | p99 ms |\n| --- | ---: | --- | ---: | ---: | ---: |')
  for (const r of rows) console.log(`| ${r.class} | ${r.requests} | ${r.failures}${r.failures ? ` (${Object.entries(r.codes).map(([k, v]) => `${k} ×${v}`).join(', ')})` : ''} | ${r.slowOver2s} | ${r.p50ms} | ${r.p99ms} |`)
  const named = healthDuring.filter((h) => h.named)
  console.log(`/health during the stop: ${healthDuring.length} polls, ${named.length} named worker 1 (first at ${named[0]?.at ?? '–'} s; stop began at ${(stopAt / 1000).toFixed(1)} s), ${healthDuring.filter((h) => h.status === null).length} unanswered`)
  console.log(`envs whose worker was stopped, closed at the end: ${result.lateCloses.ok}/${result.lateCloses.count}; envs open after: ${String(after.envs)}; orphans closed by the server: ${String(after.orphansClosed)}`)
  console.log(`claims: ${Object.entries(claims).map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`).join(', ')}`)
  if (opt.out) writeFileSync(opt.out, JSON.stringify(result, null, 2) + '\n')
  exitCode = Object.values(claims).every(Boolean) ? 0 : 1
} finally {
  await server.stop()
}
process.exit(exitCode)

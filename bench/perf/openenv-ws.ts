// bench/perf/openenv-ws: load on the OpenEnv face of `gym serve` — S concurrent WebSocket sessions (default 64), each
// playing whole episodes for T seconds (default 60) as OpenEnv's EnvClient speaks to /ws: reset (a drawn question),
// 1-4 tool calls (search, access) and an answer, then the next reset on the same socket; then every socket closes.
// Reports episodes, steps/s, step latency p50/p99, errors (an error reply, a closed socket, a step that ends when it
// should not or does not end on the answer), the sessions left open afterwards (/health's open envs, waited for up to
// 10 s), the server tree's RSS and the load average before and after. Draws come from Rng.derive(seed, ...); the
// workload (question ids, title words, page URLs) from the world.
// Usage: node bin/run-ts.mjs bench/perf/openenv-ws.ts --world DIR [--sessions 64] [--seconds 60] [--workers N] [--out FILE.json]
import { writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import WebSocket from 'ws'
import { Rng } from '../../infra/rng'
import { pct, startGymServe, treeRssMiB, worldWorkload } from './loopback'
import { perfArgs } from './perf-args'

const USAGE = 'node bin/run-ts.mjs bench/perf/openenv-ws.ts --world DIR [--sessions 64] [--seconds 60] [--workers N] [--seed 1] [--out FILE.json]'
const { values: opt } = perfArgs(USAGE, {
  world: { type: 'string' },
  sessions: { type: 'string', default: '64' },
  seconds: { type: 'string', default: '60' },
  workers: { type: 'string', default: String(availableParallelism()) },
  seed: { type: 'string', default: '1' },
  out: { type: 'string' },
})
const sessions = Number(opt.sessions)
const seconds = Number(opt.seconds)
const workers = Number(opt.workers)
const seed = Number(opt.seed)
if (!Number.isInteger(sessions) || sessions < 1 || !(seconds > 0) || !Number.isInteger(workers) || workers < 1 || !Number.isInteger(seed)) {
  process.stderr.write(`openenv-ws: --sessions and --workers are positive integers, --seconds > 0, --seed an integer; usage: ${USAGE}\n`)
  process.exit(2)
}
const load = await worldWorkload(opt.world, 'openenv-ws')
const la = () => loadavg().map((x) => +x.toFixed(2))

type Msg = { type: string; data: Record<string, unknown> }
type Session = { ws: WebSocket; send(m: unknown): Promise<Msg>; closed: Promise<number> }

/** One session: a socket and its replies in order. */
function openSession(url: string): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    const waiting: { ok: (m: Msg) => void; fail: (e: Error) => void }[] = []
    const closed = new Promise<number>((r) =>
      ws.on('close', (code) => {
        for (const w of waiting.splice(0)) w.fail(new Error(`socket closed (${code})`))
        r(code)
      }),
    )
    ws.on('message', (d) => waiting.shift()?.ok(JSON.parse(String(d)) as Msg))
    ws.on('error', (e) => (waiting.length ? undefined : reject(e)))
    ws.on('open', () =>
      resolve({
        ws,
        closed,
        send: (m) =>
          new Promise<Msg>((ok, fail) => {
            waiting.push({ ok, fail })
            ws.send(JSON.stringify(m))
          }),
      }),
    )
  })
}

const server = await startGymServe({ world: opt.world!, flags: ['--workers', String(workers), '--max-envs', '100000'] })
const wsUrl = `${server.url.replace(/^http/, 'ws')}/ws`
const health = async (): Promise<{ envs: number }> => (await (await fetch(`${server.url}/health`)).json()) as { envs: number }
let errors = 0
const errorSamples: string[] = []
const bad = (what: string) => {
  errors++
  if (errorSamples.length < 10) errorSamples.push(what.slice(0, 300))
}
const lat: number[] = []
let steps = 0
let episodes = 0
const closeCodes: Record<string, number> = {}
let result: { sessions: number; seconds: number; workers: number; episodes: number; steps: number; stepsPerSec: number; stepP50Ms: number; stepP99Ms: number; errors: number; sessionsLeftOpen: number; rssMiB: number; loadBefore: number[]; loadAfter: number[] } & Record<string, unknown>
try {
  const loadBefore = la()
  const end = performance.now() + seconds * 1000
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: sessions }, async (_, c) => {
      const rng = Rng.derive(seed, 'openenv-ws', c)
      let s: Session
      try {
        s = await openSession(wsUrl)
      } catch (e) {
        bad(`connect: ${(e as Error).message}`)
        return
      }
      const step = async (data: unknown, expectDone: boolean) => {
        const t = performance.now()
        const r = await s.send({ type: 'step', data })
        lat.push(performance.now() - t)
        steps++
        if (r.type !== 'observation') return bad(`step: ${JSON.stringify(r.data)}`)
        if (r.data.done !== expectDone) bad(`step done=${String(r.data.done)}, expected ${expectDone}`)
      }
      try {
        while (performance.now() < end) {
          const reset = await s.send({ type: 'reset', data: { qa_id: load.qaIds[rng.int(0, load.qaIds.length - 1)] } })
          if (reset.type !== 'observation') {
            bad(`reset: ${JSON.stringify(reset.data)}`)
            continue
          }
          for (let k = rng.int(1, 4); k > 0; k--) {
            if (rng.bool())
              await step({ tool_name: 'search', arguments: { query: `${load.words[rng.int(0, load.words.length - 1)]} ${load.words[rng.int(0, load.words.length - 1)]}` } }, false)
            else await step({ tool_name: 'access', arguments: { url: load.urls[rng.int(0, load.urls.length - 1)] } }, false)
          }
          await step({ tool_name: 'answer', arguments: { answer: load.words[rng.int(0, load.words.length - 1)] } }, true)
          episodes++
        }
      } catch (e) {
        bad(`session ${c}: ${(e as Error).message}`)
      }
      s.ws.send(JSON.stringify({ type: 'close' }))
      const code = await Promise.race([s.closed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))])
      closeCodes[code] = (closeCodes[code] ?? 0) + 1
      if (code !== 1000) bad(`session ${c} closed with ${code}`)
    }),
  )
  const wall = (performance.now() - t0) / 1000
  // Sessions left open: the server's open envs once every socket is closed (a closed socket closes its env).
  const w0 = performance.now()
  let open = (await health()).envs
  while (open !== 0 && performance.now() - w0 < 10_000) {
    await new Promise((r) => setTimeout(r, 100))
    open = (await health()).envs
  }
  result = {
    world: opt.world,
    sessions,
    seconds,
    workers,
    wall: +wall.toFixed(1),
    episodes,
    steps,
    stepsPerSec: +(steps / wall).toFixed(1),
    stepP50Ms: +pct(lat, 0.5).toFixed(1),
    stepP99Ms: +pct(lat, 0.99).toFixed(1),
    errors,
    errorSamples,
    closeCodes,
    sessionsLeftOpen: open,
    rssMiB: +treeRssMiB(server.pid).toFixed(0),
    loadBefore,
    loadAfter: la(),
    node: process.version,
  }
} finally {
  await server.stop()
}
process.stdout.write(
  `openenv-ws: ${result.sessions} sessions x ${result.seconds} s (${result.workers} workers): ${result.episodes} episodes, ${result.steps} steps, ${result.stepsPerSec} steps/s, step p50 ${result.stepP50Ms} ms p99 ${result.stepP99Ms} ms, ${result.errors} errors, ${result.sessionsLeftOpen} sessions left open, RSS ${result.rssMiB} MiB, load ${result.loadBefore.join(' ')} -> ${result.loadAfter.join(' ')}\n`,
)
if (opt.out) writeFileSync(opt.out, JSON.stringify(result, null, 2) + '\n')
process.exit(result.errors === 0 && result.sessionsLeftOpen === 0 ? 0 : 1)

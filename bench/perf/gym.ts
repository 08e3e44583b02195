// bench/perf/gym: gym performance — in-process step latency (p50/p99) for search and access turns, and the HTTP server's
// throughput and latency with 64 concurrent loopback clients (server in a child process, as deployed).
// Usage: node bin/run-ts.mjs bench/perf/gym.ts [--world DIR] [--url URL] [--seconds S] [--clients N] [--steps N]
// Without --world it builds a real tiny world (101 docs) in a temp folder (say so when recording numbers); --url measures an
// already running server (its /v1/qa questions and /v1/search URLs as the workload) instead of starting one.
import { spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { makeEnv, openGymWorld, type GymWorld } from '../../gym'
import { buildTinyWorld, machineLine, pct, perfArgs, tempDir } from './perf-kit'

const { values } = perfArgs('bench/perf/gym.ts [--world DIR] [--url URL] [--seconds S] [--clients N] [--steps N]', {
  world: { type: 'string' },
  url: { type: 'string' },
  seconds: { type: 'string', default: '5' },
  clients: { type: 'string', default: '64' },
  steps: { type: 'string', default: '4000' },
})
const serverUrl = values.url
const seconds = Number(values.seconds)
const clients = Number(values.clients)
const steps = Number(values.steps)
const scratch = values.world || serverUrl ? undefined : tempDir('sg-perf-gym-')
const worldDir = values.world ?? (scratch ? await buildTinyWorld(scratch.dir) : undefined)
const f = (x: number) => x.toFixed(3)

async function workload(world: GymWorld): Promise<{ queries: string[]; urls: string[] }> {
  const qas = world.listQa()
  const queries = qas.map((q) => q.question)
  const urls = new Set<string>()
  for (const q of queries.slice(0, 200)) for (const r of await world.search(q, 5)) urls.add(r.url)
  for (const q of qas.slice(0, 200)) for (const u of q.docs) urls.add(u)
  return { queries, urls: [...urls] }
}

async function inProcess(world: GymWorld, w: { queries: string[]; urls: string[] }) {
  const qa = world.listQa()[0]
  const fresh = async () => {
    const e = makeEnv(world, qa, { budgets: { maxTurns: 1000, maxResponseTokens: 1024, maxContextTokens: 100_000_000 } })
    await e.initialObservation()
    return e
  }
  let env = await fresh()
  const s: number[] = []
  const a: number[] = []
  for (let i = 0; i < steps + 400; i++) {
    const isSearch = i % 2 === 0
    const text = isSearch
      ? `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(w.queries[i % w.queries.length])}}}</tool_call>`
      : `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(w.urls[i % w.urls.length])}}}</tool_call>`
    const t0 = performance.now()
    const r = await env.step(text)
    const dt = performance.now() - t0
    if (r.terminated || r.truncated) env = await fresh() // a budget ended it; that step still counts
    if (i >= 400) (isSearch ? s : a).push(dt)
  }
  return { search: { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99) }, access: { n: a.length, p50: pct(a, 0.5), p99: pct(a, 0.99) } }
}

async function startServer(): Promise<{ url: string; stop: () => void }> {
  if (serverUrl) return { url: serverUrl.replace(/\/$/, ''), stop: () => {} }
  const bin = new URL('../../bin/searchgym.mjs', import.meta.url).pathname
  const argv = [bin, 'gym', 'serve', ...(worldDir ? [worldDir] : []), '--port', '0', '--max-envs', '100000']
  const p = spawn(process.execPath, argv, { stdio: ['ignore', 'inherit', 'pipe'] })
  const url = await new Promise<string>((resolve, reject) => {
    let err = ''
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/[^\s]+)/.exec(err)
      if (m) resolve(m[1])
    })
    p.once('exit', (c) => reject(new Error(`server exited ${c}: ${err}`)))
  })
  return { url, stop: () => p.kill('SIGTERM') }
}

async function loadPhase(name: string, run: (i: number) => Promise<void>) {
  const lat: number[] = []
  let calls = 0
  const end = performance.now() + seconds * 1000
  const worker = async (wid: number) => {
    for (let i = wid; performance.now() < end; i += clients) {
      const t0 = performance.now()
      await run(i)
      lat.push(performance.now() - t0)
      calls++
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: clients }, (_, i) => worker(i)))
  const el = (performance.now() - t0) / 1000
  return { name, calls, perSec: calls / el, p50: pct(lat, 0.5), p99: pct(lat, 0.99) }
}

async function server(w: { queries: string[]; urls: string[] }) {
  const { url, stop } = await startServer()
  try {
    // node:http with a keep-alive pool: a lighter client than fetch, so the numbers are the server's, not undici's.
    const agent = new Agent({ keepAlive: true, maxSockets: clients })
    const u = new URL(url)
    const post = (path: string, body: unknown) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const data = JSON.stringify(body)
        const req = request(
          { agent, host: u.hostname, port: u.port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
          (res) => {
            let t = ''
            res.setEncoding('utf8')
            res.on('data', (c: string) => (t += c))
            res.on('end', () => ((res.statusCode ?? 500) >= 500 ? reject(new Error(`${path}: ${res.statusCode} ${t}`)) : resolve(JSON.parse(t))))
          },
        )
        req.on('error', reject)
        req.end(data)
      })
    // warm-up
    for (let i = 0; i < 200; i++) await post('/v1/search', { query: w.queries[i % w.queries.length] })
    const stateless = await loadPhase('stateless /v1/search + /v1/access', async (i) => {
      if (i % 2 === 0) await post('/v1/search', { query: w.queries[i % w.queries.length] })
      else await post('/v1/access', { url: w.urls[i % w.urls.length] })
    })
    const qaIds = ((await (await fetch(`${url}/v1/qa?limit=10000`)).json()) as { items: { id: string }[] }).items.map((q) => q.id)
    const envs = await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const r = await post('/v1/envs', { qaId: qaIds[c % qaIds.length], options: { budgets: { maxTurns: 1000, maxContextTokens: 100_000_000 } } })
        return r.envId as string
      }),
    )
    const stepped = await loadPhase('env steps (search/access turns)', async (i) => {
      const text =
        i % 2 === 0
          ? `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(w.queries[i % w.queries.length])}}}</tool_call>`
          : `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(w.urls[i % w.urls.length])}}}</tool_call>`
      await post(`/v1/envs/${envs[i % clients]}/step`, { action: text })
    })
    return [stateless, stepped]
  } finally {
    stop()
  }
}

async function remoteWorkload(url: string): Promise<{ queries: string[]; urls: string[] }> {
  const qa = (await (await fetch(`${url}/v1/qa?limit=2000`)).json()) as { items: { question: string }[] }
  const queries = qa.items.map((q) => q.question)
  const urls = new Set<string>()
  for (const q of queries.slice(0, 300)) {
    const r = (await (await fetch(`${url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q }) })).json()) as { results: { url: string }[] }
    for (const h of r.results) urls.add(h.url)
  }
  return { queries, urls: [...urls] }
}

console.log(`# gym bench — world: ${serverUrl ?? (scratch ? `a fresh tiny world (${worldDir})` : worldDir)}; ${machineLine()}`)
let w: { queries: string[]; urls: string[] }
let world: GymWorld | undefined
if (serverUrl) w = await remoteWorkload(serverUrl.replace(/\/$/, ''))
else {
  world = await openGymWorld(worldDir!)
  w = await workload(world)
  const ip = await inProcess(world, w)
  console.log(`in-process step latency (ms): search p50 ${f(ip.search.p50)} p99 ${f(ip.search.p99)} (n=${ip.search.n}); access p50 ${f(ip.access.p50)} p99 ${f(ip.access.p99)} (n=${ip.access.n}); goal p99 < 5 ms`)
}
for (const r of await server(w))
  console.log(`server, ${clients} clients, ${seconds}s — ${r.name}: ${r.perSec.toFixed(0)} calls/s, p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms (n=${r.calls}); goal >= 2,000 calls/s`)
console.log(`after: ${machineLine()}`)
await world?.close()
scratch?.remove()

// bench/perf/server-throughput: throughput and latency of `gym serve` per endpoint over loopback (N keep-alive
// clients, S seconds a phase): /v1/search, /v1/access, env steps, /retrieve (8 queries). --bin measures another
// checkout's CLI on the same workload, so a change to request validation can be compared before/after on one machine.
// Usage: node bin/run-ts.mjs bench/perf/server-throughput.ts --world DIR [--seconds 5] [--clients 64] [--bin OTHER/bin/searchgym.mjs]
import { loadavg } from 'node:os'
import { jsonClient, pct, startGymServe, worldWorkload } from './loopback'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/server-throughput.ts --world DIR [--seconds 5] [--clients 64] [--bin OTHER/bin/searchgym.mjs]', {
  seconds: { type: 'string', default: '5' },
  clients: { type: 'string', default: '64' },
  bin: { type: 'string' },
  world: { type: 'string' },
})
const seconds = Number(opt.seconds)
const clients = Number(opt.clients)
const bin = opt.bin
const world = opt.world
const load = await worldWorkload(world, 'server-throughput')
const server = await startGymServe({ bin, world: world!, flags: ['--max-envs', '100000'] })
const http = jsonClient(server.url, clients)
const queries = load.questions
const urls = load.urls

async function phase(name: string, run: (i: number) => Promise<boolean>): Promise<string> {
  const lat: number[] = []
  let bad = 0
  const end = performance.now() + seconds * 1000
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < end; i += clients) {
        const t = performance.now()
        if (!(await run(i))) bad++
        lat.push(performance.now() - t)
      }
    }),
  )
  const wall = (performance.now() - t0) / 1000
  return `${name}: ${(lat.length / wall).toFixed(0)} calls/s, p50 ${pct(lat, 0.5).toFixed(2)} ms, p99 ${pct(lat, 0.99).toFixed(2)} ms (n=${lat.length}, non-2xx ${bad})`
}

console.log(`# server throughput — ${bin ?? 'this checkout'}; ${clients} clients, ${seconds} s a phase, world ${world}, node ${process.version}, load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
for (let i = 0; i < 200; i++) await http.call('POST', '/v1/search', { query: queries[i % queries.length] })
const envs = await Promise.all(
  Array.from({ length: clients }, async (_, c) => {
    const r = await http.call('POST', '/v1/envs', { qaId: load.qaIds[c % load.qaIds.length], options: { budgets: { maxTurns: 1000, maxContextTokens: 100_000_000 } } })
    return r.body.envId as string
  }),
)
const lines = [
  await phase('/v1/search', async (i) => (await http.call('POST', '/v1/search', { query: queries[i % queries.length] })).status === 200),
  await phase('/v1/access', async (i) => (await http.call('POST', '/v1/access', { url: urls[i % urls.length] })).status === 200),
  await phase('env step', async (i) => {
    const text =
      i % 2 === 0
        ? `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(queries[i % queries.length])}}}</tool_call>`
        : `<tool_call>{"name":"access","arguments":{"url":${JSON.stringify(urls[i % urls.length])}}}</tool_call>`
    return (await http.call('POST', `/v1/envs/${envs[i % clients]}/step`, { action: text })).status === 200
  }),
  await phase('/retrieve x8', async (i) => (await http.call('POST', '/retrieve', { queries: Array.from({ length: 8 }, (_, k) => queries[(i + k) % queries.length]), topk: 3 })).status === 200),
]
for (const l of lines) console.log(l)
console.log(`load avg after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
http.close()
await server.stop()

// bench/perf/retrieve: `/retrieve` as the outside trainers call it, over loopback against a real `gym serve` — Search-R1
// turns of 2,560 queries in one request (batch latency, queries/s, p99), and 120 concurrent verl-style single-query
// callers (calls/s, p50/p99 against their 30 s timeout); ASearcher-style return_scores=false calls as a third phase.
// Queries are the world's own questions (distinct, up to the number it has), so no engine cache is hit twice in a row.
// Usage: node bin/run-ts.mjs bench/perf/retrieve.ts --world DIR [--batches 8] [--batch 2560] [--callers 120] [--seconds 10]
import { loadavg } from 'node:os'
import { jsonClient, pct, startGymServe } from './loopback'
import { perfArgs } from './perf-args'

const { values: opt } = perfArgs('node bin/run-ts.mjs bench/perf/retrieve.ts --world DIR [--batches 8] [--batch 2560] [--callers 120] [--seconds 10]', {
  world: { type: 'string' },
  batches: { type: 'string', default: '8' },
  batch: { type: 'string', default: '2560' },
  callers: { type: 'string', default: '120' },
  seconds: { type: 'string', default: '10' },
})
const world = opt.world
if (!world) {
  process.stderr.write('bench/perf/retrieve: --world DIR is required (a tiny one: npx searchgym world build --preset tiny --out worlds/tiny)\n')
  process.exit(2)
}
const batches = Number(opt.batches)
const batch = Number(opt.batch)
const callers = Number(opt.callers)
const seconds = Number(opt.seconds)
for (const [k, v] of Object.entries({ batches, batch, callers, seconds }))
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`bench/perf/retrieve: --${k} must be a positive integer\n`)
    process.exit(2)
  }

const server = await startGymServe({ world, flags: ['--max-batch-queries', String(Math.max(batch, 16_384))] })
try {
  const http = jsonClient(server.url, callers)
  const qa = await http.call('GET', '/v1/qa?limit=10000')
  const questions = (qa.body.items as { question: string }[]).map((q) => q.question)
  console.log(
    `# /retrieve — world ${world} (${questions.length} distinct questions), node ${process.version}, load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`,
  )
  for (let i = 0; i < 50; i++) await http.call('POST', '/retrieve', { queries: [questions[i % questions.length]], topk: 3, return_scores: true })

  // Search-R1: one request per turn with every active sample's query.
  const lat: number[] = []
  let bad = 0
  let next = 0
  const t0 = performance.now()
  for (let b = 0; b < batches; b++) {
    const queries = Array.from({ length: batch }, () => questions[next++ % questions.length])
    const t = performance.now()
    const r = await http.call('POST', '/retrieve', { queries, topk: 3, return_scores: true })
    lat.push(performance.now() - t)
    if (r.status !== 200 || (r.body.result as unknown[]).length !== batch) bad++
  }
  const wall = (performance.now() - t0) / 1000
  console.log(
    `Search-R1 batches of ${batch} (topk 3, scores): ${((batches * batch) / wall).toFixed(0)} queries/s, batch p50 ${pct(lat, 0.5).toFixed(0)} ms, p99 ${pct(lat, 0.99).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms (n=${batches}, bad ${bad})`,
  )

  // verl / ASearcher: many callers, one query each.
  async function callersPhase(name: string, body: (q: string) => unknown): Promise<void> {
    const l: number[] = []
    let nonOk = 0
    const end = performance.now() + seconds * 1000
    const s0 = performance.now()
    await Promise.all(
      Array.from({ length: callers }, async (_, c) => {
        for (let i = c; performance.now() < end; i += callers) {
          const t = performance.now()
          const r = await http.call('POST', '/retrieve', body(questions[(next + i) % questions.length]))
          l.push(performance.now() - t)
          if (r.status !== 200) nonOk++
        }
      }),
    )
    next += l.length
    const w = (performance.now() - s0) / 1000
    console.log(
      `${name}: ${(l.length / w).toFixed(0)} calls/s, p50 ${pct(l, 0.5).toFixed(1)} ms, p99 ${pct(l, 0.99).toFixed(1)} ms, max ${Math.max(...l).toFixed(1)} ms (n=${l.length}, non-200 ${nonOk}, over 30 s ${l.filter((x) => x > 30_000).length})`,
    )
  }
  await callersPhase(`verl ${callers} concurrent single-query callers (topk 3, scores)`, (q) => ({ queries: [q], topk: 3, return_scores: true }))
  await callersPhase(`ASearcher ${callers} concurrent single-query callers (topk 5, flat)`, (q) => ({ queries: [q], topk: 5, return_scores: false }))
} finally {
  await server.stop()
}

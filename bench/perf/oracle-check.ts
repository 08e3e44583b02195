// bench/perf/oracle-check: the oracle check alone on a built world — the first N questions of the pool in this
// thread (--threads 1) or sharded over worker threads — with CPU seconds (user+sys, worker threads included), wall
// seconds and questions per CPU second; the failure count must stay what the build's check stage recorded.
// Usage: node bin/run-ts.mjs bench/perf/oracle-check.ts WORLD_DIR [--every 10] [--n 5000] [--threads 1] [--pages all|needed]
// (--every K: every K-th question of the pool, a sample of every type and hop count; --pages: how the oracle reads paged
// documents. outcomeDigest: sha256 of every question's (id, solved, failure) — equal digests, equal check rows.)
import { createHash } from 'node:crypto'
import { loadavg } from 'node:os'
import { checkWorldFolder } from '../../agent'
import { openWorld, readQa } from '../../world'
import { perfArgs } from './perf-args'

const { values: a, positionals } = perfArgs(
  'node bin/run-ts.mjs bench/perf/oracle-check.ts WORLD_DIR [--every K] [--n N] [--threads K] [--pages all|needed]',
  { n: { type: 'string' }, every: { type: 'string', default: '1' }, threads: { type: 'string', default: '1' }, pages: { type: 'string' } },
  1,
)
const dir = positionals[0]
const pages = a.pages
if (pages !== undefined && pages !== 'all' && pages !== 'needed') {
  process.stderr.write(`--pages must be all or needed, got ${JSON.stringify(pages)}\n`)
  process.exit(2)
}
const w = openWorld(dir, { allowIncomplete: true })
let qas = readQa(w.db, ['train', 'bench', 'excluded', 'dropped'])
w.close()
const every = Number(a.every)
if (every > 1) qas = qas.filter((_, i) => i % every === 0)
if (a.n !== undefined) qas = qas.slice(0, Number(a.n))
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const load0 = loadavg()[0]
const w0 = performance.now()
const c0 = cpu()
const r = await checkWorldFolder(dir, qas, { workers: Number(a.threads), quiet: true, pages })
const wall = (performance.now() - w0) / 1000
const c = cpu() - c0
const failed = new Map(r.failures.map((f) => [f.qaId, f.failure ?? `F1 ${f.f1}`]))
const digest = createHash('sha256')
for (const q of qas) digest.update(`${q.id}\t${failed.has(q.id) ? 0 : 1}\t${failed.get(q.id) ?? ''}\n`)
process.stdout.write(
  JSON.stringify({ questions: qas.length, pages: pages ?? 'default', turnsP50: r.turns.p50, turnsMax: r.turns.max, outcomeDigest: digest.digest('hex').slice(0, 16), workers: r.workers, solved: r.solved, failures: r.failures.length, byCause: r.byCause, wallSeconds: +wall.toFixed(2), cpuSeconds: +c.toFixed(2), questionsPerCpuSecond: Math.round(qas.length / c), loadAvg: [+load0.toFixed(1), +loadavg()[0].toFixed(1)] }) + '\n',
)

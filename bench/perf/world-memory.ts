// bench/perf/world-memory: what one more worker thread of verification or the oracle check costs in memory on a built
// world — the heap and RSS of one copy of the world's search index, of the oracle check's per-thread state (index,
// memoised search, knowledge with the pool's path edges) and of the QA pool — measured in this process (global.gc
// between steps), with the world's size (documents, their characters, edges, QA), so the per-unit cost can be
// extrapolated to bigger worlds (bench/RESULTS.md, "memory ceiling").
// Usage: node --expose-gc bin/run-ts.mjs bench/perf/world-memory.ts WORLD_DIR
import { openSearchIndex, openWorld, readQa } from '../../world'
import { CHECK_GYM_OPTIONS, CheckRunner, pathEdges } from '../../agent'
import { perfArgs } from './perf-args'

const dir = perfArgs('node --expose-gc bin/run-ts.mjs bench/perf/world-memory.ts WORLD_DIR', {}, 1).positionals[0]
if (typeof global.gc !== 'function') {
  process.stderr.write('usage: node --expose-gc bin/run-ts.mjs bench/perf/world-memory.ts WORLD_DIR\n')
  process.exit(2)
}
const gc = global.gc as () => void
const mem = () => {
  gc()
  gc()
  const m = process.memoryUsage()
  return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss }
}
const mb = (b: number) => +(b / 2 ** 20).toFixed(1)
const w = openWorld(dir, { allowIncomplete: true })
const size = w.db.prepare('SELECT COUNT(*) AS docs, SUM(LENGTH(text)) AS chars FROM docs').get() as { docs: number; chars: number }
const edgeCount = (w.db.prepare('SELECT COUNT(*) AS n FROM edges').get() as { n: number }).n
const out: Record<string, unknown> = { dir, docs: size.docs, docChars: size.chars, edges: edgeCount }
let m0 = mem()
const qas = readQa(w.db, ['train', 'bench', 'excluded', 'dropped'])
let m1 = mem()
out.qa = { n: qas.length, heapMB: mb(m1.heap - m0.heap), bytesPerQa: Math.round((m1.heap - m0.heap) / qas.length) }
m0 = mem()
const index = await openSearchIndex(w, { quiet: true })
m1 = mem()
out.index = { heapMB: mb(m1.heap - m0.heap), rssMB: mb(m1.rss - m0.rss), bytesPerDocChar: +((m1.heap - m0.heap) / size.chars).toFixed(2) }
await index.close()
const edges = pathEdges(qas)
m0 = mem()
const runner = await CheckRunner.open(w, CHECK_GYM_OPTIONS, edges)
m1 = mem()
out.checkRunnerOpen = { heapMB: mb(m1.heap - m0.heap), pathEdges: edges.length }
// The memo grows with the questions checked: run a sample (every 10th question) and measure again.
await runner.run(qas.filter((_, i) => i % 10 === 0))
const m2 = mem()
out.checkRunnerAfterTenth = { heapMB: mb(m2.heap - m0.heap), questions: Math.ceil(qas.length / 10), memo: runner.memo }
await runner.close()
w.close()
out.rssMB = mb(process.memoryUsage().rss)
process.stdout.write(JSON.stringify(out) + '\n')

// bench/perf/answer-probe-context: was the answer in view when the model answered? Over a `bench run`'s trajectories
// (episodes that ended with an answer): how many hold a gold answer string in any observation, how many in the last
// observation before the answer, and how many of each were answered right (EM) — overall and for one-hop questions.
// Separates reading (copying the answer out of a page in view; answer-probe.ts measures it on the oracle's context)
// from navigation (getting the page with the fact into view). Text match after lower-casing and dropping punctuation,
// so a short gold (a year) can match by chance: an upper bound on "in view". Knows only the trajectories file.
// Usage: node bin/run-ts.mjs bench/perf/answer-probe-context.ts RUN_DIR [RUN_DIR …]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

interface Row { hops: number; golds: string[]; stopReason: string; em: number; turns: { observation: { content: string }[] }[] }
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}_ ]/gu, ' ').replace(/\s+/g, ' ').trim()

const dirs = process.argv.slice(2)
if (dirs.length === 0) {
  process.stderr.write('answer-probe-context: usage: RUN_DIR [RUN_DIR …] (bench run output folders with trajectories.jsonl)\n')
  process.exit(2)
}
for (const dir of dirs) {
  const rows = readFileSync(join(dir, 'trajectories.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row)
  for (const [name, keep] of [['hops=1', (r: Row) => r.hops === 1], ['all', () => true]] as const) {
    const answered = rows.filter((r) => keep(r) && r.stopReason === 'answer')
    const holds = (r: Row, text: string) => r.golds.some((g) => norm(text).includes(norm(g)))
    const any = answered.filter((r) => r.turns.some((t) => t.observation.some((o) => holds(r, o.content))))
    const last = answered.filter((r) => {
      const obs = r.turns.flatMap((t) => t.observation)
      return obs.length > 0 && holds(r, obs[obs.length - 1].content)
    })
    const right = (xs: Row[]) => xs.reduce((a, r) => a + r.em, 0)
    process.stdout.write(`${dir} ${name}: answered ${answered.length}; gold in some observation ${any.length} (right ${right(any)}); ` +
      `gold in the last observation ${last.length} (right ${right(last)}); right overall ${right(answered)}\n`)
  }
}

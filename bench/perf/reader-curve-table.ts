// bench/perf/reader-curve-table: the table of bench/perf/reader-curve.sh — per evaluation step, the engine's and the
// PyTorch reference's training CPU seconds and their greedy EM / F1 on the evidence-sentence drill and on the whole page
// (the unseen worlds' one-hop questions, 200 items each side).
// usage: node bin/run-ts.mjs bench/perf/reader-curve-table.ts OUT
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const out = process.argv[2] ?? 'runs/reader-curve'
const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>)
const evals = lines(join(out, 'engine/phases/copy/eval.jsonl'))
const timing = new Map(lines(join(out, 'engine/phases/copy/timing.jsonl')).map((t) => [t.step as number, t]))
const ref = new Map((JSON.parse(readFileSync(join(out, 'ref/ev.json'), 'utf8')).results as Record<string, any>[]).map((r) => [r.step as number, r]))
const pct = (x: number | undefined) => (typeof x === 'number' ? `${(100 * x).toFixed(1)}` : '–')
process.stdout.write('| step | engine CPU s | engine fact EM / F1 | engine page EM / F1 | reference CPU s | reference ev EM / F1 | reference page EM / F1 |\n')
process.stdout.write('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n')
for (const e of evals) {
  const r = ref.get(e.step)
  process.stdout.write(`| ${e.step} | ${timing.get(e.step)?.trainCpuS ?? '–'} | ${pct(e.fact?.em)} / ${pct(e.fact?.f1)} | ${pct(e.page?.em)} / ${pct(e.page?.f1)} | ${r ? r.train_cpu_s : '–'} | ${pct(r?.ev_em)} / ${pct(r?.ev_f1)} | ${pct(r?.page_em)} / ${pct(r?.page_f1)} |\n`)
}

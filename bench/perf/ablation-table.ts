// bench/perf/ablation-table: the per-arm table of an ablation — F1, EM and tool calls per question of each arm's
// `bench run`, with percentile-bootstrap 95% CIs (2,000 resamples, seed 0). Used by learn-demo (arms.md).
import { join } from 'node:path'
import { bootstrapMean, type Estimate } from '../stats'
import { latestById, loadTrajectories } from '../trajectory-log'

const fmt = (e: Estimate, d = 3) => `${e.mean.toFixed(d)} [${e.lo.toFixed(d)}, ${e.hi.toFixed(d)}]`

/** Markdown: a title line, the table (one row per arm: its name and its `bench run` folder), and a note. */
export function ablationTable(title: string, arms: { name: string; bench: string }[], note: string): string {
  const rows = arms.map(({ name, bench }) => {
    const recs = [...latestById(loadTrajectories(join(bench, 'trajectories.jsonl')).records).values()]
    const est = (label: string, xs: number[]) => bootstrapMean(xs, { resamples: 2000, seed: 0, label: `${name}/${label}` })
    return `| ${name} | ${recs.length} | ${fmt(est('f1', recs.map((r) => r.f1)))} | ${fmt(est('em', recs.map((r) => r.em)))} | ${fmt(est('tools', recs.map((r) => r.counts.search + r.counts.access)), 2)} |`
  })
  return [`# ${title}`, '', '| arm | questions | F1 [95% CI] | EM [95% CI] | tool calls / question [95% CI] |', '| --- | ---: | --- | --- | --- |', ...rows, '', note, ''].join('\n')
}

// curriculum/recipes/reader-v1-compare: does a run of the reader recipe (curriculum/recipes/reader-v1.sh OUT) reproduce
// the shipped start's scores? Reads OUT's funnel JSONs and the shipped ones (curriculum/starts/reader-v1/scores, the
// funnel of the run the start was shipped from) and prints, per slice, hop count and figure (fact drill EM, read | oracle
// EM, first search right, evidence opened, F1, EM): shipped ± its 95 % CI, the run's figure, the difference with the
// CI of a difference of two independent proportions, and whether the run's figure lies inside the shipped CI.
// Exit 0 when every figure does, 1 when one does not, 2 on bad input.
// Usage: node bin/run-ts.mjs curriculum/recipes/reader-v1-compare.ts OUT [SHIPPED_SCORES_DIR]
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { proportionCi95, type Funnel as F } from '../funnel'

interface FunnelJson { results: Record<string, Record<string, F>> }

function fail(msg: string): never {
  process.stderr.write(`reader-v1-compare: error: ${msg}\n`)
  process.exit(2)
}

const [out, shippedDir = 'curriculum/starts/reader-v1/scores'] = process.argv.slice(2)
if (!out) fail('usage: reader-v1-compare.ts OUT [SHIPPED_SCORES_DIR] (OUT: a finished curriculum/recipes/reader-v1.sh run folder)')
const load = (dir: string, f: string): FunnelJson => {
  const p = join(dir, f)
  if (!existsSync(p)) fail(`${p} is missing${dir === out ? `: finish the recipe first (bash curriculum/recipes/reader-v1.sh ${out})` : ''}`)
  return JSON.parse(readFileSync(p, 'utf8')) as FunnelJson
}

/** A slice's key without the run folder it was built in: `small-bd6747e2-s101`, or the held-out pool's name. */
const sliceKey = (k: string) => (k.startsWith('pool of') ? k : basename(k))

interface Figure { name: string; value(f: F): number; ci(f: F): number; n(f: F): number }
const FIGURES: Figure[] = [
  { name: 'fact drill EM', value: (f) => f.factEm, ci: (f) => f.factEmCi95, n: (f) => f.factN },
  { name: 'read | oracle EM', value: (f) => f.readEm, ci: (f) => f.readEmCi95, n: (f) => f.n },
  { name: 'first search right', value: (f) => f.search / f.n, ci: (f) => proportionCi95(f.search / f.n, f.n), n: (f) => f.n },
  { name: 'evidence opened', value: (f) => f.opened / f.n, ci: (f) => proportionCi95(f.opened / f.n, f.n), n: (f) => f.n },
  { name: 'F1', value: (f) => f.f1, ci: (f) => f.ci95, n: (f) => f.n },
  { name: 'EM', value: (f) => f.em, ci: (f) => f.emCi95, n: (f) => f.n },
]

const pct = (x: number) => (100 * x).toFixed(1)
const rows: string[] = []
let outside = 0
let compared = 0
for (const file of ['funnel-unseen.json', 'funnel-heldout.json']) {
  const shipped = load(shippedDir, file)
  const run = load(out, file)
  const runBy = new Map(Object.entries(run.results).map(([k, v]) => [sliceKey(k), v]))
  for (const [k, byHops] of Object.entries(shipped.results)) {
    const mine = runBy.get(sliceKey(k))
    if (!mine) fail(`${join(out, file)} has no slice ${sliceKey(k)}`)
    for (const [hops, s] of Object.entries(byHops)) {
      const r = mine[hops]
      if (!r) fail(`${join(out, file)} has no ${hops} for ${sliceKey(k)}`)
      for (const fig of FIGURES) {
        const a = fig.value(s)
        const b = fig.value(r)
        const ci = fig.ci(s)
        const diffCi = Math.sqrt(ci ** 2 + fig.ci(r) ** 2)
        const inside = Math.abs(b - a) <= ci
        compared++
        if (!inside) outside++
        rows.push(`| ${sliceKey(k)} | ${hops.replace('hops', '')} | ${fig.n(s)} / ${fig.n(r)} | ${fig.name.replace('|', '\\|')} | ${pct(a)} ± ${pct(ci)} | ${pct(b)} | ${b - a >= 0 ? '+' : ''}${pct(b - a)} ± ${pct(diffCi)} | ${inside ? 'yes' : '**no**'} |`)
      }
    }
  }
}
process.stdout.write(
  [
    `reader-v1-compare: ${out} against ${shippedDir} (greedy funnel; 95 % CIs, normal approximation)`,
    '',
    '| slice | hops | n shipped / run | figure | shipped % ± CI | run % | run − shipped, pp ± CI | run inside the shipped CI |',
    '| --- | ---: | ---: | --- | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    outside === 0 ? `every figure of the run (${compared}) lies inside the shipped start's 95 % CI` : `${outside} of ${compared} figures of the run lie outside the shipped start's 95 % CI`,
    '',
  ].join('\n'),
)
process.exit(outside === 0 ? 0 : 1)

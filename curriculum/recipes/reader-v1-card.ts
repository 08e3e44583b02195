// curriculum/recipes/reader-v1-card: ships a finished reader-v1 run (curriculum/recipes/reader-v1.sh OUT) — copies its
// model folder to DEST, writes DEST/README.md (a Hugging Face style model card built only from the run's own files:
// config.json, phases/*/phase.json, the funnel JSONs, times.tsv), DEST/SHA256SUMS and DEST/scores (the funnel JSONs). DEST/phases (the committed phase
// checkpoints) is left as it is.
// Usage: node bin/run-ts.mjs curriculum/recipes/reader-v1-card.ts OUT DEST
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { proportionCi95 } from '../funnel'

interface F {
  n: number; search: number; opened: number; f1: number; ci95: number; em: number; emCi95: number
  readF1: number; readEm: number; readCi95: number; readEmCi95: number; factF1: number; factEm: number; factEmCi95: number; factN: number
  floorF1: number; floorEm: number; floorHeldF1: number; floorHeldEm: number; answerLoss: number; noOracle: number
}
interface FunnelJson { results: Record<string, Record<string, F>> }
interface Phase { name: string; reason: string; steps: number; best: { step: number; value: number }; cpuS: number; wallS: number; evals: Record<string, unknown>[] }

function fail(msg: string): never {
  process.stderr.write(`reader-v1-card: error: ${msg}\n`)
  process.exit(2)
}

const [out, dest] = process.argv.slice(2)
if (!out || !dest) fail('usage: reader-v1-card.ts OUT DEST (OUT: a finished curriculum/recipes/reader-v1.sh run folder)')
for (const f of ['config.json', 'model/model.safetensors', 'funnel-unseen.json', 'funnel-heldout.json', 'items.json'])
  if (!existsSync(join(out, f))) fail(`${out} has no ${f}: finish the recipe first (bash curriculum/recipes/reader-v1.sh ${out})`)
const read = <T>(f: string) => JSON.parse(readFileSync(join(out, f), 'utf8')) as T
const cfg = read<{ worlds: { train: number[]; valid: number[]; test: number[] }; phases: { name: string; mix: Record<string, number>; steps: number; lr: number; batch: number; maxHops: number; cpuBudgetS: number; gate: { metric: string } }[] }>('config.json')
const phases = cfg.phases.map((p) => read<Phase>(`phases/${p.name}/phase.json`))
const unseen = read<FunnelJson>('funnel-unseen.json')
const held = read<FunnelJson>('funnel-heldout.json')
const items = read<{ trainQuestions: number; trainSolved: number; validSolved: number; contiguity: { n: number; contiguous: number } }>('items.json')
const times = existsSync(join(out, 'times.tsv')) ? readFileSync(join(out, 'times.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t')) : []
const model = JSON.parse(readFileSync(join(out, 'model/config.json'), 'utf8')) as Record<string, number>

mkdirSync(dest, { recursive: true })
const files = readdirSync(join(out, 'model')).filter((f) => /\.(json|safetensors|txt)$/.test(f)).sort()
for (const f of files) copyFileSync(join(out, 'model', f), join(dest, f))
// The funnel JSONs the card's scores come from: what a later run of the recipe is compared with (reader-v1-compare.ts).
mkdirSync(join(dest, 'scores'), { recursive: true })
for (const f of ['funnel-unseen.json', 'funnel-heldout.json']) copyFileSync(join(out, f), join(dest, 'scores', f))
const sums = files.map((f) => `${createHash('sha256').update(readFileSync(join(dest, f))).digest('hex')}  ${f}`)
writeFileSync(join(dest, 'SHA256SUMS'), sums.join('\n') + '\n')

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '–')
const ci = proportionCi95
const pm = (x: number, h: number) => `${pct(x)} ± ${(100 * h).toFixed(1)}`
const rows = (j: FunnelJson, what: string) =>
  Object.entries(j.results).flatMap(([w, byHops]) =>
    Object.entries(byHops).map(([h, f]) => {
      const s = f.search / f.n, o = f.opened / f.n
      return `| ${what} ${w.split('/').pop()} | ${h.replace('hops', '')} | ${f.n} | ${pm(f.factEm, f.factEmCi95)} | ${pm(f.readEm, f.readEmCi95)} (F1 ${pct(f.readF1)}) | ${pm(s, ci(s, f.n))} | ${pm(o, ci(o, f.n))} | **${pm(f.f1, f.ci95)}** | ${pm(f.em, f.emCi95)} | ${pct(f.floorHeldF1)} / ${pct(f.floorHeldEm)} (${pct(f.floorF1)} / ${pct(f.floorEm)}) |`
    }),
  )
const gateEm = (p: Phase, k: string) => {
  const last = p.evals.find((e) => e.step === p.best.step) as Record<string, { em?: number } & Record<string, number>> | undefined
  const v = last?.[k]
  return v && typeof v.em === 'number' ? pct(v.em) : '–'
}
const totalCpu = phases.reduce((a, p) => a + p.cpuS, 0)
const totalWall = phases.reduce((a, p) => a + p.wallS, 0)
const card = `---
license: apache-2.0
library_name: searchgym
tags: [searchgym, search-agent, from-scratch, qwen3-architecture, reading-curriculum]
---
# SearchGym reader start v1 (${model.hidden_size}-wide, ${model.num_hidden_layers} layers, trained from scratch)

A Qwen3-architecture model of ${model.hidden_size} hidden units, ${model.num_hidden_layers} layers and a ${model.vocab_size}-id BPE tokenizer (the
recipe's, the same as reader-v0's), trained **from random weights on this project's synthetic worlds only** by the reading curriculum
(\`searchgym train reader\`, curriculum/reading): full-weight cross-entropy on drills cut from the oracle's solved episodes with the loss
on one target turn, in phases whose contexts grow — the evidence sentence, the evidence among k other sentences, the page's prose, the
whole page, the oracle's episode — then the agentic turns (the first search, the access, the next hop's search, whole demonstrations of
one- and two-hop questions), each phase ending when its gate on a validation world stops rising.

**Status:** ${status()}

## Reproduce

\`\`\`sh
bash curriculum/recipes/reader-v1.sh runs/reader-v1                      # every phase trained here (resumable)
COMMITTED=curriculum/starts/reader-v1/phases bash curriculum/recipes/reader-v1.sh runs/reader-v1   # adopt the committed phases
CARD=curriculum/starts/reader-v1 bash curriculum/recipes/reader-v1.sh runs/reader-v1               # … and write this card
\`\`\`

The script ends by comparing the run's funnel with this start's (\`scores/\`, the funnel JSONs these scores come from): OUT/compare.md
gives each figure of the run beside the shipped one and its 95 % CI (\`node bin/run-ts.mjs curriculum/recipes/reader-v1-compare.ts OUT\`).

Worlds: \`world build --preset small --config bench/perf/configs/world-small2x-1to2.json\`, training seeds ${cfg.worlds.train.join(', ')}
(${items.trainSolved} solved oracle episodes of ${items.trainQuestions} questions: every one-hop question and up to 1,000 two-hop Simple
questions a world, the fact-disjoint held-out slice of 400 and every question sharing an edge with it left out), validation seed
${cfg.worlds.valid.join(', ')} (the gates), test seeds ${cfg.worlds.test.join(' and ')} (never trained on, never used to choose anything).
Protocol search-r1 with the reader gym (\`READER_GYM\`: \`{"topK":3,"observationCap":2000,"prompt":"brief","accessByTitle":true,"leadSpace":true}\`):
with \`leadSpace\` every line of a tool result starts with a space, so the answer's tokens are a contiguous run of the page's in
${pct(items.contiguity.contiguous / items.contiguity.n)} of the training page drills (92.6 % without it, bench/RESULTS.md).

| phase | drills (sampling weights) | hops | lr | planned steps × batch | steps run | stop | gate (validation EM at the kept step) | CPU s | wall s |
| --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |
${phases.map((p, i) => { const c = cfg.phases[i]; return `| ${p.name} | ${Object.entries(c.mix).map(([k, w]) => `${k} ${w}`).join(', ')} | ≤ ${c.maxHops} | ${c.lr} | ${c.steps} × ${c.batch} | ${p.steps} | ${p.reason} | ${c.gate.metric} ${pct(p.best.value)} at step ${p.best.step} | ${p.cpuS} | ${p.wallS} |` }).join('\n')}
| **all** | | | | | **${phases.reduce((a, p) => a + p.steps, 0)}** | | | **${totalCpu}** | **${totalWall}** |

CPU s are the training steps' (evaluations left out); wall s include the evaluations. ${times.length ? `The script's steps (OUT/times.tsv, children included): ${times.map((t) => `${t[0]} ${Number(t[1]).toFixed(0)} s wall / ${(Number(t[2]) + Number(t[3])).toFixed(0)} s CPU`).join('; ')}.` : ''}
Each phase's curve (loss per step, every gate evaluation, CPU per evaluation): OUT/phases/NAME/{metrics,eval,timing}.jsonl.
Validation EM of other drills at each phase's kept step: ${phases.map((p) => `${p.name} — fact ${gateEm(p, 'fact')}, page ${gateEm(p, 'page')}`).join('; ')}.

## Scores (greedy; 95 % CIs by the normal approximation)

The funnel (\`bench funnel\`, commands in the recipe): *fact drill* — EM of the answer when the page is cut to its title and the evidence
sentence (the copy step alone); *read | oracle* — the answer given the oracle's episode up to its answer turn; *search* — the first
search put the question's page in the top 3; *opened* — every hop's evidence sentence was in an observation (the evidence opened); *F1*,
*EM* — the model's own episodes; *floor* — F1 / EM of the best constant answer per relation on the same questions (gym/floor): each
question answered with the constant that scores best on the other questions of its relation (held out), and in brackets the constant
chosen on all of them, itself included (in-sample: optimistic; a relation asked once is answered right by it).

| slice | hops | n | fact drill EM | read \\| oracle EM | first search right | evidence opened | F1 | EM | floor F1 / EM held out (in-sample) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${[...rows(unseen, 'unseen'), ...rows(held, 'held-out')].join('\n')}

\`unseen\`: worlds of seeds never trained on; \`held-out\`: the fact-disjoint held-out slice of the training worlds (OUT/heldout.json).

## Limits

- A reader of this world recipe's language and page layout, one- and two-hop Simple questions; Parallel and Combo questions were not trained.
- ${model.hidden_size} hidden units: it copies names off the page it reads and has no knowledge beyond it.
- Trained and scored with the search-r1 protocol and the reader gym above (leadSpace included); other protocols or renderings are out of distribution.

## Files

${sums.map((l) => `- \`${l.split('  ')[1]}\` sha256 \`${l.split('  ')[0]}\``).join('\n')}
- \`phases/NAME/\`: each phase's committed checkpoint (config.json, model.safetensors, phase.json), adopted by \`train reader --committed\`.
- \`scores/\`: the funnel JSONs of the run shipped here (funnel-unseen.json, funnel-heldout.json), what a rerun of the recipe is compared with.
`
writeFileSync(join(dest, 'README.md'), card)
process.stdout.write(`reader-v1-card: ${dest}: ${files.length} files, README.md, SHA256SUMS\n`)

function status(): string {
  const get = (h: string) => Object.values(unseen.results).map((r) => r[h]).filter(Boolean)
  const one = get('hops1')
  const two = get('hops2')
  const checks: [string, boolean][] = [
    ['fact drill EM ≥ 80 %', one.every((f) => f.factEm >= 0.8)],
    ['read | oracle EM ≥ 50 %', one.every((f) => f.readEm >= 0.5)],
    ['first search right ≥ 80 %', one.every((f) => f.search / f.n >= 0.8)],
    ['evidence opened ≥ 70 %', one.every((f) => f.opened / f.n >= 0.7)],
    ['one-hop F1 ≥ 30 % with EM ≥ 20 %', one.every((f) => f.f1 >= 0.3 && f.em >= 0.2)],
    ['two-hop F1 ≥ 10 %', two.length > 0 && two.every((f) => f.f1 >= 0.1)],
  ]
  const missed = checks.filter(([, ok]) => !ok).map(([k]) => k)
  return missed.length === 0
    ? 'meets every gate of the reader target on both unseen worlds (fact drill EM ≥ 80 %, read | oracle EM ≥ 50 %, first search ≥ 80 %, evidence opened ≥ 70 %, one-hop F1 ≥ 30 % with EM ≥ 20 %, two-hop F1 ≥ 10 %).'
    : `misses ${missed.join('; ')} on at least one unseen world (the figures below). Not the start the target asks for in those respects.`
}

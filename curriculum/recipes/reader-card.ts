// curriculum/recipes/reader-card: ships a finished reader recipe run (curriculum/recipes/reader.sh OUT) — copies its
// SFT model folder to DEST and writes DEST/README.md, a Hugging Face style model card built only from the run's own
// files (pretrain.json, sft.json, the funnel JSONs, times.tsv), and DEST/SHA256SUMS.
// Usage: node bin/run-ts.mjs curriculum/recipes/reader-card.ts OUT DEST
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

interface FunnelJson {
  results: Record<string, Record<string, { n: number; search: number; opened: number; f1: number; ci95: number; em: number; readF1: number; answerLoss: number; factF1: number; factLoss: number }>>
}

function fail(msg: string): never {
  process.stderr.write(`reader-card: error: ${msg}\n`)
  process.exit(2)
}

const [out, dest] = process.argv.slice(2)
if (!out || !dest) fail('usage: reader-card.ts OUT DEST (OUT: a finished curriculum/recipes/reader.sh run folder)')
for (const f of ['pretrain/pretrain.json', 'sft/sft.json', 'sft/model/model.safetensors', 'funnel-unseen.json', 'funnel-heldout.json', 'times.tsv'])
  if (!existsSync(join(out, f))) fail(`${out} has no ${f}: finish the recipe first (bash curriculum/recipes/reader.sh ${out})`)
const read = <T>(f: string) => JSON.parse(readFileSync(join(out, f), 'utf8')) as T
const pre = read<{ steps: number; tokens: number; finalLoss: number; heldOutLoss: number; wallSeconds: number; cpuSeconds: number }>('pretrain/pretrain.json')
const sft = read<{ steps: number; finalLoss: number; questions: number; solved: number; mix: Record<string, number>; cpuS: number; budgetStopped: boolean }>('sft/sft.json')
const unseen = read<FunnelJson>('funnel-unseen.json')
const held = read<FunnelJson>('funnel-heldout.json')
const times = readFileSync(join(out, 'times.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'))
const config = JSON.parse(readFileSync(join(out, 'sft/model/config.json'), 'utf8')) as Record<string, number>

mkdirSync(dest, { recursive: true })
const files = readdirSync(join(out, 'sft/model')).filter((f) => /\.(json|safetensors|txt)$/.test(f)).sort()
for (const f of files) copyFileSync(join(out, 'sft/model', f), join(dest, f))
const sums = files.map((f) => `${createHash('sha256').update(readFileSync(join(dest, f))).digest('hex')}  ${f}`)
writeFileSync(join(dest, 'SHA256SUMS'), sums.join('\n') + '\n')

const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const rows = (j: FunnelJson, what: string) =>
  Object.entries(j.results).flatMap(([w, byHops]) =>
    Object.entries(byHops).map(([h, f]) => `| ${what} ${w.split('/').pop()} | ${h.replace('hops', '')} | ${f.n} | ${pct(f.search / f.n)} | ${pct(f.opened / f.n)} | ${pct(f.readF1)} | **${pct(f.f1)}** ± ${(100 * f.ci95).toFixed(1)} | ${pct(f.em)} | ${f.answerLoss.toFixed(3)} | ${pct(f.factF1)} |`),
  )
const totalWall = times.reduce((a, t) => a + Number(t[1]), 0)
const totalCpu = times.reduce((a, t) => a + Number(t[2]) + Number(t[3]), 0)
const card = `---
license: apache-2.0
library_name: searchgym
tags: [searchgym, search-agent, from-scratch, qwen3-architecture]
---
# SearchGym reader start (${config.hidden_size}-wide, ${config.num_hidden_layers} layers, trained from scratch)

A Qwen3-architecture model of ${config.hidden_size} hidden units, ${config.num_hidden_layers} layers and a ${config.vocab_size}-id BPE
tokenizer, trained **from random weights on this project's synthetic worlds only** (no outside data or weights): full-weight next-token
pretraining on 20 worlds' pages, then one mixed full-weight SFT on the oracle's search-r1 demonstrations of one-hop questions of 16
other worlds (every fact new to it: it must read, not recall).

**Status:** ${status()}

## Reproduce

The script runs the same commands with the same flags as the runs that made this start (phase times below are those runs'); a run
of the whole script from a clean checkout has ${existsSync(join(out, '.done-funnel-heldout')) ? 'made this folder' : 'not been made yet: the figures come from the phases run one by one'}.

\`\`\`sh
bash curriculum/recipes/reader.sh runs/reader        # resumable; phases, times and figures below
node bin/run-ts.mjs curriculum/recipes/reader-card.ts runs/reader ${dest}
\`\`\`

World recipe: \`world build --preset small --config bench/perf/configs/world-small2x-1to2.json\`, pretraining seeds 1–4 and 11–26
(pages, each followed by its one-hop questions and answers), SFT seeds 27–42, unseen seeds 101 and 102 (never trained on; same config). Protocol search-r1, gym options \`{"topK":3,"observationCap":2000,"prompt":"brief","accessByTitle":true}\`,
the oracle's \`read\` answer (a one-hop demonstration is search, access, answer).

| phase | what | wall s | CPU s | note |
| --- | --- | ---: | ---: | --- |
${times.map((t) => `| ${t[0]} | ${phaseWhat(t[0])} | ${Number(t[1]).toFixed(0)} | ${(Number(t[2]) + Number(t[3])).toFixed(0)} | ${t[4] ?? ''} |`).join('\n')}
| **all** | | **${totalWall.toFixed(0)}** | **${totalCpu.toFixed(0)}** | |

Pretraining: ${pre.steps} steps, ${pre.tokens} tokens, train loss ${pre.finalLoss.toFixed(3)}, held-out loss on an unseen world's pages
${pre.heldOutLoss.toFixed(3)}. SFT: ${sft.solved} demonstrations, mix ${Object.entries(sft.mix).map(([k, w]) => `${k}=${w}`).join(', ')}, ${sft.steps} steps, final loss
${sft.finalLoss.toFixed(3)}${sft.budgetStopped ? ' (stopped by its CPU budget)' : ''}.

## Scores (greedy; 95 % CI of F1 by the normal approximation)

The funnel: *search* — the first search put the question's page in the top 3; *opened* — every hop's evidence sentence was in an
observation; *read | oracle* — F1 of the model's answer with the oracle's episode as context up to the answer turn; *answer loss* —
the oracle answer's teacher-forced loss there (nats per token); *fact drill* — F1 of the model's answer when that page is cut to its
title and the evidence sentence (the copy step alone).

| slice | hops | n | search | opened | read \\| oracle | F1 | EM | answer loss | fact drill |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${[...rows(unseen, 'unseen'), ...rows(held, 'held-out')].join('\n')}

\`held-out\` is the fact-disjoint held-out slice of the training worlds (\`train sft\`'s heldout.json); \`unseen\` are the worlds of seeds
never trained on. Figures: \`bench funnel\` (commands in the recipe).

## Limits

- EM is 0 everywhere: the F1 comes from answers that share words with the gold name (a copied surname, "Award for …"), not from
  whole names read off the page. The fact drill shows the copy step exists at short context (F1 ${factRange()} there on the unseen worlds);
  in a whole page it is found rarely (read | oracle), and the access step after a right search is the other weak link (opened).
- A reader of one-hop questions in this world recipe's language and page layout; two-hop figures are shown, not trained for.
- ${config.hidden_size} hidden units: it copies names and reads facts it has a pattern for; it has no knowledge beyond the page it reads.
- Trained and scored with the search-r1 protocol and the gym options above; other protocols or page formats are out of distribution.

## Files

${sums.map((l) => `- \`${l.split('  ')[1]}\` sha256 \`${l.split('  ')[0]}\``).join('\n')}
`
writeFileSync(join(dest, 'README.md'), card)
process.stdout.write(`reader-card: ${dest}: ${files.length} files, README.md, SHA256SUMS\n`)

function factRange(): string {
  const xs = Object.values(unseen.results).flatMap((r) => Object.values(r).map((f) => f.factF1))
  return `${pct(Math.min(...xs))}–${pct(Math.max(...xs))}`
}

function status(): string {
  const one = Object.values(unseen.results).map((r) => r.hops1?.f1 ?? 0)
  const two = Object.values(unseen.results).map((r) => r.hops2?.f1 ?? 0)
  const met = one.length >= 2 && one.every((x) => x >= 0.2) && two.every((x) => x >= 0.05)
  return met
    ? 'meets the reader target (one-hop F1 ≥ 20 % and two-hop ≥ 5 % on every unseen world).'
    : `below the reader target (one-hop F1 ≥ 20 %, two-hop ≥ 5 % on unseen worlds): one-hop ${one.map(pct).join(', ')}, two-hop ${two.map(pct).join(', ')}. Not the start the target asks for.`
}

function phaseWhat(p: string): string {
  return ({ worlds: 'build the 38 worlds', init: 'model init (BPE tokenizer)', pretrain: 'model pretrain', sft: 'train sft --full --mix', 'funnel-unseen': 'bench funnel, unseen worlds', 'funnel-heldout': 'bench funnel, held-out slice' } as Record<string, string>)[p] ?? p
}

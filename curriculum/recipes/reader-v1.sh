#!/usr/bin/env bash
# curriculum/recipes/reader-v1.sh: the shipped reader start curriculum/starts/reader-v1, from a clean checkout — the
# reading curriculum of curriculum/recipes/reader-v1.json (`train reader`: the recipe's worlds, a random 64 × 2 model with
# the recipe's BPE tokenizer, the phases copy → grow → page → episode → turns → demos with their gates), then the funnel
# on the two never-trained worlds and on the training worlds' fact-disjoint held-out slice, then the model card.
# Usage: bash curriculum/recipes/reader-v1.sh [OUT]   (default runs/reader-v1)
#   COMMITTED=DIR  adopt finished phases from DIR and write each phase finished here to it (default: none — every phase
#                  is trained here; the shipped run used curriculum/starts/reader-v1/phases)
#   CPU_BUDGET=S   stop the training after S CPU seconds (checkpoint written; rerun the script to go on)
#   CARD=DIR       write the model card and files to DIR at the end (the shipped start: curriculum/starts/reader-v1;
#                  its scores/ are the funnel JSONs the next run is compared with: OUT/compare.md)
# Every step is resumable: rerun the script; finished steps are skipped. Wall and CPU seconds per step: OUT/times.tsv.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-runs/reader-v1}
SG="node bin/searchgym.mjs"
mkdir -p "$OUT"
exec {STDOUT}>&1
[ -f "$OUT/times.tsv" ] || printf 'step\twall_s\tuser_s\tsys_s\n' > "$OUT/times.tsv"

# step NAME CMD…: runs CMD unless OUT/.done-NAME exists; its wall, user and system seconds go to times.tsv.
step() {
  local name=$1; shift
  if [ -f "$OUT/.done-$name" ]; then echo "reader-v1: $name done before, skipped"; return; fi
  echo "reader-v1: $name …"
  local t
  TIMEFORMAT=$'%R\t%U\t%S'
  t=$( { time "$@" 1>&4 2>&3; } 3>&2 4>&"$STDOUT" 2>&1 )
  printf '%s\t%s\n' "$name" "$t" >> "$OUT/times.tsv"
  touch "$OUT/.done-$name"
}

step train $SG train reader --config curriculum/recipes/reader-v1.json --out "$OUT" --backend native ${COMMITTED:+--committed "$COMMITTED"} ${CPU_BUDGET:+--cpu-budget "$CPU_BUDGET"}
[ -d "$OUT/model" ] || { echo "reader-v1: training paused (CPU_BUDGET); rerun the script to go on"; rm -f "$OUT/.done-train"; exit 0; }
W="$OUT/worlds/small-bd6747e2-s"
TRAIN=(); for s in 1 2 3 4 $(seq 11 30); do TRAIN+=(--world "$W$s"); done
step funnel-unseen $SG bench funnel --model "$OUT/model" --world "${W}101" --world "${W}102" --hops 1,2 --questions 300 --backend native --set json="$OUT/funnel-unseen.json"
step funnel-heldout $SG bench funnel --model "$OUT/model" "${TRAIN[@]}" --set qaIds="$OUT/heldout.json" --hops 1,2 --questions 300 --backend native --set json="$OUT/funnel-heldout.json"
# Against the shipped start's scores (its funnel JSONs, curriculum/starts/reader-v1/scores): each figure inside its CI?
node bin/run-ts.mjs curriculum/recipes/reader-v1-compare.ts "$OUT" > "$OUT/compare.md" && echo "reader-v1: every figure inside the shipped start's 95 % CIs ($OUT/compare.md)" \
  || echo "reader-v1: $(tail -1 "$OUT/compare.md") ($OUT/compare.md)"
if [ -n "${CARD:-}" ]; then node bin/run-ts.mjs curriculum/recipes/reader-v1-card.ts "$OUT" "$CARD"; fi
echo "reader-v1: done — $OUT/model; figures in $OUT/funnel-unseen.json, $OUT/funnel-heldout.json, times in $OUT/times.tsv"

#!/usr/bin/env bash
# curriculum/recipes/reader.sh: the shipped reader start, from nothing — the world recipe's worlds (20 for pretraining,
# 16 others for the SFT, 2 never trained on), a BPE tokenizer for the recipe, full-weight pretraining on the pretraining
# worlds' pages each followed by its one-hop questions and answers, one mixed full-weight SFT on the other worlds
# (every fact new to the model: reading, not recall), and the funnel on the unseen worlds and on the SFT worlds'
# held-out slice. Every phase is resumable (rerun the
# script: finished phases are skipped, a killed one resumes from its checkpoint); wall and CPU seconds per phase go to
# OUT/times.tsv. Usage: bash curriculum/recipes/reader.sh [OUT]   (default runs/reader; env SFT_CPU caps the SFT phase;
# env READER_PRESET picks the model shape, default tiny — the shipped start's; mini is the shape probe of RESULTS)
# READER_SMOKE=1 runs the same phases at toy size (tiny worlds, a few steps; tests/reader-recipe.test.ts): the plumbing,
# not the start.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-runs/reader}
SG="node bin/searchgym.mjs"
if [ "${READER_SMOKE:-}" = 1 ]; then
  WORLD_ARGS=(--preset tiny); PRE_SEEDS=(1 2); SFT_SEEDS=(3 4); UNSEEN_SEEDS=(9 10)
  PRE_STEPS=6; PRE_BATCH=2; PRE_LEN=128; SFT_QUESTIONS=8; SFT_BATCH=4; FUNNEL_QUESTIONS=3; EVAL_EVERY=4; HELD_OUT=4
else
  WORLD_ARGS=(--preset small --config bench/perf/configs/world-small2x-1to2.json)
  PRE_SEEDS=(1 2 3 4 $(seq 11 26)); SFT_SEEDS=($(seq 27 42)); UNSEEN_SEEDS=(101 102)
  PRE_STEPS=2400; PRE_BATCH=8; PRE_LEN=512; SFT_QUESTIONS=12800; SFT_BATCH=16; FUNNEL_QUESTIONS=300; EVAL_EVERY=1000; HELD_OUT=400
fi
GYM='{"topK":3,"observationCap":2000,"prompt":"brief","accessByTitle":true}'
mkdir -p "$OUT/worlds"
exec {STDOUT}>&1
[ -f "$OUT/times.tsv" ] || printf 'phase\twall_s\tuser_s\tsys_s\n' > "$OUT/times.tsv"

# phase NAME CMD…: runs CMD unless OUT/.done-NAME exists; its wall, user and system seconds (children included) are
# appended to times.tsv.
phase() {
  local name=$1; shift
  if [ -f "$OUT/.done-$name" ]; then echo "reader: $name done before, skipped"; return; fi
  echo "reader: $name …"
  local t
  TIMEFORMAT=$'%R\t%U\t%S'
  t=$( { time "$@" 1>&4 2>&3; } 3>&2 4>&"$STDOUT" 2>&1 )
  printf '%s\t%s\n' "$name" "$t" >> "$OUT/times.tsv"
  touch "$OUT/.done-$name"
}

worlds_phase() {
  for s in "${PRE_SEEDS[@]}" "${SFT_SEEDS[@]}" "${UNSEEN_SEEDS[@]}"; do
    [ -f "$OUT/worlds/w$s/world.db" ] && [ -f "$OUT/worlds/w$s/.complete" ] && continue
    $SG world build "${WORLD_ARGS[@]}" --seed "$s" --out "$OUT/worlds/w$s" --quiet
    touch "$OUT/worlds/w$s/.complete"
  done
}
PRE_WORLDS=(); for s in "${PRE_SEEDS[@]}"; do PRE_WORLDS+=(--world "$OUT/worlds/w$s"); done
SFT_WORLDS=(); for s in "${SFT_SEEDS[@]}"; do SFT_WORLDS+=(--world "$OUT/worlds/w$s"); done
TOK_DIRS=$(printf "$OUT/worlds/w%s," "${PRE_SEEDS[@]:0:4}"); TOK_DIRS=${TOK_DIRS%,}

phase worlds worlds_phase
phase init $SG model init --preset "${READER_PRESET:-tiny}" --tokenizer "bpe:$TOK_DIRS@4096" --rope-theta 10000 --out "$OUT/init" --force
phase pretrain $SG model pretrain --model "$OUT/init" "${PRE_WORLDS[@]}" --qa-lines --eval-world "$OUT/worlds/w${UNSEEN_SEEDS[0]}" --out "$OUT/pretrain" \
  --steps $PRE_STEPS --batch $PRE_BATCH --seq-len $PRE_LEN --warmup 50 --eval-every 600 --backend native
phase sft $SG train sft "${SFT_WORLDS[@]}" --model "$OUT/pretrain/model" --full --mix demo=1,search=1,access=1,answer=2,read=2,fact=2 --spread \
  --questions $SFT_QUESTIONS --max-hops 1 --oracle-answer read --protocol search-r1 --gym-options "$GYM" --held-out $HELD_OUT --epochs 1 --batch $SFT_BATCH --lr 1e-3 \
  --eval-world "$OUT/worlds/w${UNSEEN_SEEDS[0]}" --eval-questions 100 --eval-hops 1 --eval-every $EVAL_EVERY --backend native --out "$OUT/sft" \
  ${SFT_CPU:+--cpu-budget $SFT_CPU}
UNSEEN=(); for s in "${UNSEEN_SEEDS[@]}"; do UNSEEN+=(--world "$OUT/worlds/w$s"); done
phase funnel-unseen $SG bench funnel --model "$OUT/sft/model" "${UNSEEN[@]}" --hops 1,2 --questions $FUNNEL_QUESTIONS --protocol search-r1 --gym-options "$GYM" \
  --backend native --json "$OUT/funnel-unseen.json"
phase funnel-heldout $SG bench funnel --model "$OUT/sft/model" "${SFT_WORLDS[@]}" --qa-ids "$OUT/sft/heldout.json" --hops 1,2 --questions $FUNNEL_QUESTIONS \
  --protocol search-r1 --gym-options "$GYM" --backend native --json "$OUT/funnel-heldout.json"
echo "reader: done — $OUT/sft/model; figures in $OUT/funnel-unseen.json, $OUT/funnel-heldout.json, times in $OUT/times.tsv"

#!/usr/bin/env bash
# bench/perf/reader-curve.sh: the engine's copy-step drill curve beside the PyTorch reference's, in one run on this box
# (issue 57) — the same 64 × 2 shape and tokenizer, the same one-hop items of the same 12 training worlds (seeds 1–4,
# 11–18 of the reader recipe), answer-only loss, batch 32, AdamW (0.9, 0.95), weight decay 0.01, lr 3e-3 with warmup 100
# and cosine to lr/10 over 4,000 steps; both scored greedily every 500 steps on the one-hop questions of the unseen worlds
# 101 and 102 (the evidence-sentence drill and the whole page). The reference's item is `question → title + evidence →
# answer`; the engine's is the funnel's fact drill (the search-r1 episode with the page cut to its title and the evidence
# sentence). Run it on an otherwise idle box (one after the other, never beside another CPU job).
# Usage: bash bench/perf/reader-curve.sh [OUT]   (default runs/reader-curve; needs /usr/bin/python3 with torch:
#        apt-get install -y python3-torch). Prints the two curves, per step and per CPU-second.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-runs/reader-curve}
mkdir -p "$OUT"
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "reader-curve: /usr/bin/python3 has no torch (apt-get install -y python3-torch)" >&2; exit 2; }
REF=../shared/anchors/reader
[ -f "$REF/reader_torch.py" ] || { echo "reader-curve: the reference is not at $REF (the shared anchors folder beside the checkout)" >&2; exit 2; }
# 1. The engine (its worlds are built here, then reused by the reference's export).
if [ ! -f "$OUT/engine/phases/copy/phase.json" ]; then
  /usr/bin/time -f '%e s wall, %U s user, %S s sys' node bin/searchgym.mjs train reader --config bench/perf/configs/reader-curve.json --out "$OUT/engine" --backend native > "$OUT/engine.log" 2>&1 \
    || { tail -3 "$OUT/engine.log" >&2; exit 1; }
  grep -E 'copy step [0-9]+:|done|wall' "$OUT/engine.log"
fi
W="$OUT/engine/worlds/small-bd6747e2-s"
# 2. The reference on the same worlds' items.
if [ ! -f "$OUT/ref/ev.json" ]; then
  node bin/run-ts.mjs "$REF/export-items.mts" "$OUT/items" "$OUT/engine/init" $(for s in 1 2 3 4 11 12 13 14 15 16 17 18 101 102; do echo "$W$s"; done) > /dev/null
  TR=$(for s in 1 2 3 4 11 12 13 14 15 16 17 18; do printf '%s,' "$OUT/items/small-bd6747e2-s$s.jsonl"; done)
  /usr/bin/python3 "$REF/reader_torch.py" --name ev --tokenizer "$OUT/engine/init" --train "${TR%,}" \
    --test "$OUT/items/small-bd6747e2-s101.jsonl,$OUT/items/small-bd6747e2-s102.jsonl" --ctx ev --lr 3e-3 --steps 4000 --batch 32 \
    --eval-every 500 --eval-ctx ev,page --out "$OUT/ref" > "$OUT/ref.log" 2>&1 || { tail -3 "$OUT/ref.log" >&2; exit 1; }
  grep -E '^# phase' "$OUT/ref.log"
fi
node bin/run-ts.mjs bench/perf/reader-curve-table.ts "$OUT"

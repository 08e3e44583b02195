#!/usr/bin/env bash
# PROPOSED (issue 49) two-stage launch for AReaL/ASearcher 813e804, tiny-world values (phase1.jsonl 224 rows,
# phase2.jsonl 339). Run from the ASearcher checkout. The loop reads epochs only: steps = total_train_epochs x
# ((rows // ranks) // (batch // ranks)); 4 trainer ranks (asearcher_local.yaml allocation d4p1t1+d4p1t1), batch 128.
set -euo pipefail
export RAG_SERVER_ADDR_DIR=${RAG_SERVER_ADDR_DIR:-$CKPT/rag-addr}
GYM_ARGS="--address-file $RAG_SERVER_ADDR_DIR"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BASE=(--config ASearcher/configs/asearcher_local.yaml search_client_type=async-search-access
  cluster.fileroot="$CKPT/areal" experiment_name=searchgym n_trajs=16 actor.group_size=16 actor.kl_ctl=0.0
  train_dataset.batch_size=128 max_turns=32 topk=5 actor.mb_spec.max_tokens_per_mb=15000)
# phase 1: 1 step/epoch -> total_train_epochs 100 = 100 steps; the saver writes every epoch end (freq_epochs 1).
python3 -m areal.launcher.local ASearcher/train/asearcher.py "${BASE[@]}" trial_name=phase1 actor.path="$MODEL" \
  train_dataset.path="$DATA/phase1.jsonl" total_train_epochs=100 "$@"
# the saver's last folder: {fileroot}/checkpoints/{user}/{experiment}/{trial}/default/epoch{e}epochstep{s}globalstep{g}
STAGE1_MODEL=$(ls -d "$CKPT"/areal/checkpoints/*/searchgym/phase1/default/epoch*epochstep*globalstep* \
  | awk -F'globalstep' '{print $NF "\t" $0}' | sort -n | tail -1 | cut -f2-)
[ -n "$STAGE1_MODEL" ] || { echo "phase 1 saved no model under $CKPT/areal" >&2; exit 1; }
# the saver writes no tokenizer (asearcher.py:460); phase 2 loads one from actor.path (base_hf_engine.py:129)
if [ -d "$MODEL" ]; then
  for f in tokenizer.json tokenizer_config.json special_tokens_map.json vocab.json merges.txt tokenizer.model added_tokens.json; do
    [ -f "$MODEL/$f" ] && cp "$MODEL/$f" "$STAGE1_MODEL/"
  done
else
  python3 -c 'import sys; from transformers import AutoTokenizer as T; T.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])' "$MODEL" "$STAGE1_MODEL"
fi
# phase 2: 2 steps/epoch -> total_train_epochs 50 = 100 steps, from step 0 of its own loop (no recover_start_step).
python3 -m areal.launcher.local ASearcher/train/asearcher.py "${BASE[@]}" trial_name=phase2 actor.path="$STAGE1_MODEL" \
  train_dataset.path="$DATA/phase2.jsonl" total_train_epochs=50 "$@"

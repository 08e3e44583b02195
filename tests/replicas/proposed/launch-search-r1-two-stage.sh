#!/usr/bin/env bash
# PROPOSED (issue 49) two-stage launch for Search-R1 a14dc3a, tiny-world values (stage1 224 rows, stages 1..2 339 rows).
# Keys: docs in /work/eng49-facts.md. Batch 128 <= 224 rows; phase k saves global_step_N at its last trained step.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
GRPO=(algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n_agent=5 actor_rollout_ref.actor.use_kl_loss=true
  actor_rollout_ref.actor.kl_loss_coef=0.001 actor_rollout_ref.actor.kl_loss_type=low_var_kl
  actor_rollout_ref.actor.state_masking=true trainer.default_hdfs_dir=null)
LIMITS=(data.train_batch_size=128 data.val_batch_size=29 actor_rollout_ref.actor.ppo_mini_batch_size=128
  actor_rollout_ref.actor.ppo_micro_batch_size=8 max_turns=8 data.max_obs_length=500 data.max_prompt_length=9548
  retriever.topk=3 retriever.url="http://127.0.0.1:$PORT/retrieve")
# phase 1: stage1, 100 steps: 1 batch/epoch -> total_epochs 100; the loop returns when global_steps reaches
# total_training_steps, so 101 trains steps 1..100 and save_freq 100 writes actor/global_step_100.
python3 -m verl.trainer.main_ppo data.train_files="['$DATA/stage1-stage1.parquet']" data.val_files="$DATA/test.parquet" \
  actor_rollout_ref.model.path="$MODEL" trainer.default_local_dir="$CKPT/phase1" \
  trainer.total_epochs=100 trainer.total_training_steps=101 trainer.save_freq=100 "${GRPO[@]}" "${LIMITS[@]}" "$@"
# phase 2: stages 1..2, 100 steps from phase 1's actor (HF folder): 2 batches/epoch -> total_epochs 50.
python3 -m verl.trainer.main_ppo data.train_files="['$DATA/stage1-stage1.parquet','$DATA/stage2-stage2.parquet']" \
  data.val_files="$DATA/test.parquet" actor_rollout_ref.model.path="$CKPT/phase1/actor/global_step_100" \
  trainer.default_local_dir="$CKPT/phase2" trainer.total_epochs=50 trainer.total_training_steps=101 trainer.save_freq=100 \
  "${GRPO[@]}" "${LIMITS[@]}" "$@"

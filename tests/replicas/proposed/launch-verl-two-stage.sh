#!/usr/bin/env bash
# PROPOSED (issue 49) two-stage launch for verl b178a3c, tiny-world values (stage1 224 rows, stages 1..2 339 rows).
# Run from the verl checkout (the config path). Batch 128 <= 224 rows.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
VERL_DIR=${VERL_DIR:-$PWD}
BASE=(--config-path="$VERL_DIR/examples/sglang_multiturn/config" --config-name=search_multiturn_grpo
  data.val_files="$DATA/test.parquet" data.return_raw_chat=True actor_rollout_ref.model.path="$MODEL"
  actor_rollout_ref.rollout.multi_turn.enable=True actor_rollout_ref.rollout.multi_turn.format=hermes
  actor_rollout_ref.rollout.multi_turn.tool_config_path="$DATA/search_tool_config.yaml"
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=5 actor_rollout_ref.actor.use_kl_loss=True
  actor_rollout_ref.actor.kl_loss_coef=0.001 actor_rollout_ref.actor.kl_loss_type=low_var_kl algorithm.use_kl_in_reward=False
  data.train_batch_size=128 data.val_batch_size=29 actor_rollout_ref.actor.ppo_mini_batch_size=128
  actor_rollout_ref.rollout.multi_turn.max_assistant_turns=9 actor_rollout_ref.rollout.multi_turn.max_tool_response_length=4096
  actor_rollout_ref.rollout.multi_turn.tool_response_truncate_side=middle
  data.max_response_length=13023 actor_rollout_ref.rollout.max_model_len=17119 trainer.default_local_dir="$CKPT")
# phase 1: 100 steps; 1 batch/epoch -> total_epochs 100; the last step saves (save_freq > 0 and is_last_step).
python3 -m verl.trainer.main_ppo "${BASE[@]}" data.train_files="['$DATA/stage1-stage1.parquet']" \
  trainer.resume_mode=disable trainer.total_training_steps=100 trainer.total_epochs=100 trainer.save_freq=100 "$@"
# phase 2 resumes global_step_100 (weights + optimizer) but not phase 1's dataloader state (data.pt is per dataset).
[ -f "$CKPT/global_step_100/data.pt" ] && mv "$CKPT/global_step_100/data.pt" "$CKPT/global_step_100/data.pt.phase1"
# 100 more steps: start epoch = 100 // 2 batches = 50, so total_epochs 50 + ceil(100 / 2) = 100; total_training_steps 200.
python3 -m verl.trainer.main_ppo "${BASE[@]}" data.train_files="['$DATA/stage1-stage1.parquet','$DATA/stage2-stage2.parquet']" \
  trainer.resume_mode=resume_path trainer.resume_from_path="$CKPT/global_step_100" \
  trainer.total_training_steps=200 trainer.total_epochs=100 trainer.save_freq=100 "$@"

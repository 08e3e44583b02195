#!/usr/bin/env bash
# tests/replicas/fake_checkouts.sh DIR: stand-ins of the engine checkouts a launch script names (VERL_DIR, ASEARCHER_DIR),
# holding the files the engines open before they train, at the paths they open them — what the replica stub
# (engine_phases.py config_files) looks for; their keys are in engine-keys/*.tsv. DIR/verl is verl b178a3c's layout,
# DIR/asearcher/AReaL ASearcher 813e804's AReaL folder.
set -euo pipefail
D=$1
mkdir -p "$D/verl/examples/sglang_multiturn/config" "$D/verl/verl/trainer/config" "$D/asearcher/AReaL/ASearcher/configs" "$D/asearcher/AReaL/ASearcher/train"
# The head of verl b178a3c examples/sglang_multiturn/config/search_multiturn_grpo.yaml:1-7, as it is (the search path is
# relative: Hydra resolves it against the folder main_ppo runs in).
cat > "$D/verl/examples/sglang_multiturn/config/search_multiturn_grpo.yaml" <<'YAML'
hydra:
  searchpath:
    - file://verl/trainer/config

defaults:
  - ppo_trainer
  - _self_

# stand-in (tests/replicas/fake_checkouts.sh): the rest of the file's keys are in tests/replicas/engine-keys/verl.tsv
YAML
echo '# stand-in of verl b178a3c verl/trainer/config/ppo_trainer.yaml (its keys: tests/replicas/engine-keys/verl.tsv)' > "$D/verl/verl/trainer/config/ppo_trainer.yaml"
echo '# stand-in of ASearcher 813e804 AReaL/ASearcher/configs/asearcher_local.yaml (its keys: tests/replicas/engine-keys/asearcher.tsv)' > "$D/asearcher/AReaL/ASearcher/configs/asearcher_local.yaml"
echo '# stand-in of ASearcher 813e804 AReaL/ASearcher/train/asearcher.py (the replica: tests/replicas/engine_phases.py)' > "$D/asearcher/AReaL/ASearcher/train/asearcher.py"

#!/usr/bin/env bash
# tests/replicas/run_launch_stub.sh LAUNCH.sh EXPORT_DIR WORLD_DIR [MODEL_DIR]
# Copies the export (and the launch script, with any file it sources from its own folder) to a fresh folder outside
# the checkout, lays stand-ins of the engine checkouts beside it (fake_checkouts.sh: VERL_DIR, ASEARCHER_DIR), runs the
# script there from another fresh folder with tests/replicas/stub-bin first on PATH (the trainer replaced by the replica
# stub: each engine's step arithmetic, its Hydra's struct-mode key check, the config files it opens, AReaL's launcher
# exiting 1 once its trainer has ended), then checks: every trainer call found the gym up (/health), the script exited
# 0, the gym was stopped when it exited, and the phases chain (engine_phases.check_chain: each trains > 0 steps in its
# engine's own arithmetic, each later one loads what an earlier one wrote). Prints a JSON summary; exit 1 on any failure.
# LAUNCH_RUNS=N reruns the script in the same folders (same CKPT) until it exits 0, at most N times (STUB_CRASH=K:N
# makes the K-th trainer call die after N steps); the checks apply to the last run, the chain to every call that did
# not crash.
set -uo pipefail
LAUNCH=$1; EXPORT=$2; WORLD_DIR=$3; MODEL_DIR=${4:-}
REPL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T=$(mktemp -d /tmp/launch-stub.XXXXXX)
mkdir -p "$T/export" "$T/run" "$T/ckpt"
cp -r "$EXPORT"/. "$T/export/"
cp "$LAUNCH" "$T/export/"
for f in $(grep -o 'dirname "${BASH_SOURCE\[0\]}")/[A-Za-z0-9_.-]*' "$LAUNCH" | sed 's#.*/##'); do cp "$(dirname "$LAUNCH")/$f" "$T/export/"; done
bash "$REPL/fake_checkouts.sh" "$T/engines"
if [ -z "$MODEL_DIR" ]; then MODEL_DIR="$T/model"; mkdir -p "$MODEL_DIR"; echo '{}' > "$MODEL_DIR/tokenizer_config.json"; echo '{}' > "$MODEL_DIR/config.json"; fi
PORT=${PORT:-8000}
STUB_REAL_PYTHON="${STUB_REAL_PYTHON:-$(command -v python3)}"
export PATH="$REPL/stub-bin:$PATH" STUB_LOG="$T/stub.jsonl" CKPT="$T/ckpt" WORLD="$WORLD_DIR" MODEL="$MODEL_DIR" PORT
export VERL_DIR="${VERL_DIR:-$T/engines/verl}" ASEARCHER_DIR="${ASEARCHER_DIR:-$T/engines/asearcher/AReaL}"
export STUB_HEALTH_URL="http://127.0.0.1:$PORT/health" STUB_REAL_PYTHON
export SEARCHGYM="${SEARCHGYM:-$(cd "$REPL/../.." && pwd)/bin/searchgym.mjs}" npm_config_offline=true
cd "$T/run"
RCS=()
for ((r = 1; r <= ${LAUNCH_RUNS:-1}; r++)); do
  echo "{\"run\": $r}" >> "$T/stub.jsonl"
  timeout "${STUB_TIMEOUT_S:-300}" bash "$T/export/$(basename "$LAUNCH")" > "$T/out$r.log" 2>&1
  RC=$?
  RCS+=("$RC")
  [ "$RC" -eq 0 ] && break
done
# a gym left running (no trap) may still be starting: watch the port for a while
AFTER=down
for _ in $(seq 1 "${GYM_GRACE_S:-15}"); do
  if curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then AFTER=up; break; fi
  sleep 1
done
if [ "$AFTER" = up ]; then
  # stop the orphan this run started (its pid is in the gym's own start line)
  GP=$(grep -ho 'gym serve: pid [0-9]*' "$T"/out*.log | head -1 | grep -o '[0-9]*$')
  [ -n "$GP" ] && kill "$GP" 2>/dev/null
fi
ABS=$(grep -n -F "$(cd "$EXPORT" && pwd)" "$T/export/$(basename "$LAUNCH")" | head -3 | tr '\n' ' ')
"$STUB_REAL_PYTHON" - "$T" "$AFTER" "$ABS" "$REPL" "${RCS[*]}" <<'PY'
import json, os, sys
t, after, absref, rcs = sys.argv[1], sys.argv[2], sys.argv[3], [int(x) for x in sys.argv[5].split()]
sys.path.insert(0, sys.argv[4])
from engine_phases import check_chain
runs, calls = [], []
for line in (open(f"{t}/stub.jsonl") if os.path.exists(f"{t}/stub.jsonl") else []):
    c = json.loads(line)
    if "run" in c and "argv" not in c:
        runs.append([])
        continue
    c["run"] = len(runs)
    runs[-1].append(c)
    calls.append(c)
rc = rcs[-1]
last = runs[-1] if runs else []
problems = []
if rc != 0:
    log = open(f"{t}/out{len(rcs)}.log").read().strip()
    problems.append(f"the script exited {rc}: " + log.splitlines()[-1][:300] if log else f"the script exited {rc}")
if not last:
    problems.append("no trainer call reached the stub in the last run")
for c in calls:
    tag = f"run {c['run']}, trainer call {c['call']}"
    if c.get("gym_health") != 200:
        problems.append(f"{tag}: gym not up: {c.get('gym_health')}")
    ph = c.get("phase", {})
    if ph.get("refused") and not ph.get("crashed"):
        problems.append(f"{tag}: {ph['refused']}")
    for v in ph.get("contract_violations", []):
        problems.append(f"{tag}: {v}")
chain = [c["phase"] for c in calls if "phase" in c and not c["phase"].get("crashed")]
if chain and not any(c["phase"].get("refused") and not c["phase"].get("crashed") for c in calls if "phase" in c):
    problems += [p for p in check_chain({"phases": chain}) if p not in problems]
if absref.strip():
    problems.append(f"the script names the exporting machine's folder: {absref.strip()[:200]}")
if after != "down":
    problems.append("the gym is still up after the script exited (no trap)")
def brief(c):
    ph = c.get("phase", {})
    return {"run": c["run"], "engine": ph.get("engine"), "gym_health": c.get("gym_health"), "exit": c.get("exit"),
            "steps_trained": ph.get("steps_trained"), "refused": ph.get("refused"), "crashed": bool(ph.get("crashed")),
            "loaded": ph.get("loaded"), "written": ph.get("checkpoints_written", [])[-1:],
            "n_written": len(ph.get("checkpoints_written", [])), "saver_root": ph.get("saver_root"),
            "recover_start_step": ph.get("recover_start_step")}
summary = {"dir": t, "rc": rc, "rcs": rcs, "gym_after_exit": after, "calls": [brief(c) for c in last],
           "all_calls": [brief(c) for c in calls], "problems": problems, "ok": not problems,
           "log": open(f"{t}/out{len(rcs)}.log").read()[-3000:]}
print(json.dumps(summary, indent=1))
sys.exit(0 if not problems else 1)
PY

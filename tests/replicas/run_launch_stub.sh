#!/usr/bin/env bash
# tests/replicas/run_launch_stub.sh LAUNCH.sh EXPORT_DIR WORLD_DIR [MODEL_DIR]
# Copies the export (and the launch script, with any file it sources from its own folder) to a fresh folder outside
# the checkout, runs the script there from another fresh folder with tests/replicas/stub-bin first on PATH (the
# trainer replaced by the replica stub), then checks: every trainer call found the gym up (/health), the script
# exited 0, the gym was stopped when it exited, and the phases chain (engine_phases.check_chain: each trains > 0 steps
# in its engine's own arithmetic, each later one loads what an earlier one wrote). Prints a JSON summary; exit 1 on any
# failure.
set -uo pipefail
LAUNCH=$1; EXPORT=$2; WORLD_DIR=$3; MODEL_DIR=${4:-}
REPL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T=$(mktemp -d /tmp/launch-stub.XXXXXX)
mkdir -p "$T/export" "$T/run" "$T/ckpt"
cp -r "$EXPORT"/. "$T/export/"
cp "$LAUNCH" "$T/export/"
for f in $(grep -o 'dirname "${BASH_SOURCE\[0\]}")/[A-Za-z0-9_.-]*' "$LAUNCH" | sed 's#.*/##'); do cp "$(dirname "$LAUNCH")/$f" "$T/export/"; done
if [ -z "$MODEL_DIR" ]; then MODEL_DIR="$T/model"; mkdir -p "$MODEL_DIR"; echo '{}' > "$MODEL_DIR/tokenizer_config.json"; echo '{}' > "$MODEL_DIR/config.json"; fi
PORT=${PORT:-8000}
STUB_REAL_PYTHON="${STUB_REAL_PYTHON:-$(command -v python3)}"
export PATH="$REPL/stub-bin:$PATH" STUB_LOG="$T/stub.jsonl" CKPT="$T/ckpt" WORLD="$WORLD_DIR" MODEL="$MODEL_DIR" PORT
export STUB_HEALTH_URL="http://127.0.0.1:$PORT/health" STUB_REAL_PYTHON
export SEARCHGYM="${SEARCHGYM:-$(cd "$REPL/../.." && pwd)/bin/searchgym.mjs}" npm_config_offline=true
cd "$T/run"
timeout "${STUB_TIMEOUT_S:-300}" bash "$T/export/$(basename "$LAUNCH")" > "$T/out.log" 2>&1
RC=$?
# a gym left running (no trap) may still be starting: watch the port for a while
AFTER=down
for _ in $(seq 1 "${GYM_GRACE_S:-15}"); do
  if curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then AFTER=up; break; fi
  sleep 1
done
if [ "$AFTER" = up ]; then
  # stop the orphan this run started (its pid is in the gym's own start line)
  GP=$(grep -o 'gym serve: pid [0-9]*' "$T/out.log" | head -1 | grep -o '[0-9]*$')
  [ -n "$GP" ] && kill "$GP" 2>/dev/null
fi
ABS=$(grep -n -F "$(cd "$EXPORT" && pwd)" "$T/export/$(basename "$LAUNCH")" | head -3 | tr '\n' ' ')
"$STUB_REAL_PYTHON" - "$T" "$RC" "$AFTER" "$ABS" "$REPL" <<'PY'
import json, sys
t, rc, after, absref = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sys.path.insert(0, sys.argv[5])
from engine_phases import check_chain
calls = [json.loads(l) for l in open(f"{t}/stub.jsonl")] if __import__("os").path.exists(f"{t}/stub.jsonl") else []
problems = []
if rc != 0:
    problems.append(f"the script exited {rc}: " + open(f"{t}/out.log").read().strip().splitlines()[-1][:300] if open(f"{t}/out.log").read().strip() else f"the script exited {rc}")
if not calls:
    problems.append("no trainer call reached the stub")
for i, c in enumerate(calls):
    if c.get("gym_health") != 200:
        problems.append(f"trainer call {i + 1}: gym not up: {c.get('gym_health')}")
    ph = c.get("phase", {})
    if ph.get("refused"):
        problems.append(f"trainer call {i + 1}: {ph['refused']}")
    for v in ph.get("contract_violations", []):
        problems.append(f"trainer call {i + 1}: {v}")
if calls and all("phase" in c for c in calls):
    problems += [p for p in check_chain({"phases": [c["phase"] for c in calls]}) if p not in problems]
if absref.strip():
    problems.append(f"the script names the exporting machine's folder: {absref.strip()[:200]}")
if after != "down":
    problems.append("the gym is still up after the script exited (no trap)")
summary = {"dir": t, "rc": rc, "gym_after_exit": after, "calls": [{"engine": c.get("phase", {}).get("engine"),
           "gym_health": c.get("gym_health"), "steps_trained": c.get("phase", {}).get("steps_trained"),
           "refused": c.get("phase", {}).get("refused"),
           "loaded": c.get("phase", {}).get("loaded"), "written": c.get("phase", {}).get("checkpoints_written", [])[-1:]}
           for c in calls], "problems": problems, "ok": not problems}
print(json.dumps(summary, indent=1))
sys.exit(0 if not problems else 1)
PY

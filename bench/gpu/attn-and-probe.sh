#!/usr/bin/env bash
# bench/gpu/attn-and-probe.sh: the second GPU check (2026-12-01), run after bench/gpu/run.sh in the same device call:
#   1. bench/gpu/attn-bench.cu — attention v1 vs v2 (FlashAttention-2 order) forward/backward ms and TFLOP/s on the
#      Qwen3-0.6B and 4B shapes, and v2 checked against v1 on the device;
#   2. bench/perf/answer-probe.ts on the cuda backend — can a fresh tiny / small model learn to copy a one-hop answer
#      out of the page (data from bench/perf/answer-probe-data.ts, carried gzipped in .gpu-carry/probe/).
# Needs: libsgcuda.so at $SG_CUDA_LIB (run.sh built it), node on PATH, .gpu-carry from prepare-carry.sh plus probe/.
# Usage: bench/gpu/attn-and-probe.sh OUTDIR [SECONDS_TINY] [SECONDS_SMALL]
set -uo pipefail
O="${1:?usage: attn-and-probe.sh OUTDIR [SECONDS_TINY] [SECONDS_SMALL]}"
mkdir -p "$O"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Iinfra/engine/cuda bench/gpu/attn-bench.cu \
  infra/engine/cuda/kernels/attention_fwd.cu infra/engine/cuda/kernels/attention_bwd.cu -o /tmp/attn-bench \
  && timeout 90 /tmp/attn-bench > "$O/attn.txt" 2>&1
echo "attn-bench exit $?" >> "$O/attn.txt"
cat "$O/attn.txt"
gunzip -c .gpu-carry/probe/answer-data.json.gz > /tmp/answer-data.json
for m in tiny:${2:-100} small:${3:-140}; do
  p=${m%%:*} s=${m##*:}
  timeout $((s + 60)) node --max-old-space-size=8192 .gpu-carry/answer-probe.mjs --data /tmp/answer-data.json --model .gpu-carry/probe \
    --init "$p" --out "/tmp/ap-$p" --backend cuda --steps 1000000 --seconds "$s" --eval-every 250 --eval-n 174 --batch 16 > "$O/probe-$p.txt" 2>&1
  echo "probe $p exit $?" >> "$O/probe-$p.txt"
  tail -4 "$O/probe-$p.txt" | cut -c1-400
done

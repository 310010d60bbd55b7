#!/usr/bin/env bash
# Runs every benchmark of gst-tensor against its peer in the same process:
#   bench/run.sh               all of them
#   bench/run.sh alloc gemm    only bench_alloc and bench_gemm
# Builds an optimised tree in build-bench first.  Each figure is a median of
# several interleaved runs, printed beside its peer as a ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
# The peers: OpenBLAS for GEMM, NumPy for elementwise math and reductions.
scripts/deps.sh libopenblas-dev libopenblas0-pthread python3-numpy
scripts/build.sh build-bench --buildtype=release -Dtests=false -Dbench=true
export GST_PLUGIN_PATH=$PWD/build-bench/elements
export GST_REGISTRY_1_0=$PWD/build-bench/registry.bin

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for exe in build-bench/bench/bench_*; do
    [ -x "$exe" ] && names+=("${exe##*/bench_}")
  done
fi
echo "# $(date -u +%F) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
for n in "${names[@]}"; do
  exe=build-bench/bench/bench_$n
  if [ -x "$exe" ]; then
    echo "## bench_$n"
    "$exe"
  else
    echo "## bench_$n: not built" >&2
    exit 1
  fi
done

#!/usr/bin/env bash
# Runs every benchmark of gst-tensor against its peer in the same process:
#   bench/run.sh               all of them
#   bench/run.sh alloc gemm    only bench_alloc and bench_gemm
#   GST_TENSOR_NNSTREAMER=DIR bench/run.sh peers    beside NNStreamer
# Builds an optimised tree in build-bench first.  Each figure is a median of
# several interleaved runs, printed beside its peer as a ratio.  The output
# is also kept in build-bench/bench-results.txt; bench/plot.py turns it into
# build-bench/bench-results.json and build-bench/ratios.svg at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# The peers: OpenBLAS for GEMM, NumPy for elementwise math and reductions,
# SciPy for softmax; matplotlib for the plot.
scripts/deps.sh libopenblas-dev libopenblas0-pthread python3-numpy \
  python3-scipy python3-matplotlib
scripts/build.sh build-bench --buildtype=release -Dtests=false -Dbench=true
export GST_PLUGIN_PATH=$PWD/build-bench/elements
export GST_REGISTRY_1_0=$PWD/build-bench/registry.bin
# bench_peers (bench/run.sh peers) runs issue 18's table beside NNStreamer
# when GST_TENSOR_NNSTREAMER names the directory of its plugin
# libnnstreamer.so, and skips those rows without it (users need none).
# GST_TENSOR_NNSTREAMER_BUILD=DIR builds it there first from
# ../shared/peers/nnstreamer (every ML backend off; a few minutes), never
# inside the repository.
if [ -n "${GST_TENSOR_NNSTREAMER_BUILD:-}" ]; then
  case "$(realpath -m "$GST_TENSOR_NNSTREAMER_BUILD")/" in
    "$PWD"/*) echo "GST_TENSOR_NNSTREAMER_BUILD: not inside the repository" >&2; exit 1 ;;
  esac
  nns=$GST_TENSOR_NNSTREAMER_BUILD/install/lib/gstreamer-1.0
  if [ ! -f "$nns/libnnstreamer.so" ]; then
    scripts/deps.sh g++ liborc-0.4-dev-bin
    nice -n 19 ../shared/peers/nnstreamer/build.sh "$GST_TENSOR_NNSTREAMER_BUILD"
  fi
  export GST_TENSOR_NNSTREAMER=$nns
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for exe in build-bench/bench/bench_*; do
    [ -f "$exe" ] && [ -x "$exe" ] && names+=("${exe##*/bench_}")
  done
fi
for n in "${names[@]}"; do
  if [ ! -f "build-bench/bench/bench_$n" ] || [ ! -x "build-bench/bench/bench_$n" ]; then
    echo "## bench_$n: not built" >&2
    exit 1
  fi
done
results=build-bench/bench-results.txt
{
  echo "# $(date -u '+%F %H:%M') UTC, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- core gst-libs elements bench 2>/dev/null || echo ' (with uncommitted changes)')"
  for n in "${names[@]}"; do
    echo "## bench_$n"
    "build-bench/bench/bench_$n"
    echo "# load average after bench_$n: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
} | tee "$results"
/usr/bin/python3 bench/plot.py "$results" build-bench/ratios.svg

#!/usr/bin/env bash
# Regenerates every golden file of the tests from its generator: the data of
# tests/data/<suite>/ and the headers tests/core/print_golden.h and
# tests/core/view_golden.h (tests/data/gen/gen_*.py), and the seeds of
# tests/fuzz/corpus-pipeline (tests/fuzz/gen_corpus_pipeline.py).  Also
# `meson compile -C BUILD regen-data`.  See tests/data/README.md.
#
#   regen-data.sh          regenerate, then list what changed
#   regen-data.sh --check  the same, and fail if anything changed
#
# The generators are deterministic, so on an unchanged tree nothing should
# change.  Float64 results of a few NumPy operations differ in the last bit
# with the SIMD path NumPy dispatches to (AVX-512 or not) and the kernel
# OpenBLAS picks, so both are pinned to what the checked-in files were
# made with: no AVX-512 dispatch, OpenBLAS's Haswell kernels (AVX2) on two
# threads.  Set NPY_DISABLE_CPU_FEATURES, OPENBLAS_CORETYPE or
# OPENBLAS_NUM_THREADS yourself to override.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
case "${1-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  scripts/deps.sh python3-numpy
fi

if [ -z "${NPY_DISABLE_CPU_FEATURES+x}" ]; then
  NPY_DISABLE_CPU_FEATURES=$("$py" -c '
from numpy.core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f
print(" ".join(x for x in d if x.startswith("AVX512") and f.get(x)))')
  export NPY_DISABLE_CPU_FEATURES
fi
if [ -z "${OPENBLAS_CORETYPE+x}" ]; then
  if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=Haswell
  else
    echo "regen-data: no AVX2: matmul_rand_out.npy may differ in the last bit" >&2
  fi
fi

# OpenBLAS splits a product differently on one thread than on several.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS-2}

echo "regen-data: NumPy $("$py" -c 'import numpy; print(numpy.__version__)')," \
  "NPY_DISABLE_CPU_FEATURES='${NPY_DISABLE_CPU_FEATURES-}'" \
  "OPENBLAS_CORETYPE='${OPENBLAS_CORETYPE-}' OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS"
for g in tests/data/gen/gen_*.py tests/fuzz/gen_corpus_pipeline.py; do
  echo "regen-data: $g"
  "$py" "$g" >/dev/null
done

outputs=(tests/data ':!tests/data/gen' tests/core/print_golden.h tests/core/view_golden.h
  tests/fuzz/corpus-pipeline)
if git rev-parse --git-dir >/dev/null 2>&1; then
  # Against the index: what regenerating changed, staged work aside.
  changed=$(git diff --name-status -- "${outputs[@]}"
    git ls-files --others --exclude-standard -- "${outputs[@]}" | sed 's/^/?\t/')
  if [ -n "$changed" ]; then
    echo "regen-data: these differ from the checked-in files:"
    echo "$changed"
    [ "$check" -eq 0 ] || exit 1
  else
    echo "regen-data: every generated file is as checked in"
  fi
fi

#!/usr/bin/env bash
# From a fresh Debian 12 machine: install what is missing, then build and run
# the whole suite twice: a plain -Werror build, and an AddressSanitizer +
# UBSan build with GST_TRACERS=leaks.  Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1

status=0
run_suite () {
  local dir=$1
  shift
  rm -f "$dir/meson-logs/testlog.json"
  # meson test's own exit code is not needed: the log says what failed.
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=1
}

if scripts/build.sh build; then
  run_suite build
else
  echo "build failed" >&2
  status=1
fi

# bench/run.sh builds with -O3 (buildtype=release), where GCC warns about
# more than at -O2 and -Werror stops the build: compile it here too, tests
# included (a user's release build has them), so that neither breaks
# unseen; nothing runs in it.
if ! scripts/build.sh build-release --buildtype=release -Dtests=true \
    -Dbench=true -Dintrospection=disabled -Ddoc=disabled; then
  echo "release build (bench/run.sh's) failed" >&2
  status=1
fi

# GCC's -fsanitize=undefined leaves out float-cast-overflow (a double
# outside the range of the integer it is converted to); name it as well.
if scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbench=false -Dc_args=-fsanitize=float-cast-overflow; then
  # intercept_tls_get_addr=0: with glibc 2.36, LeakSanitizer's tracer can
  # fault on a stale dynamic-TLS record at exit, depending on
  # MALLOC_PERTURB_ (a sanitizer fault, not ours).
  # fast_unwind_on_malloc=0: GLib has no frame pointers, and the
  # quark-table suppressions of tests/lsan.supp only match a stack unwound
  # through it (with fast unwinding a test making more than 2048 quarks
  # reports GLib's deliberate leak: seen in test_info and matrix-sink).
  # malloc_context_size=8: those frames are within the first four, and
  # eight frames of a leak are enough to find it; unwinding 30 took a
  # quarter more time (on a 2-core Zen 1, matrix-badinput 22 s -> 18 s).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:fast_unwind_on_malloc=0:malloc_context_size=8:intercept_tls_get_addr=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7,*:1 \
    run_suite build-asan --suite core --suite lib --suite elements --suite pipelines \
      --suite python --suite examples
else
  echo "asan build failed" >&2
  status=1
fi

python3 scripts/summary.py build build-asan || status=1
exit $status

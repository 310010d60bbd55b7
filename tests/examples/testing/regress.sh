#!/usr/bin/env bash
# docs/testing.md, way 1: a pipeline regression test in shell.  Records
# goldens with record=true, checks that the unchanged pipeline passes
# (gst-launch-1.0 exits 0) and that a change beyond the tolerance fails
# (it exits non-zero, and says which item differs by how much).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# The pipeline under test, then tensorcompare with its references.
run () {
  gst-launch-1.0 -q tensorsrc pattern=arange num-buffers=3 \
      ! "tensor/x-raw,type=float32,dims=<4,5>" ! tensorop ops="$1" \
      ! tensorcompare reference=golden-%05d.npy rtol=1e-6 $2 ! fakesink
}

run "mul:0.5" "record=true" || { echo "FAIL: recording"; exit 1; }
ls golden-00000.npy golden-00001.npy golden-00002.npy >/dev/null || exit 1
run "mul:0.5" "" || { echo "FAIL: the unchanged pipeline fails"; exit 1; }
if out=$(run "mul:0.5,add:0.001" "" 2>&1); then
  echo "FAIL: a changed pipeline passes"
  exit 1
fi
grep -q "buffer 0 (pts 0:00:00.000000000): 20 of 20 items differ beyond rtol=1e-06, atol=0" <<<"$out" \
  || { echo "FAIL: no mismatch text in: $out"; exit 1; }
echo "regress.sh: recorded, passed unchanged, failed when changed"

#!/usr/bin/env bash
# A tensor stream end to end: generate three 2x3 float32 tensors counting up
# (arange), print each NumPy-style, write each to its own .npy file, then
# read the second file back and print it again.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-$(mktemp -d)}
mkdir -p "$out"

gst-launch-1.0 -q tensorsrc pattern=arange start=0 step=0.5 num-buffers=3 \
  ! "tensor/x-raw,type=float32,dims=<2,3>,framerate=10/1" \
  ! tensordebug \
  ! npyenc ! multifilesink location="$out/tensor-%05d.npy"

echo "wrote: $(cd "$out" && ls)"
echo "read back $out/tensor-00001.npy:"
gst-launch-1.0 -q filesrc location="$out/tensor-00001.npy" ! npydec \
  ! tensordebug ! fakesink

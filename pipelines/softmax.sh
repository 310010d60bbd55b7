#!/usr/bin/env bash
# A softmax over each row of a <6, 10> float32 tensor, from elements
# alone: tee the tensor, take each row's maximum (tensorreduce op=max
# axes=-1 keepdims=true gives <6, 1>, which broadcasts against <6, 10>),
# subtract it (tensorcombine op=sub) so that exp cannot overflow, exp
# (tensorop), tee again, sum each row (tensorreduce op=sum keepdims=true)
# and divide by it (tensorcombine op=div).  Every row of the result sums
# to 1.  Writes in.f32 (the tensors going in) and softmax.f32 into the
# folder given (default: the current one), and prints a summary of each.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-.}
mkdir -p "$out"

gst-launch-1.0 -q \
  tensorsrc pattern=normal seed=3 num-buffers=4 \
  ! "tensor/x-raw,type=float32,dims=<6,10>,framerate=10/1" \
  ! tee name=x \
  x. ! queue ! filesink location="$out/in.f32" \
  x. ! queue ! s.sink_0 \
  x. ! queue ! tensorreduce op=max axes=-1 keepdims=true ! s.sink_1 \
  tensorcombine name=s op=sub \
  ! tensorop ops=exp ! tee name=e \
  e. ! queue ! d.sink_0 \
  e. ! queue ! tensorreduce op=sum axes=-1 keepdims=true ! d.sink_1 \
  tensorcombine name=d op=div \
  ! tensordebug \
  ! filesink location="$out/softmax.f32"

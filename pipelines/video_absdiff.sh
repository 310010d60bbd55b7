#!/usr/bin/env bash
# Frame differencing: two video streams (the SMPTE bars and a moving
# ball, grey, 64x48) become uint8 <48, 64> tensors without a copy, are
# cast to int16 so that the difference cannot wrap, subtracted by
# tensorcombine op=sub (frame n of one stream from frame n of the other,
# paired by timestamp) and made absolute by tensorop abs: |a - b| per
# pixel, in 0..255.  Writes a.u8 and b.u8 (the frames going in) and
# absdiff.i16 (the differences) into the folder given (default: the
# current one), and prints a summary of each difference.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-.}
mkdir -p "$out"

gst-launch-1.0 -q \
  videotestsrc num-buffers=8 pattern=smpte \
  ! video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 \
  ! tensorconvert ! tee name=ta \
  ta. ! queue ! filesink location="$out/a.u8" \
  ta. ! queue ! tensorop ops=cast:int16 ! d.sink_0 \
  videotestsrc num-buffers=8 pattern=ball \
  ! video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 \
  ! tensorconvert ! tee name=tb \
  tb. ! queue ! filesink location="$out/b.u8" \
  tb. ! queue ! tensorop ops=cast:int16 ! d.sink_1 \
  tensorcombine name=d op=sub \
  ! tensorop ops=abs \
  ! tensordebug \
  ! filesink location="$out/absdiff.i16"

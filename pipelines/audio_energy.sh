#!/usr/bin/env bash
# Audio in, per-window energy out: a square wave of amplitude 0.5 at
# 48 kHz, mono float32, cut into tensors of 1024 frames (<1024, 1>, each
# inside one audio buffer: no copy), squared by tensorop and averaged over
# the frames by tensorreduce: one float32 <1> energy per window, printed by
# tensordebug (0.25 here: every sample is +-0.5).
set -euo pipefail
. "$(dirname "$0")/env.sh"

gst-launch-1.0 -q audiotestsrc num-buffers=4 samplesperbuffer=1024 \
    wave=square volume=0.5 \
  ! audio/x-raw,format=F32LE,rate=48000,channels=1 \
  ! tensorconvert frames=1024 \
  ! tensorop ops=pow:2 \
  ! tensorreduce op=mean axes=0 \
  ! tensordebug \
  ! fakesink

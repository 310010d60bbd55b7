#!/usr/bin/env bash
# Energy of overlapping audio windows: a 440 Hz sine, stereo float32 at
# 44.1 kHz, into tensors of 1024 frames; tensorwindow makes windows of
# 4096 frames every 1024 (each spans four tensors and is a view into its
# ring: every sample is copied once, not four times); tensorop squares
# and tensorreduce averages over the frames: one float32 <2> energy per
# window and channel (0.32 here: a sine of amplitude 0.8 has mean square
# 0.8^2 / 2).  There is no FFT element: a per-band energy would need a
# filter bank first; this is the energy of the whole band per window.
# Writes audio.f32 (the tensors going in) and energy.f32 (one <2> per
# window) into the folder given (default: the current one), and prints
# the energies.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-.}
mkdir -p "$out"

gst-launch-1.0 -q audiotestsrc num-buffers=16 samplesperbuffer=1024 \
    wave=sine freq=440 volume=0.8 \
  ! audio/x-raw,format=F32LE,rate=44100,channels=2 \
  ! tensorconvert frames=1024 \
  ! tee name=t \
  t. ! queue ! filesink location="$out/audio.f32" \
  t. ! queue ! tensorwindow size=4096 hop=1024 \
     ! tensorop ops=pow:2 \
     ! tensorreduce op=mean axes=0 \
     ! tensordebug \
     ! filesink location="$out/energy.f32"

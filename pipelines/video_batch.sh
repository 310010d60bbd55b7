#!/usr/bin/env bash
# Camera frames batched for a model: RGB frames become uint8 <48, 64, 3>
# tensors without a copy, tensorview makes them CHW <3, 48, 64>,
# tensorwindow stacks 8 of them into <8, 3, 48, 64> (each frame copied
# once into its ring, where the batch is one contiguous block), and
# tensorop casts to float32 and scales to [0, 1] for the network.
# Writes frames.u8 (the CHW frames going in) and batches.f32 (the
# batches) into the folder given (default: the current one), and prints
# a summary of each batch.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-.}
mkdir -p "$out"

gst-launch-1.0 -q videotestsrc num-buffers=16 pattern=ball \
  ! video/x-raw,format=RGB,width=64,height=48,framerate=30/1 \
  ! tensorconvert \
  ! tensorview ops=permute:2:0:1 \
  ! tee name=t \
  t. ! queue ! filesink location="$out/frames.u8" \
  t. ! queue ! tensorwindow stack=true size=8 \
     ! tensorop ops=cast:float32,div:255 \
     ! tensordebug \
     ! filesink location="$out/batches.f32"

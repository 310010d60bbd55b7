#!/usr/bin/env bash
# Camera-style frames into a network's input layout: RGB video becomes
# uint8 <240, 320, 3> tensors (HWC) without a copy, tensorview makes them
# CHW <3, 240, 320> without a copy (a strided view), and tensorop casts to
# float32 and scales to [0, 1] in one pass that reads the strides.
# tensordebug prints each normalized CHW tensor.
set -euo pipefail
. "$(dirname "$0")/env.sh"

gst-launch-1.0 -q videotestsrc num-buffers=3 pattern=smpte \
  ! video/x-raw,format=RGB,width=320,height=240,framerate=30/1 \
  ! tensorconvert \
  ! tensorview ops=permute:2:0:1 \
  ! tensorop ops=cast:float32,div:255 \
  ! tensordebug \
  ! fakesink

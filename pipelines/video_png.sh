#!/usr/bin/env bash
# A video frame processed as a tensor and written back as a picture: the
# 320x240 SMPTE bars become a uint8 <240, 320, 3> tensor, tensorview crops
# rows 60..179 and columns 80..239 and transposes the picture (swaps rows
# and columns: permute:1:0:2), and tensorconvert turns the <160, 120, 3>
# result back into RGB video for pngenc.  Writes OUT/frame.png (OUT is the
# first argument, or a new temporary directory).
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-$(mktemp -d)}
mkdir -p "$out"

gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte \
  ! video/x-raw,format=RGB,width=320,height=240,framerate=30/1 \
  ! tensorconvert \
  ! tensorview ops=slice:0:60:180,slice:1:80:240,permute:1:0:2 \
  ! tensorconvert ! video/x-raw,format=RGB \
  ! pngenc ! filesink location="$out/frame.png"
echo "wrote $out/frame.png"

#!/usr/bin/env bash
# A tensor stream from one process to another over TCP, as between two
# machines (here both on 127.0.0.1): the sender turns camera-style RGB
# frames into normalised float32 CHW tensors <3, 240, 320>; gdppay puts
# each buffer and its caps on the wire; the receiver gets the same caps
# back from gdpdepay and reduces each tensor to its per-channel mean, a
# float32 <3> printed by tensordebug.  Run the two gst-launch-1.0 lines on
# two machines with the receiver's address in place of 127.0.0.1.
# (docs/scaling.md)
set -euo pipefail
. "$(dirname "$0")/env.sh"

out=${1:-.}
mkdir -p "$out"
log=$out/tensor_network.log
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Receiver: listens first, ends when the sender hangs up.
gst-launch-1.0 -q tcpserversrc host=127.0.0.1 port="$port" \
  ! gdpdepay \
  ! tensorreduce op=mean axes=1,2 \
  ! tensordebug \
  ! fakesink > "$log" 2>&1 &
receiver=$!
trap 'kill $receiver 2>/dev/null || true' EXIT

# Sender: retried until the receiver listens (a few tenths of a second).
for try in $(seq 50); do
  if gst-launch-1.0 -q videotestsrc num-buffers=5 pattern=smpte \
      ! video/x-raw,format=RGB,width=320,height=240,framerate=30/1 \
      ! tensorconvert \
      ! tensorview ops=permute:2:0:1 \
      ! tensorop ops=cast:float32,div:255 \
      ! gdppay \
      ! tcpclientsink host=127.0.0.1 port="$port" 2> /dev/null; then
    break
  fi
  [ "$try" -lt 50 ] || { echo "tensor_network: no receiver on port $port" >&2; exit 1; }
  sleep 0.1
done

timeout 20 tail --pid=$receiver -f /dev/null
wait $receiver
trap - EXIT
cat "$log"
# Five tensors of three channel means arrived.
[ "$(grep -c 'float32 <3>' "$log")" -eq 5 ]

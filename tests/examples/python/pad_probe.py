#!/usr/bin/python3
"""A pad probe that looks at tensors in flight.

tensorsrc makes uint8 <2, 3, 4> tensors counting up (pattern=arange);
tensorview transposes them to <2, 4, 3>, and a probe on the sink pad of
tensorreduce (which reads the layout meta, so the transpose travels as
a view, not a copy) reads each one as a NumPy array, without copying or
changing it, and checks it against NumPy's transpose; the probe also
checks that the buffer is a view.  tensorreduce's maxima along the last
axis are checked against NumPy's.
"""
import sys

import numpy as np

import gsttensor
from gi.repository import Gst, GstTn

FRAMES = 4


def main():
    pipe = Gst.parse_launch(
        f"tensorsrc pattern=arange num-buffers={FRAMES} "
        "! tensor/x-raw,type=uint8,dims=<2,3,4> "
        "! tensorview ops=transpose ! tensorreduce name=red op=max axes=-1 "
        "! appsink name=sink sync=false")
    seen = []

    def probe(pad, info):
        buf = info.get_buffer()
        arr = gsttensor.to_numpy(buf, pad.get_current_caps())
        seen.append((arr.copy(), GstTn.buffer_get_layout_meta(buf) is not None))
        del arr  # unmapped here, before the buffer moves on
        return Gst.PadProbeReturn.OK

    red = pipe.get_by_name("red")
    red.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    outs = []
    for _ in range(FRAMES):
        s = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if s is None:
            print("no sample")
            return 1
        outs.append(gsttensor.to_numpy(s).copy())
    msg = pipe.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        print("no EOS:", msg and msg.parse_error())
        return 1
    ok = len(seen) == FRAMES
    for k, ((arr, view), out) in enumerate(zip(seen, outs)):
        # pattern=arange: item i of every frame is i
        want = np.arange(24, dtype=np.uint8).reshape(2, 3, 4).transpose(0, 2, 1)
        good = (np.array_equal(arr, want)
                and np.array_equal(out, want.max(axis=-1)) and view)
        print(f"frame {k}: {arr.shape} {'view' if view else 'dense'} "
              f"{'ok' if good else 'WRONG'}")
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

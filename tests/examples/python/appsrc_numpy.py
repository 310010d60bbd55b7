#!/usr/bin/python3
"""NumPy arrays in, NumPy arrays out: appsrc ! tensorop ! appsink.

Pushes ten float32 <4, 3> frames made by NumPy, lets tensorop scale and
shift them (and clamp them to [0, 10]), and reads every result back as
an array without a copy; checks each against the same arithmetic done
by NumPy.  Run it from the build tree with pipelines/env.sh sourced (or
in `meson devenv`), or against an installed gst-tensor.
"""
import sys

import numpy as np

import gsttensor
from gi.repository import Gst

FRAMES = 10


def main():
    pipe = Gst.parse_launch(
        "appsrc name=src format=time ! tensorop ops=mul:0.5,add:1,clamp:0:10 "
        "! appsink name=sink sync=false")
    src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
    rng = np.random.default_rng(7)
    frames = [rng.uniform(-5, 25, (4, 3)).astype(np.float32)
              for _ in range(FRAMES)]
    src.set_property("caps", gsttensor.caps(np.float32, (4, 3), framerate=30))
    pipe.set_state(Gst.State.PLAYING)

    for k, a in enumerate(frames):
        buf, _ = gsttensor.from_numpy(a)
        buf.pts = k * Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")

    bad = 0
    for k, a in enumerate(frames):
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            print(f"frame {k}: no sample")
            return 1
        out = gsttensor.to_numpy(sample)
        want = np.clip(a * np.float32(0.5) + np.float32(1), 0, 10)
        if out.shape != (4, 3) or not np.array_equal(out, want):
            print(f"frame {k}: got {out}, want {want}")
            bad += 1
    msg = pipe.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        print("no EOS:", msg and msg.parse_error())
        return 1
    print(f"{FRAMES} frames, {bad} wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

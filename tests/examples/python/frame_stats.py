#!/usr/bin/python3
"""Per-frame statistics of a camera-style stream.

videotestsrc stands in for the camera: its RGB frames go to a tee; one
branch turns them into uint8 <48, 64, 3> tensors and reduces each to
its mean per colour channel (tensorreduce op=mean axes=0,1: float64
<3>), posted on the bus as an element message per frame (as level
posts RMS), so the application needs no appsink for them; the other
branch hands the raw frames to the application, which checks every
statistic against NumPy's mean of the same frame.
"""
import sys

import numpy as np

import gsttensor
from gi.repository import Gst

FRAMES = 8


def pull(sink):
    sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
    if sample is None:
        raise RuntimeError(f"{sink.get_name()}: no sample")
    return sample


def main():
    pipe = Gst.parse_launch(
        f"videotestsrc num-buffers={FRAMES} pattern=smpte horizontal-speed=5 "
        "! video/x-raw,format=RGB,width=64,height=48,framerate=30/1 "
        "! tee name=t "
        "t. ! queue ! tensorconvert "
        "! tensorreduce op=mean axes=0,1 post-messages=true ! fakesink "
        "t. ! queue ! tensorconvert ! appsink name=frames sync=false")
    frames, bus = pipe.get_by_name("frames"), pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    worst = 0.0
    for k in range(FRAMES):
        sample = pull(frames)
        frame = gsttensor.to_numpy(sample)         # uint8 <48, 64, 3>
        msg = bus.timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.ELEMENT)
        if msg is None or not msg.has_name("tensorreduce"):
            print(f"frame {k}: no tensorreduce message")
            return 1
        mean = gsttensor.from_message(msg)         # float64 <3>
        pts = sample.get_buffer().pts
        if msg.get_structure().get_value("timestamp") != pts:
            print(f"frame {k}: message of another frame (pts {pts})")
            return 1
        want = frame.astype(np.float64).mean(axis=(0, 1))
        if frame.shape != (48, 64, 3) or mean.shape != (3,):
            print(f"frame {k}: shapes {frame.shape}, {mean.shape}")
            return 1
        worst = max(worst, float(np.max(np.abs(mean - want))))
        print(f"frame {k}: mean R G B = "
              + " ".join(f"{v:.3f}" for v in mean))
    msg = bus.timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        print("no EOS:", msg and msg.parse_error())
        return 1
    # the same float64 mean of 3072 whole numbers: within rounding
    print(f"largest difference from NumPy: {worst:.2e}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())

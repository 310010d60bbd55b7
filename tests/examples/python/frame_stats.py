#!/usr/bin/python3
"""Per-frame statistics of a camera-style stream.

videotestsrc stands in for the camera: its RGB frames go to a tee; one
branch turns them into uint8 <48, 64, 3> tensors and reduces each to
its mean per colour channel (tensorreduce op=mean axes=0,1: float32
<3>), the other hands the raw frames to the application, which checks
every statistic against NumPy's mean of the same frame.

The statistics arrive through an appsink.  Reading them from the bus
(an element message per frame) needs a tensorreduce that posts them,
which it does not do yet (issue 16): then this example reads the bus
instead of the appsink and the check stays the same.
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
        "t. ! queue ! tensorconvert ! tensorreduce op=mean axes=0,1 "
        "! appsink name=stats sync=false "
        "t. ! queue ! tensorconvert ! appsink name=frames sync=false")
    stats, frames = pipe.get_by_name("stats"), pipe.get_by_name("frames")
    pipe.set_state(Gst.State.PLAYING)
    worst = 0.0
    for k in range(FRAMES):
        frame = gsttensor.to_numpy(pull(frames))   # uint8 <48, 64, 3>
        mean = gsttensor.to_numpy(pull(stats))     # float32 <3>
        want = frame.astype(np.float64).mean(axis=(0, 1))
        if frame.shape != (48, 64, 3) or mean.shape != (3,):
            print(f"frame {k}: shapes {frame.shape}, {mean.shape}")
            return 1
        worst = max(worst, float(np.max(np.abs(mean - want))))
        print(f"frame {k}: mean R G B = "
              + " ".join(f"{v:.3f}" for v in mean))
    msg = pipe.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        print("no EOS:", msg and msg.parse_error())
        return 1
    # float32 accumulation of 3072 items: well inside 1e-3 of float64's
    print(f"largest difference from NumPy: {worst:.2e}")
    return 0 if worst < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())

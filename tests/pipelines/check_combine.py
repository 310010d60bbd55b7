#!/usr/bin/python3
"""Runs pipelines/video_absdiff.sh and pipelines/softmax.sh and checks what
they wrote against NumPy: the differences are NumPy's |a - b| of the
frames that went in (int16), the softmax NumPy's of the tensors that went
in, row by row, computed the way the pipeline does (float32 steps, the
sums in float64 rounded once, as tensorreduce does).
Usage: check_combine.py SOURCE_ROOT OUT_DIR
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_window import run  # noqa: E402  the same way to run a script


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)

    run(root, "video_absdiff.sh", out)
    a = np.fromfile(os.path.join(out, "a.u8"), np.uint8).reshape(-1, 48, 64)
    b = np.fromfile(os.path.join(out, "b.u8"), np.uint8).reshape(-1, 48, 64)
    got = np.fromfile(os.path.join(out, "absdiff.i16"), np.int16)
    got = got.reshape(-1, 48, 64)
    assert a.shape[0] == b.shape[0] == got.shape[0] == 8, \
        (a.shape, b.shape, got.shape)
    want = np.abs(a.astype(np.int16) - b.astype(np.int16))
    np.testing.assert_array_equal(got, want)
    assert want.max() > 100 and want.min() == 0, (want.min(), want.max())
    print("video_absdiff.sh: %d frames match NumPy" % len(got))

    run(root, "softmax.sh", out)
    x = np.fromfile(os.path.join(out, "in.f32"), np.float32)
    x = x.reshape(-1, 6, 10)
    got = np.fromfile(os.path.join(out, "softmax.f32"), np.float32)
    got = got.reshape(-1, 6, 10)
    assert x.shape[0] == got.shape[0] == 4, (x.shape, got.shape)
    e = np.exp(x - x.max(-1, keepdims=True))  # float32 throughout
    s = e.astype(np.float64).sum(-1, keepdims=True).astype(np.float32)
    want = e / s
    # exp is the C library's (within 2 ulp of NumPy's), the rest exact
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got.astype(np.float64).sum(-1), 1.0,
                               rtol=1e-6)
    print("softmax.sh: %d tensors match NumPy" % len(got))
    return 0


if __name__ == "__main__":
    sys.exit(main())

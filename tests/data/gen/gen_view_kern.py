#!/usr/bin/python3
"""Golden data for the deinterleave/interleave tests in tests/core/test_view.c.

Each case is a source array view_<name>_in.npy and what NumPy gives for a
view of it, made contiguous, in view_<name>_out.npy.  The C test applies the
same view (its table names the ops) to a copy of the source that ends
exactly at the end of its allocation, and compares the materialized bytes.
NumPy cannot express a view with negative strides in our model (strides
are never negative), so negative starts and negative axes stand in.
Deterministic: run with /usr/bin/python3 from anywhere.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/view, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "view")
rng = np.random.default_rng(20261206)


def rand(dtype, shape):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    if info is not None:
        return rng.integers(info.min, info.max, size=shape, dtype=dtype,
                            endpoint=True)
    # Floats: ordinary values (the test compares bytes).
    return rng.standard_normal(shape).astype(dtype) * 1000


# (name, source, function of the source)
CASES = [
    # HWC -> CHW, an odd 17x33 RGB frame.
    ("hwc_u8", rand(np.uint8, (17, 33, 3)), lambda a: a.transpose(2, 0, 1)),
    # RGB planes of an RGBA frame (3 of 4 items of each row).
    ("rgba_u8", rand(np.uint8, (9, 31, 4)),
     lambda a: a[..., 0:3].transpose(2, 0, 1)),
    # CHW -> HWC, 16-bit, odd sizes.
    ("chw_u16", rand(np.uint16, (4, 15, 31)), lambda a: a.transpose(1, 2, 0)),
    # Two float64 channels, negative axes.
    ("hwc2_f64", rand(np.float64, (5, 33, 2)),
     lambda a: a.transpose(-1, 0, 1)),
    # Step slices of rows of 1921 float32 that end at the end of storage.
    ("step2_f32", rand(np.float32, (7, 1921)), lambda a: a[:, ::2]),
    ("step3_f32", rand(np.float32, (7, 1921)), lambda a: a[:, 1::3]),
    # Negative start: the last 17 items of each row, every second one.
    ("step2neg_i16", rand(np.int16, (3, 65)), lambda a: a[:, -17::2]),
    # A sub-image: rows 2..12, columns 1..30 of a 5-channel uint32 image.
    ("sub5_u32", rand(np.uint32, (13, 31, 5)),
     lambda a: a[2:, 1:, :].transpose(2, 0, 1)),
]

for name, a, f in CASES:
    np.save(os.path.join(OUT, "view_%s_in.npy" % name), a)
    np.save(os.path.join(OUT, "view_%s_out.npy" % name),
            np.ascontiguousarray(f(a)))

#!/usr/bin/python3
"""Golden files for the npydec tests of streams of arrays, huge extents and
the documented launch lines.

Run with /usr/bin/python3 from any directory; writes npydec_* into
tests/data/elements/npy.  Deterministic: values follow formulas, no randomness.

npydec_part_<k>.npy are seven arrays written by numpy.save, and
npydec_stream.npy is their concatenation (what `cat` makes of them, and
what several numpy.save calls on one open file write).  Their sizes are
chosen so that in the concatenation some arrays' data land misaligned for
their dtype and others aligned; the offsets are asserted here and repeated
in tests/elements/npydec.c.  npydec_part_<k>.raw holds the C-order
little-endian bytes the decoder must emit for array k.

npydec_doc_* are what the documented launch lines of npydec and npyenc
must write, and npydec_enc_minimal.npy what npyenc writes from minimal caps.

npydec_huge_* hold headers whose extents do not fit tensor caps (above
2147483647) or ask a split for many empty tensors; those with data are
written as a header alone (the data would be gigabytes), which is what
the decoder must refuse before waiting for it.
"""

import io
import os

import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/elements/npy, whatever the cwd.
OUT = os.path.join(HERE, "..", "elements", "npy")


def path(name):
    return os.path.join(OUT, "npydec_" + name)


def raw(arr):
    """C-order little-endian bytes of arr."""
    le = arr.astype(arr.dtype.newbyteorder("<"))
    return np.ascontiguousarray(le).tobytes(order="C")


def saved(arr):
    """The bytes numpy.save writes for arr."""
    f = io.BytesIO()
    np.save(f, arr)
    return f.getvalue()


def header_only(name, descr, shape):
    with open(path(name), "wb") as f:
        npf.write_array_header_1_0(
            f, {"descr": descr, "fortran_order": False, "shape": shape})


def main():
    parts = [
        # 3 bytes of data: everything after it is off by 3.
        np.array([-1, 2, -3], dtype=np.int8),
        # data at byte 259 of the stream: misaligned for float32.
        (np.arange(24, dtype=np.float32) * 0.5 - 6).reshape(2, 3, 4),
        # big-endian, data at 483: swapped in a copy.
        (np.arange(12, dtype=np.int16) * 300 - 1700).reshape(3, 4)
        .astype(">i2"),
        # data at 635: misaligned for float64.
        np.array([1.25, -1e300], dtype=np.float64),
        # 5 bytes, itemsize 1: aligned wherever it lies.
        np.array([10, 20, 30, 40, 50], dtype=np.int8),
        # data at 912: aligned for uint32, passed on without a copy.
        np.array([[1, 2], [3, 4000000000]], dtype=np.uint32),
        # same dtype and dims as the one before: no new caps.
        np.array([[5, 6], [7, 8]], dtype=np.uint32),
    ]
    want_data = [128, 259, 483, 635, 779, 912, 1056]
    stream = b""
    for k, arr in enumerate(parts):
        b = saved(arr)
        assert len(stream) + 128 == want_data[k], (k, len(stream))
        with open(path("part_%d.npy" % k), "wb") as f:
            f.write(b)
        with open(path("part_%d.raw" % k), "wb") as f:
            f.write(raw(arr))
        stream += b
    assert len(stream) == 1056 + 16
    # numpy reads the concatenation back one array per load call.
    f = io.BytesIO(stream)
    for arr in parts:
        assert np.array_equal(np.load(f), arr)
    with open(path("stream.npy"), "wb") as f:
        f.write(stream)

    # Zero items, an extent above 2^31 - 1: 128 bytes in all.
    np.save(path("huge_empty.npy"), np.empty((3000000000, 0), np.float32))
    np.save(path("huge_inner_empty.npy"),
            np.empty((0, 3000000000), np.float32))
    # 9 GB and 3 GB of promised data: headers alone.
    header_only("huge_data.npy", "|u1", (3, 3000000000))
    header_only("huge_axis0.npy", "|u1", (3000000000,))
    # The bound on the empty tensors of a split, and one past it.
    np.save(path("empty_65536.npy"), np.empty((65536, 0), np.int8))
    np.save(path("empty_65537.npy"), np.empty((65537, 0), np.int8))

    # What the documented launch lines of npydec and npyenc must write
    # (tensorsrc pattern=arange: item i is i).
    np.save(path("doc_a.npy"), np.arange(6, dtype=np.float32).reshape(2, 3))
    np.save(path("doc_frames.npy"),
            np.arange(16, dtype=np.uint8).reshape(4, 2, 2))
    np.save(path("doc_out.npy"), np.arange(3, dtype=np.int16))
    np.save(path("doc_enc_bf16.npy"), np.arange(4, dtype=np.float32))
    # npyenc fed from minimal caps type=float32,dims=<3,4>: item i is
    # i * 0.5 - 2.
    np.save(path("enc_minimal.npy"),
            (np.arange(12, dtype=np.float32) * 0.5 - 2).reshape(3, 4))
    for i in range(4):
        np.save(path("doc_frame_%d.npy" % i),
                np.arange(16, dtype=np.uint8).reshape(4, 2, 2)[i])


if __name__ == "__main__":
    main()

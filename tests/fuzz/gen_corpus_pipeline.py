#!/usr/bin/python3
"""Seeds of corpus-pipeline/ for fuzz_pipeline.c: the hostile inputs of
issue 12 (and the matrix's bad-input table) as .npy bytes, and a few valid
arrays of every kind npydec reads.  Deterministic: /usr/bin/python3
gen_corpus_pipeline.py writes the same files every time."""
import io
import os
import struct

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus-pipeline")


def npy(a):
    b = io.BytesIO()
    np.save(b, a, allow_pickle=False)
    return b.getvalue()


def raw(header, data=b"", magic=b"\x93NUMPY", version=(1, 0), pad=True):
    h = header.encode("latin1")
    pre = len(magic) + 2 + (2 if version[0] == 1 else 4)
    if pad:
        total = -(-(pre + len(h) + 1) // 64) * 64
        h = h + b" " * (total - pre - len(h) - 1) + b"\n"
    size = struct.pack("<H" if version[0] == 1 else "<I", len(h))
    return magic + bytes(version) + size + h + data


def hdr(descr, shape, fortran=False):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, shape)


SEEDS = {
    # issue 12.5: an extent above G_MAXINT, zero items
    "huge-extent-zero-items": raw(hdr("<f4", "(3000000000, 0)")),
    # issue 12.1: a float64 subnormal (the formatter)
    "subnormal-f8": npy(np.array([5e-315, 1.0, -4.9e-324])),
    # issue 12.8: integers at their limits
    "uint64-limits": npy(np.array([2**64 - 1, 2**63, 2**64 - 1025, 0], np.uint64)),
    "int64-limits": npy(np.array([-2**63, 2**63 - 1, -2**63 + 1], np.int64)),
    "truncated-data": npy(np.arange(100, dtype=np.float32))[:138],
    "truncated-header": npy(np.arange(4, dtype=np.float32))[:15],
    "header-length-past-end": raw(hdr("<f4", "(2,)"))[:8] + b"\xa0\x0f" + raw(hdr("<f4", "(2,)"))[10:],
    "empty": b"",
    "wrong-magic": raw(hdr("<f4", "(2,)"), b"\0" * 8, magic=b"\x93NUMPZ"),
    "version9": raw(hdr("<f4", "(2,)"), b"\0" * 8, version=(9, 0)),
    "version2": raw(hdr("<i2", "(3,)"), b"\1\0\2\0\3\0", version=(2, 0)),
    "not-a-dict": raw("hello", b"\0" * 8),
    "complex64": npy(np.arange(4, dtype=np.complex64)),
    "object": raw(hdr("|O", "(2,)"), b"\0" * 16),
    "negative-extent": raw(hdr("<f4", "(-1,)"), b"\0" * 8),
    "rank9": raw(hdr("<f4", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), b"\0" * 4),
    "item-count-overflow": raw(hdr("<f8", "(4294967296, 4294967296)"), b"\0" * 64),
    "misaligned-f8": raw(hdr("<f8", "(3,)"), np.array([1.5, -2.0, 3.25]).tobytes(), pad=False),
    "trailing-bytes": npy(np.arange(6, dtype=np.int32)) + b"junk",
    "two-arrays": npy(np.arange(6, dtype=np.int16).reshape(2, 3)) + npy(np.ones((3,), np.float32)),
    "fortran-be-i4": npy(np.asfortranarray(np.arange(24, dtype=">i4").reshape(2, 3, 4))),
    "fortran-f4": npy(np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))),
    "zero-items": npy(np.zeros((0,), np.float32)),
    "zero-rows": npy(np.zeros((0, 3), np.uint8)),
    "zero-cols": npy(np.zeros((2, 0), np.int16)),
    "rank0": npy(np.array(7.5)),
    "bool": npy(np.array([True, False, True])),
    "float16-special": npy(np.array([np.nan, np.inf, -np.inf, 65504, 6e-8, 0], np.float16)),
    "float32-special": npy(np.array([np.nan, np.inf, -0.0, 1e-45, 3.4e38], np.float32)),
    "int8": npy(np.array([-128, 127, 0, -1], np.int8)),
    "uint8-3d": npy(np.arange(60, dtype=np.uint8).reshape(3, 4, 5)),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name + ".npy"), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(SEEDS), OUT))

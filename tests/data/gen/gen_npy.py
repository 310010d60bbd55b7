#!/usr/bin/python3
"""Writes the npy_*.npy files that tests/core/test_npy.c parses.

Deterministic; run with /usr/bin/python3 (NumPy 1.24) from any directory.
Every array holds, at row-major logical index k, a value given by a formula
that test_npy.c recomputes on its own (see value()):
  bool   k % 3 == 0
  intN   (k - 3) * S[N]
  uintN  k * U[N] + 1
  floatN (k - 3) * 0.5
"""
import os

import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/npy, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "npy")

S = {1: 5, 2: 1000, 4: 100000007, 8: 300000000007}
U = {1: 10, 2: 2000, 4: 150000001, 8: 700000000000000001}

LE = ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8",
      "<f2", "<f4", "<f8"]
NAMES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
         "int64", "uint64", "float16", "float32", "float64"]


def value(descr, k):
    dt = np.dtype(descr)
    if dt.kind == "b":
        return k % 3 == 0
    if dt.kind == "i":
        return (k - 3) * S[dt.itemsize]
    if dt.kind == "u":
        return k * U[dt.itemsize] + 1
    return (k - 3) * 0.5


def array(descr, shape, fortran=False):
    n = int(np.prod(shape, dtype=np.int64))
    vals = [value(descr, k) for k in range(n)]
    a = np.array(vals, dtype=descr).reshape(shape)
    assert a.ravel().tolist() == vals, "a value does not fit " + descr
    if fortran:
        a = np.asfortranarray(a)
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    return a


def save(name, a, version=None):
    with open(os.path.join(OUT, "npy_" + name + ".npy"), "wb") as f:
        if version is None:
            np.save(f, a)
        else:
            npf.write_array(f, a, version=version)


def main():
    for descr, name in zip(LE, NAMES):
        save(name, array(descr, (2, 3)))
    for descr, name in zip(LE, NAMES):
        if descr[0] == "<":
            save("be_" + name, array(">" + descr[1:], (2, 3)))
    save("v2_float32", array("<f4", (2, 3)), (2, 0))
    save("v2_uint64", array("<u8", (3,)), (2, 0))
    save("v3_int16", array("<i2", (4,)), (3, 0))
    save("fortran_float32", array("<f4", (2, 3, 4), True))
    save("fortran_int16", array("<i2", (3, 5), True))
    save("fortran_be_float64", array(">f8", (2, 3, 4), True))
    save("rank0_float64", array("<f8", ()))
    save("rank0_bool", array("|b1", ()))
    save("rank1_int64", array("<i8", (5,)))
    save("empty_float32", array("<f4", (0,)))
    save("empty_int32", array("<i4", (3, 0, 2)))
    save("rank8_uint8", array("|u1", (1, 2, 1, 2, 1, 2, 1, 2)))
    save("rank8_fortran_int32", array("<i4", (2, 1, 2, 1, 2, 1, 2, 1), True))
    # Wide extents are cheap when another axis is 0.
    save("wide_uint8", np.empty((0, 2**63 - 1), dtype="|u1"))
    save("wide2_int16", np.empty((123456789012, 0, 7), dtype="<i2"))


if __name__ == "__main__":
    main()

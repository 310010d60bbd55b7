#!/usr/bin/python3
"""Golden files for the npydec/npyenc element tests.

Run with /usr/bin/python3 from any directory; writes npyelem_* into
tests/data/elements/npy.  Deterministic: values follow formulas, no randomness.

For every .npy written here, npyelem_<case>.raw holds the bytes the decoder
must emit: the array in C order, little-endian (what a dense tensor buffer
holds on this machine).  The .npy files written with numpy.save (format 1.0,
little-endian, C order) double as the byte-for-byte goldens for npyenc.
"""

import os

import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/elements/npy, whatever the cwd.
OUT = os.path.join(HERE, "..", "elements", "npy")


def values(dtype, shape):
    """The formula the tests also know: item i (row-major) of the array."""
    n = int(np.prod(shape))
    i = np.arange(n)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = (i % 3) == 0
    elif dt.kind == "i":
        v = i - n // 2
    elif dt.kind == "u":
        v = i * 7
    else:
        v = (i - n // 2) * 0.25
    return v.astype(dt).reshape(shape)


def raw(arr):
    """C-order little-endian bytes of arr."""
    le = arr.astype(arr.dtype.newbyteorder("<"))
    return np.ascontiguousarray(le).tobytes(order="C")


def write(name, arr, version=None):
    path = os.path.join(OUT, "npyelem_" + name + ".npy")
    if version is None:
        np.save(path, arr)
    else:
        with open(path, "wb") as f:
            npf.write_array(f, arr, version=version)
    with open(os.path.join(OUT, "npyelem_" + name + ".raw"), "wb") as f:
        f.write(raw(arr))


def main():
    # One file per dtype NumPy has (bfloat16 has no NumPy type).
    for name in ["bool", "int8", "uint8", "int16", "uint16", "int32",
                 "uint32", "int64", "uint64", "float16", "float32",
                 "float64"]:
        write(name, values(name, (2, 3, 4)))

    # Header versions 2.0 and 3.0 (4-byte header length).
    write("v2", values("int16", (3, 5)), version=(2, 0))
    write("v3", values("float64", (3, 5)), version=(3, 0))

    # Big-endian data the decoder must byte-swap.
    for name in ["int16", "uint32", "float32", "float64", "int64"]:
        arr = values(name, (3, 4))
        write("be_" + name, arr.astype(arr.dtype.newbyteorder(">")))

    # Fortran order: the same values as npyelem_float32, stored column-major.
    write("fortran", np.asfortranarray(values("float32", (2, 3, 4))))
    # Fortran order and big-endian together.
    arr = np.asfortranarray(values("int32", (3, 4)))
    write("fortran_be", arr.astype(">i4", order="F"))

    # Rank 0 and zero extents.
    write("rank0", np.array(3.5, dtype=np.float64))
    write("empty", np.zeros((0, 3), dtype=np.float32))
    write("empty2", np.zeros((2, 0, 5), dtype=np.int16))

    # For split: 4 sub-tensors of <2, 3>.
    split = values("int32", (4, 2, 3))
    write("split", split)
    # What npyenc must write for each sub-tensor (npydec split=true).
    for i in range(4):
        np.save(os.path.join(OUT, "npyelem_split_%d.npy" % i), split[i])
    # For split of a Fortran-order file.
    write("split_fortran", np.asfortranarray(values("float32", (4, 2, 3))))

    # A dtype the decoder cannot represent.
    np.save(os.path.join(OUT, "npyelem_complex64.npy"),
            np.arange(4, dtype=np.complex64))

    # bfloat16 input to npyenc: values exact in bfloat16, so widening is
    # exact and the file equals numpy.save of the float32 values.
    f32 = np.array([1.5, -2.0, 0.15625, 65280.0, -0.0, 2.0 ** 127, 2.0 ** -126,
                    np.inf, -np.inf, 7.0], dtype=np.float32)
    bits = (f32.view(np.uint32) >> 16).astype("<u2")
    assert np.array_equal((bits.astype(np.uint32) << 16).view(np.float32),
                          f32)
    with open(os.path.join(OUT, "npyelem_bf16.raw"), "wb") as f:
        f.write(bits.tobytes())
    np.save(os.path.join(OUT, "npyelem_bf16_as_f32.npy"), f32.reshape(2, 5))


if __name__ == "__main__":
    main()

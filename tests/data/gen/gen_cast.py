#!/usr/bin/python3
"""Golden data for tests/core/test_cast.c.  Deterministic: run with
/usr/bin/python3 (needs NumPy); writes cast_*.npy into tests/data/core/cast.

cast_src_<dtype>.npy: the N source items of each dtype.  bool is stored as
uint8 so that a byte of 2 or 255 can be a source; bfloat16 as its uint16
bits.
cast_to_<dtype>.npy: shape (13, N), row s = the source items of dtype s
cast to <dtype> by the rules of core/cast.h, written out below with exact
integer and rational arithmetic (NumPy's astype is not used: its
out-of-range float -> int is undefined)."""

import math
import os
import random
import struct
import sys
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/cast, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "cast")
sys.path.insert(0, HERE)
from gen_half import round_fraction  # noqa: E402

# name, kind, bits; float formats also (ebits, mbits).
DTYPES = [
    ("bool", "bool", 8), ("int8", "int", 8), ("uint8", "uint", 8),
    ("int16", "int", 16), ("uint16", "uint", 16), ("int32", "int", 32),
    ("uint32", "uint", 32), ("int64", "int", 64), ("uint64", "uint", 64),
    ("float16", "float", 16), ("bfloat16", "float", 16),
    ("float32", "float", 32), ("float64", "float", 64),
]
FMT = {"float16": (5, 10), "bfloat16": (8, 7), "float32": (8, 23),
       "float64": (11, 52)}
NP = {"bool": np.bool_, "int8": np.int8, "uint8": np.uint8,
      "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
      "float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32,
      "float64": np.uint64}
NAN = float("nan")


def int_candidates():
    v = [0, 1, -1, 2, -2, 3, 7, 100, -100, 257, 259, -257, 2049, 2050, 2051,
         4097, 65504, 65519, 65520, 16777217, 16777219, 123456789,
         -987654321, 2 ** 53, 2 ** 53 + 1, 2 ** 53 - 1, -(2 ** 53) - 1,
         2 ** 60 + 2 ** 36 + 1, 2 ** 60 + 2 ** 36, 2 ** 62 + 2 ** 54 + 1,
         2 ** 62 + 2 ** 54, 2 ** 62 + 2 ** 54 - 1, -(2 ** 62) - 2 ** 54 - 1,
         2 ** 63 - 1, 0x123456789ABCDEF0, 0xFEDCBA9876543210]
    for b in (8, 16, 32, 64):
        v += [2 ** (b - 1) - 1, 2 ** (b - 1), -(2 ** (b - 1)),
              -(2 ** (b - 1)) - 1, 2 ** b - 1, 2 ** b, 2 ** b + 1]
    rng = random.Random(1234)
    v += [rng.getrandbits(64) for _ in range(12)]
    v += [rng.randrange(-70000, 70000) for _ in range(12)]
    return v


def float_candidates():
    v = [NAN, -NAN, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5,
         2.5, -2.5, 0.49999999999999994, 1.0, -1.0, 0.1, 1 / 3, 0.9999999,
         -0.9999999, -0.99, 127.5, 127.99, 128.0, -128.5, -128.99, -129.0,
         255.5, 255.9, 256.0, 256.5, 32767.5, 32768.0, -32768.9, -32769.0,
         65535.9, 65536.0, 65504.0, 65519.0, 65520.0, 2147483647.5,
         2147483648.0, -2147483648.9, -2147483649.0, 4294967295.5,
         4294967296.0, 2.0 ** 53, 2.0 ** 53 + 2, 9223372036854774784.0,
         2.0 ** 63, -(2.0 ** 63), -9223372036854777856.0,
         18446744073709549568.0, 2.0 ** 64, 1e20, -1e20, 1e30,
         3.4028234663852886e38, 3.5e38, 1e300, -1e300, 5e-324, 1e-310,
         1e-40, 1.401298464324817e-45, 2.0 ** -24, 2.0 ** -25, -6e-8,
         1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -52, 1 + 2.0 ** -11,
         1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -40,
         1 + 3 * 2.0 ** -8, 65519.99, -65520.0]
    rng = random.Random(5678)
    v += [rng.uniform(-300, 300) for _ in range(12)]
    v += [rng.gauss(0, 1e5) for _ in range(8)]
    v += [rng.gauss(0, 1e12) for _ in range(4)]
    return v


NAN_BITS = {
    "float16": [0x7E00, 0xFE00, 0x7C01],
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F81],
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800001],
    "float64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001],
}


def wrap(x, kind, bits):
    x %= 2 ** bits
    if kind == "int" and x >= 2 ** (bits - 1):
        x -= 2 ** bits
    return x


def encode_float(v, name):
    """Python float or int -> bits of float dtype name, rounded once."""
    e, m = FMT[name]
    total = 1 + e + m
    if isinstance(v, float) and math.isnan(v):
        sign = 1 if math.copysign(1, v) < 0 else 0
        return (sign << (total - 1)) | ((2 ** e - 1) << m) | (1 << (m - 1))
    if isinstance(v, float) and math.isinf(v):
        return ((1 if v < 0 else 0) << (total - 1)) | ((2 ** e - 1) << m)
    neg = v < 0 or (isinstance(v, float) and math.copysign(1, v) < 0)
    return ((1 if neg else 0) << (total - 1)) | round_fraction(
        abs(Fraction(v)), e, m)


def decode_float(bits, name):
    """Bits -> Python float (exact: every format fits in a double)."""
    if name == "float64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if name == "float32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if name == "bfloat16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return float(np.array([bits], dtype=np.uint16).view(np.float16)[0])


def source_items(name, kind, bits):
    """The source items of a dtype: (stored integer or bits, exact value)."""
    if kind == "bool":
        return [(b, b) for b in (0, 1, 2, 255)]
    if kind in ("int", "uint"):
        out = []
        for x in int_candidates():
            w = wrap(x, kind, bits)
            if (w, w) not in out:
                out.append((w, w))
        return out
    out, seen = [], set()
    for b in NAN_BITS[name]:
        out.append((b, NAN))
        seen.add(b)
    for x in float_candidates() + int_candidates():
        b = encode_float(x, name)
        if b not in seen:
            seen.add(b)
            out.append((b, decode_float(b, name)))
    return out


def cast_value(x, skind, dname, dkind, dbits):
    """Exact source value x -> stored result for dtype dname."""
    if dkind == "bool":
        return 1 if (x != 0 or (isinstance(x, float) and math.isnan(x))) \
            else 0
    if dkind in ("int", "uint"):
        lo = -(2 ** (dbits - 1)) if dkind == "int" else 0
        hi = 2 ** (dbits - 1) - 1 if dkind == "int" else 2 ** dbits - 1
        if skind == "float":
            # Truncate toward zero, saturate at the bounds, NaN -> 0.
            if math.isnan(x):
                return 0
            if math.isinf(x):
                return hi if x > 0 else lo
            return min(max(math.trunc(x), lo), hi)
        # int/bool -> int: keep the low bits (bool is already 0/1).
        if skind == "bool":
            x = 1 if x else 0
        return wrap(x, dkind, dbits)
    if skind == "bool":
        x = 1 if x else 0
    return encode_float(x, dname)


def main():
    srcs = {name: source_items(name, kind, bits)
            for name, kind, bits in DTYPES}
    n = max(len(s) for s in srcs.values())
    # Pad by cycling so every row has n items.
    for name in srcs:
        s = srcs[name]
        srcs[name] = (s * (n // len(s) + 1))[:n]

    for name, kind, bits in DTYPES:
        stored = [b for b, _ in srcs[name]]
        if kind == "bool":
            arr = np.array(stored, dtype=np.uint8)
        elif name == "bfloat16":
            arr = np.array(stored, dtype=np.uint16)
        elif kind == "float":
            arr = np.array(stored, dtype=NP[name]).view(
                {"float16": np.float16, "float32": np.float32,
                 "float64": np.float64}[name])
        else:
            arr = np.array(stored, dtype=NP[name])
        np.save(os.path.join(OUT, "cast_src_%s.npy" % name), arr)

    for dname, dkind, dbits in DTYPES:
        rows = []
        for sname, skind, _ in DTYPES:
            rows.append([cast_value(x, skind, dname, dkind, dbits)
                         for _, x in srcs[sname]])
        arr = np.array(rows, dtype=NP[dname])
        if dname in ("float16", "float32", "float64"):
            arr = arr.view({"float16": np.float16, "float32": np.float32,
                            "float64": np.float64}[dname])
        np.save(os.path.join(OUT, "cast_to_%s.npy" % dname), arr)

    # Cross-checks against NumPy where its casts are defined: finite
    # float -> float, and int -> float64 / float32.
    f64 = np.load(os.path.join(OUT, "cast_src_float64.npy"))
    for dname in ("float16", "float32"):
        want = np.load(os.path.join(OUT, "cast_to_%s.npy" % dname))[12]
        with np.errstate(all="ignore"):
            got = f64.astype({"float16": np.float16,
                              "float32": np.float32}[dname])
        ok = np.isnan(f64) | (got.view(want.dtype) == want) | (got == want)
        assert ok.all(), f64[~ok]
    i64 = np.load(os.path.join(OUT, "cast_src_int64.npy"))
    want = np.load(os.path.join(OUT, "cast_to_float64.npy"))[7]
    assert (i64.astype(np.float64) == want).all()
    print("N =", n)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Golden data for tests/core/test_reduce.c and tests/elements/tensorreduce.c.
Deterministic: run with /usr/bin/python3 (needs NumPy) from anywhere; writes
reduce_*.npy into tests/data/core/reduce.

Three sets, each an input and one output file per (op, dtype):

  reduce_in_<dtype>.npy          shape (3, 4, 5, 6), every dtype
  reduce_<op>_<dtype>.npy        1-D: the results for the axis sets of AXES
                                 (below), in that order, each flattened in
                                 row-major order and concatenated
  reduce_big_in_<dtype>.npy      shape (1030, 24): float16, float32,
                                 float64, int32 (2 blocks of 1024 along
                                 axis 0, 25 along all axes)
  reduce_big_<op>_<dtype>.npy    the same for the axis sets of BIG_AXES (no
                                 float prod: 24720 factors over/underflow)
  reduce_special_in_<dtype>.npy  shape (6, 8): float32, float64 with NaN,
                                 inf and ties
  reduce_special_<op>_<dtype>.npy  for SPECIAL_OPS over BIG_AXES
  reduce_ddof1_<op>_<dtype>.npy  var and std with ddof=1 of the main input,
                                 float32 and int16, over AXES

bfloat16 (which NumPy lacks) is stored as its uint16 bits, inputs and
results alike; bool inputs as NumPy bools.

Expectations are computed from the definitions in core/reduce.h, not by
running NumPy's own reductions (whose association differs), except for
min, max, argmin and argmax (exact) and the special set:
  - float inputs are chosen so that every partial sum is exact in float32
    halves and in float64 (magnitudes in [0.5, 2) with few significant
    bits), so sum and mean are the exact sum rounded once (mean: the exact
    sum divided in float64, then rounded to the result dtype), bit for bit;
  - integer sums and products wrap modulo 2^64, as NumPy's int64/uint64;
  - mean of ints is float(exact sum) / n in float64;
  - prod of floats is the exact product rounded to the result dtype;
  - l2 is sqrt(float64(exact sum of squares)) rounded to the result dtype;
  - var/std are NumPy's float64 var/std of the items widened to float64,
    rounded to the result dtype.
The C tests compare sum, mean, min, max, argmin, argmax, integer prods and
the l2 of float16/bfloat16/float32 bit for bit, and the rest within the
error bounds of core/reduce.h."""

import math
import os
import sys
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/reduce, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "reduce")
sys.path.insert(0, HERE)
from gen_half import ref_narrow  # noqa: E402

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "float16", "bfloat16", "float32", "float64"]
OPS = ["sum", "mean", "prod", "min", "max", "argmin", "argmax", "l2", "var",
       "std"]
# all, first, last, middle, middle, two non-adjacent pairs, the last two.
AXES = ["", "0", "-1", "1", "2", "0,2", "1,3", "-1,-2"]
BIG_AXES = ["", "0", "1"]
SPECIAL_OPS = ["sum", "mean", "prod", "min", "max", "argmin", "argmax"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
NP = {"bool": np.bool_, "int8": np.int8, "uint8": np.uint8,
      "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
      "float16": np.float16, "float32": np.float32, "float64": np.float64}


def result_dtype(op, dt):
    if op in ("sum", "prod"):
        if dt in ("float16", "bfloat16"):
            return "float32"
        if dt in FLOATS:
            return dt
        return "uint64" if dt.startswith("uint") else "int64"
    if op in ("mean", "l2", "var", "std"):
        return dt if dt in FLOATS else "float64"
    if op in ("argmin", "argmax"):
        return "int64"
    return dt


def round_to(dt, v):
    """Python float v rounded once to float dtype dt, in storage form."""
    if dt == "bfloat16":
        return ref_narrow(v, 8, 7)
    return NP[dt](v)


def wrap(v, dt):
    v %= 2 ** 64
    if dt == "int64" and v >= 2 ** 63:
        v -= 2 ** 64
    return v


def scaled(rng, shape, lo_bits, hi_bits, scale_bits):
    """k / 2^scale_bits with 2^lo_bits <= |k| < 2^hi_bits, random signs."""
    k = rng.integers(2 ** lo_bits, 2 ** hi_bits, size=shape, dtype=np.int64)
    k *= rng.choice(np.array([-1, 1], dtype=np.int64), size=shape)
    return k.astype(np.float64) / 2.0 ** scale_bits


def make_input(rng, dt, shape, big=False):
    """(stored array, items as exact Python numbers in row-major order)."""
    if dt == "bool":
        a = rng.integers(0, 2, size=shape).astype(np.bool_)
        return a, a
    if dt in FLOATS:
        if dt in ("float16", "bfloat16"):
            v = scaled(rng, shape, 6, 8, 7)
        elif dt == "float32":
            v = scaled(rng, shape, 13, 15, 14)
        else:
            v = scaled(rng, shape, 29, 31, 30) if big else \
                scaled(rng, shape, 39, 41, 40)
        if dt == "bfloat16":
            bits = v.astype(np.float32).view(np.uint32) >> 16
            assert np.all((bits << 16).view(np.float32) == v)
            return bits.astype(np.uint16), v
        a = v.astype(NP[dt])
        assert np.all(a.astype(np.float64) == v)
        return a, a
    info = np.iinfo(NP[dt])
    a = rng.integers(info.min, info.max, size=shape, dtype=NP[dt],
                     endpoint=True)
    return a, a


def rows(values, axes):
    """values (ndarray) -> 2-D array (outputs, reduced items), the reduced
    items of each output in row-major order of the reduced axes."""
    nd = values.ndim
    if axes == "":
        red = list(range(nd))
    else:
        red = sorted({(int(s) + nd) % nd for s in axes.split(",")})
    kept = [i for i in range(nd) if i not in red]
    t = np.transpose(values, kept + red)
    m = int(np.prod([values.shape[i] for i in kept], dtype=np.int64))
    return t.reshape(m, -1)


def exact(v):
    if isinstance(v, (float, np.floating)):
        return Fraction(float(v))
    return int(v)


def expect_row(op, dt, row, ddof=0):
    """The expected result of op over one row (items as stored, bfloat16
    given as float64 values), in the storage form of its result dtype."""
    rdt = result_dtype(op, dt)
    n = len(row)
    if dt == "bool":
        row = row.astype(np.int64)
    xs = [exact(v) for v in row.tolist()]
    isfloat = dt in FLOATS
    if op == "sum":
        s = sum(xs, Fraction(0) if isfloat else 0)
        if not isfloat:
            return wrap(s, rdt)
        assert Fraction(float(s)) == s, "sum not exact in float64"
        return round_to(rdt, float(s))
    if op == "mean":
        s = sum(xs, Fraction(0) if isfloat else 0)
        if isfloat:
            assert Fraction(float(s)) == s
        return round_to(rdt, float(s) / n)
    if op == "prod":
        p = Fraction(1) if isfloat else 1
        for x in xs:
            p *= x
        return round_to(rdt, float(p)) if isfloat else wrap(p, rdt)
    if op in ("min", "max", "argmin", "argmax"):
        r = getattr(np, op)(row)
        if op.startswith("arg"):
            return np.int64(r)
        if dt == "bfloat16":
            return round_to(rdt, float(r))
        return NP[rdt](r)
    if op == "l2":
        s2 = sum((x * x for x in xs), Fraction(0) if isfloat else 0)
        return round_to(rdt, math.sqrt(float(s2)))
    w = np.array([float(x) for x in xs], dtype=np.float64)
    v = float(np.var(w, ddof=ddof)) if n > ddof else math.inf
    return round_to(rdt, v if op == "var" else math.sqrt(v))


def store_dtype(rdt):
    return np.uint16 if rdt == "bfloat16" else NP[rdt]


def expect(op, dt, values, axes_list, ddof=0):
    rdt = result_dtype(op, dt)
    out = []
    for axes in axes_list:
        for row in rows(values, axes):
            out.append(expect_row(op, dt, row, ddof))
    return np.array(out, dtype=store_dtype(rdt))


def save(name, arr):
    np.save(os.path.join(OUT, name), arr)


def special_input(dt):
    nan, inf = math.nan, math.inf
    v = np.array([
        [1, 2, nan, 4, -3, 2, 8, -1],         # a NaN inside
        [inf, 1, 2, 3, -5, 7, 7, 2],          # +inf; ties of max
        [inf, -inf, 1, 1, -2, -2, 3, 0.5],    # inf - inf; ties of min
        [nan, nan, nan, nan, nan, nan, nan, nan],
        [5, 5, 5, 5, 1, 5, 1, 5],             # ties
        [-inf, 3, 4, nan, 2, nan, -1, 9],     # the first of two NaN
    ], dtype=np.float64)
    return v.astype(NP[dt])


def special_expect(op, dt, a):
    out = []
    for axes in BIG_AXES:
        for row in rows(a, axes):
            with np.errstate(invalid="ignore", over="ignore"):
                r = getattr(np, op)(row)
            out.append(r)
    rdt = "int64" if op.startswith("arg") else dt
    return np.array(out, dtype=NP[rdt])


def main():
    rng = np.random.Generator(np.random.PCG64(20240405))
    for dt in DTYPES:
        stored, values = make_input(rng, dt, (3, 4, 5, 6))
        save("reduce_in_%s.npy" % dt, stored)
        for op in OPS:
            save("reduce_%s_%s.npy" % (op, dt), expect(op, dt, values, AXES))
        if dt in ("float32", "int16"):
            for op in ("var", "std"):
                save("reduce_ddof1_%s_%s.npy" % (op, dt),
                     expect(op, dt, values, AXES, ddof=1))
    for dt in ("float16", "float32", "float64", "int32"):
        stored, values = make_input(rng, dt, (1030, 24), big=True)
        save("reduce_big_in_%s.npy" % dt, stored)
        for op in OPS:
            if op == "prod" and dt in FLOATS:
                continue
            save("reduce_big_%s_%s.npy" % (op, dt),
                 expect(op, dt, values, BIG_AXES))
    for dt in ("float32", "float64"):
        a = special_input(dt)
        save("reduce_special_in_%s.npy" % dt, a)
        for op in SPECIAL_OPS:
            save("reduce_special_%s_%s.npy" % (op, dt),
                 special_expect(op, dt, a))


if __name__ == "__main__":
    main()

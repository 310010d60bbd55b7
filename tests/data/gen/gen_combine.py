#!/usr/bin/python3
"""Golden data for tests/core/test_combine.c and tests/elements/
tensorcombine.c.  Deterministic: run with /usr/bin/python3 (needs NumPy);
writes combine_* into tests/data/core/combine.

For each dtype D (bfloat16 stored as its uint16 bits):
  combine_x_D.npy, combine_y_D.npy   operands of N items: every edge value
                     of gen_ewise.py's lists paired with every other (x =
                     repeat, y = tile), so each op meets NaN, inf, 0,
                     INT_MIN, -1, ... on either side.
  combine_ops_D.txt  one op per line: the rows of combine_out_D.npy; a
                     leading '~' marks pow on floats (the C library's,
                     compared within 2 ulp).
  combine_out_D.npy  (lines, N): row i is x OP y in D, for the
                     arithmetic ops (every D but bool).
  combine_rel_D.npy  (6, N) bool: eq ne lt le gt ge of x and y.
  combine_bit_D.npy  (3, N), integer D and bool: and or xor.

The expected values follow core/combine.h, computed with NumPy: integer
arithmetic in D (wraps; // and % by zero give 0, INT_MIN // -1 gives
INT_MIN); an integer to a negative power is 1/x^-k truncated toward 0;
float16 and bfloat16 widened to float32, computed, rounded once; min and
max by their written definition (NaN if either is NaN, else the second
when it is less/greater: np.where), not np.minimum.

Broadcasting: combine_bcast.txt has one case per line, "K OP NOPS"; the
operands are combine_bK_0.npy, combine_bK_1.npy (combine_bK_2.npy for
where) and the result combine_bK_out.npy: rank 0 on either side, a zero
extent, a broadcast on the middle axis, <N,1> with <1,M>, float16 with a
tile, a scalar first operand of a non-commuting op and of a comparison,
where with a broadcast condition, and periods of 3, 4 and 6 along the
last axis over more than one pattern of core's rep kernels, the short
operand second and first, float32 and float64; then where on bool,
int8, int16, uint16, int32, uint32, int64, uint64 and float64 with each
dtype's extremes (every item size of the select kernels).

Folds over three pads (tests/elements/tensorcombine.c): combine_fold_K.npy
with combine_fold_sub_out.npy, (a - b) - c in float32, and
combine_ifold_K.npy with combine_ifold_min_out.npy, min (min (a, b), c)
in int16; sink_0 (<4>) is smaller than the output (<2, 3, 4>).
"""

import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "core", "combine")
sys.path.insert(0, HERE)
from gen_ewise import (INTS, FLOATS, bf16_widen, float_values,  # noqa: E402
                       int_values, narrow, widen)

warnings.simplefilter("ignore")

ARITH = ["add", "sub", "mul", "div", "pow", "mod", "min", "max"]
REL = ["eq", "ne", "lt", "le", "gt", "ge"]
BIT = ["and", "or", "xor"]


def save(name, a):
    np.save(os.path.join(OUT, name), a, allow_pickle=False)


def int_pow(x, y):
    d = x.dtype
    k = np.where(y < 0, 0, y).astype(d)
    r = np.power(x, k)
    if np.iinfo(d).min == 0:
        return r
    one, mone = np.array(1, d), np.array(-1, d)
    neg = np.where(x == one, one,
                   np.where(x == mone, np.where(y % 2 != 0, mone, one),
                            np.array(0, d)))
    return np.where(y < 0, neg, r).astype(d)


def arith(op, x, y):
    """x op y on values in their compute type (integers: in D)."""
    with np.errstate(all="ignore"):
        if op == "add":
            return x + y
        if op == "sub":
            return x - y
        if op == "mul":
            return x * y
        if op == "div":
            if x.dtype.kind == "f":
                return x / y
            return np.floor_divide(x, y)
        if op == "pow":
            if x.dtype.kind == "f":
                return np.power(x.astype(np.float64),
                                y.astype(np.float64)).astype(x.dtype)
            return int_pow(x, y)
        if op == "mod":
            return np.remainder(x, y)
        if op == "min":
            c = (y < x) | (np.isnan(y) if x.dtype.kind == "f" else False)
            return np.where(c, y, x)
        if op == "max":
            c = (y > x) | (np.isnan(y) if x.dtype.kind == "f" else False)
            return np.where(c, y, x)
    raise ValueError(op)


def rel(op, x, y):
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
            "gt": x > y, "ge": x >= y}[op]


def bit(op, x, y):
    return {"and": x & y, "or": x | y, "xor": x ^ y}[op]


def combine(op, d, *ops):
    """op on stored items of dtype d (broadcast), giving stored items."""
    if op == "where":
        return np.where(ops[0], ops[1], ops[2])
    w = [widen(o, d) if d in FLOATS else o for o in ops]
    if op in REL:
        return rel(op, w[0], w[1])
    if op in BIT:
        return bit(op, w[0], w[1])
    r = arith(op, w[0], w[1])
    if d in FLOATS:
        return narrow(np.asarray(r, dtype=np.float64 if d == "float64"
                                 else np.float32), d)
    return r.astype(d)


def write_dtype(d):
    if d == "bool":
        v = np.array([False, True])
    elif d in INTS:
        v = int_values(d)
    else:
        v = float_values(d)
    x = np.repeat(v, len(v))
    y = np.tile(v, len(v))
    save("combine_x_%s.npy" % d, x)
    save("combine_y_%s.npy" % d, y)
    save("combine_rel_%s.npy" % d, np.stack([combine(o, d, x, y)
                                             for o in REL]))
    if d == "bool" or d in INTS:
        save("combine_bit_%s.npy" % d, np.stack([combine(o, d, x, y)
                                                 for o in BIT]))
    if d == "bool":
        return
    out = np.stack([combine(o, d, x, y) for o in ARITH])
    assert out.dtype == x.dtype, (d, out.dtype)
    save("combine_out_%s.npy" % d, out)
    with open(os.path.join(OUT, "combine_ops_%s.txt" % d), "w") as f:
        for o in ARITH:
            f.write(("~" if o == "pow" and d in FLOATS else "") + o + "\n")


def ramp(shape, d, start=-5.0, step=0.75):
    n = int(np.prod(shape))
    a = (start + step * np.arange(n)).reshape(shape)
    if d == "float16":
        return a.astype(np.float16)
    return a.astype(d)


def edges(shape, d, shift):
    """shape items of d cycling through its extremes and a few values
    around 0 (NaN, infinities and -0.0 for float64), from shift on."""
    if d == "bool":
        vals = [True, False, False]
    elif d == "float64":
        vals = [np.nan, np.inf, -np.inf, -0.0, 1.5, -2.25,
                np.finfo(d).max, np.finfo(d).tiny]
    else:
        info = np.iinfo(d)
        vals = [info.min, info.max, 0, 1, info.max - 1, info.min + 1]
        if info.min < 0:
            vals.append(-1)
    n = int(np.prod(shape))
    return np.array([vals[(shift + i) % len(vals)] for i in range(n)],
                    dtype=d).reshape(shape)


def bcast_cases():
    f = "float32"
    x = ramp((2, 3, 4), f)
    cases = [
        ("sub", [x, ramp((4,), f, 1.0, 0.5)]),
        ("sub", [ramp((4,), f, 1.0, 0.5), x]),
        ("sub", [x, np.array(1.5, dtype=f)]),
        ("sub", [np.array(1.5, dtype=f), x]),
        ("div", [np.array(2.0, dtype=f), x]),
        ("sub", [ramp((3, 1), f, 1.0, 2.0), ramp((1, 4), f, 0.0, 0.25)]),
        ("sub", [ramp((2, 1, 4), f, 1.0, 2.0), x]),
        ("sub", [ramp((6, 1, 3), f), ramp((1, 5, 3), f, 2.0, 0.3)]),
        ("add", [np.zeros((0, 3), dtype=f), ramp((3,), f)]),
        ("add", [ramp((2, 1), f), np.zeros((0,), dtype=f)]),
        ("add", [np.array(1.25, dtype=f), np.array(-3.0, dtype=f)]),
        ("add", [ramp((2, 3, 4), "float16"), ramp((4,), "float16", 0.1, 0.3)]),
        ("sub", [np.array(0.1, dtype=np.float16),
                 ramp((2, 3), "float16", 0.001, 0.01)]),
        ("div", [np.array(7, dtype=np.int32),
                 ramp((2, 3, 4), "int32", -12, 1)]),
        ("mod", [ramp((2, 3, 4), "int32", -12, 1), np.array([3, -2, 0, 5],
                                                           dtype=np.int32)]),
        ("lt", [np.array(0.5, dtype=f), x]),
        ("ge", [x, ramp((3, 1), f, -2.0, 2.0)]),
        ("where", [np.array([[[True, False, True, False]],
                             [[False, False, True, True]]]), x,
                   np.array(-1.0, dtype=f)]),
        ("where", [np.array(True), np.array([1, 2, 3], dtype=np.uint8),
                   np.array([[9], [8]], dtype=np.uint8)]),
        ("where", [np.array([True, False, True]),
                   ramp((2, 3), "float16"), ramp((3,), "float16", 9, 1)]),
        # Periods that divide core's 48-float (24-double) pattern, over
        # more items than one pattern: the rep kernels, either side.
        ("add", [ramp((67, 3), f), ramp((3,), f, 0.5, 0.25)]),
        ("div", [ramp((3,), f, 1.0, 0.5), ramp((5, 13, 3), f, -7.0, 0.37)]),
        ("sub", [ramp((31, 4), "float64", -9.0, 0.3),
                 ramp((4,), "float64", 0.1, 1.7)]),
        ("mul", [ramp((2, 40, 6), f), ramp((1, 6), f, -1.5, 0.6)]),
    ]
    # where on every item size the select kernels take (1, 2, 4, 8
    # bytes), signed and unsigned, with the extremes of each dtype: a
    # condition broadcast on the middle axis, then <2,3,4>, else <3,1>.
    cond = np.array([[[True, False, False, True]],
                     [[False, True, True, False]]])
    for d in ["bool", "int8", "int16", "uint16", "int32", "uint32", "int64",
              "uint64", "float64"]:
        cases.append(("where", [cond, edges((2, 3, 4), d, 0),
                                edges((3, 1), d, 5)]))
    with open(os.path.join(OUT, "combine_bcast.txt"), "w") as fh:
        for k, (op, ops) in enumerate(cases):
            d = str(ops[-1].dtype)
            for j, o in enumerate(ops):
                save("combine_b%d_%d.npy" % (k, j), o)
            save("combine_b%d_out.npy" % k, np.asarray(combine(op, d, *ops)))
            fh.write("%d %s %d\n" % (k, op, len(ops)))


def fold_cases():
    """Three pads folded left to right, sink_0 smaller than the output:
    (a - b) - c in float32 and min (min (a, b), c) in int16."""
    f = "float32"
    a, b, c = ramp((4,), f, 0.5, 1.5), ramp((3, 1), f, -1, 0.25), \
        ramp((2, 1, 1), f, 3, -7)
    for j, o in enumerate([a, b, c]):
        save("combine_fold_%d.npy" % j, o)
    save("combine_fold_sub_out.npy", (a - b) - c)
    ia, ib, ic = (np.array(v, dtype=np.int16) for v in
                  ([5, -3, 7, 0], [[2], [9], [-4]], [[[1]], [[-8]]]))
    for j, o in enumerate([ia, ib, ic]):
        save("combine_ifold_%d.npy" % j, o)
    save("combine_ifold_min_out.npy", np.minimum(np.minimum(ia, ib), ic))


def main():
    for d in ["bool"] + INTS + FLOATS:
        write_dtype(d)
    bcast_cases()
    fold_cases()


if __name__ == "__main__":
    main()

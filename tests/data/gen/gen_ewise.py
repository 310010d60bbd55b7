#!/usr/bin/python3
"""Golden data for tests/core/test_ewise.c and tests/elements/tensorop.c.
Deterministic: run with /usr/bin/python3 (needs NumPy); writes ewise_*
into tests/data/core/ewise.

For each dtype D other than bool:
  ewise_x_D.npy      the input: every value of a list of edge values paired
                     with every other (x = repeat, y = tile), so each
                     binary step meets NaN, inf, 0, INT_MIN, -1, ...
                     bfloat16 is stored as its uint16 bits.
  ewise_y_D.npy      the operand of the .npy steps ("@y"); for bfloat16 it
                     is float32 holding bfloat16 values exactly.
  ewise_p_D.npy      integer dtypes: non-negative exponents for "pow:@p".
  ewise_steps_D.txt  one chain per line; a leading '~' marks results of
                     the C library's exp/log/pow/tanh (and sigmoid), which
                     the test compares within 2 ulp; the others are exact.
  ewise_out_D.npy    shape (lines, N): row i is line i applied to x.

The expected values follow the semantics written in core/ewise.h, computed
with NumPy: integer arithmetic in the dtype (wraps; // and % by zero give
0, INT_MIN // -1 gives INT_MIN); float16 and bfloat16 widened to float32,
computed, and rounded to nearest even after every step; min/max/relu/clamp
by their written definitions (np.where), not np.minimum, whose handling
of signed zeros is unspecified; exp/log/pow/tanh/sigmoid in float64, then
rounded to D.

Also:
  ewise_norm_in_uint8.npy / ewise_norm_out_float32.npy: 0..255 through
      cast:float32,sub:127.5,div:127.5.
  ewise_bx.npy and ewise_bop_K.npy / ewise_bout_K.npy: a float32 <2, 3, 4>
      tensor times operands of dims <4>, <3, 1>, <2, 1, 4>, <1>, <>,
      <1, 3, 1> (NumPy broadcasting).
  ewise_w3.npy (<3>) and ewise_w480.npy (<480, 1, 1>): operands for a
      <480, 640, 3> tensor; the tests work out the expected values by index.
  ewise_bad_frac.npy, ewise_bad_big.npy, ewise_bad_negexp.npy,
  ewise_bad_dims.npy: operands that must be refused.
"""

import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/ewise, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "ewise")
sys.path.insert(0, HERE)
from gen_half import ref_narrow  # noqa: E402

warnings.simplefilter("ignore")

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
        "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def save(name, a):
    np.save(os.path.join(OUT, name), a, allow_pickle=False)


# bfloat16: the top half of a float32, rounded to nearest even; NaN stays
# a quiet NaN.
def bf16_round_bits(f32):
    a = np.atleast_1d(np.asarray(f32, dtype=np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    nan = np.isnan(a)
    s16 = np.uint64(16)
    r = ((u + np.uint64(0x7FFF) + ((u >> s16) & np.uint64(1))) >> s16)
    q = (u >> s16) | np.uint64(0x40)
    return np.where(nan, q, r).astype(np.uint16)


def bf16_widen(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def narrow(f32, d):
    """float32 results -> stored items of the float dtype d."""
    if d == "bfloat16":
        return bf16_round_bits(f32)
    return np.asarray(f32).astype(d)


def widen(stored, d):
    """Stored items -> the float32 (or float64) they are computed in."""
    if d == "bfloat16":
        return bf16_widen(stored)
    if d == "float16":
        return stored.astype(np.float32)
    return stored


def scalar(c, d):
    """A number as ewise converts it: rounded once to d (exactly, from the
    decimal's double), then widened."""
    if d == "bfloat16":
        return bf16_widen(np.array([ref_narrow(float(c), 8, 7)]))[0]
    if d == "float16":
        b = np.array([ref_narrow(float(c), 5, 10)], dtype=np.uint16)
        return b.view(np.float16).astype(np.float32)[0]
    return np.dtype(d).type(c)


def int_values(d):
    i = np.iinfo(d)
    if i.min < 0:
        v = [i.min, i.min + 1, -100, -7, -2, -1, 0, 1, 2, 7, i.max - 1, i.max]
    else:
        v = [0, 1, 2, 3, 5, 7, 100, i.max // 2, i.max // 2 + 1, i.max - 1,
             i.max]
    return np.array(v, dtype=d)


def float_values(d):
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
         1.0, -1.0, 3.0, -7.25, 127.5, 1e-3, 0.1, 100.0, -300.0]
    v += {"float16": [65504.0, 6e-8, 0.0004],
          "bfloat16": [1e30, 3e38, 1e-40],
          "float32": [1e30, 1e-40, 8388609.0],
          "float64": [1e300, 5e-324, 2.0 ** 53 + 2]}[d]
    a = np.array(v, dtype=np.float64)
    if d == "bfloat16":
        return bf16_round_bits(a.astype(np.float32))
    return a.astype(d)


# ---- integer steps: every operation in the dtype itself ----

def int_rows(d, x, y, p):
    t = np.dtype(d).type
    signed = np.iinfo(d).min < 0
    rows = []

    def c(v):
        return np.array(v, dtype=d)

    def add(line, val):
        rows.append((line, np.asarray(val, dtype=d)))

    if signed:
        consts = {"add": 100, "sub": -100, "mul": 3, "min": -2, "max": -2}
        divs = [-3, 0, -1, 5]
        lo, hi = -5, 7
    else:
        consts = {"add": 200 if d != "uint8" else 200, "sub": 3, "mul": 3,
                  "min": 5, "max": 5}
        divs = [3, 0, 5]
        lo, hi = 2, 7
    add("add:%d" % consts["add"], x + c(consts["add"]))
    add("sub:%d" % consts["sub"], x - c(consts["sub"]))
    add("mul:%d" % consts["mul"], x * c(consts["mul"]))
    for k in divs:
        add("div:%d" % k, np.floor_divide(x, c(k)))
        add("mod:%d" % k, np.remainder(x, c(k)))
    add("pow:3", np.power(x, c(3)))
    add("pow:0", np.power(x, c(0)))
    add("min:%d" % consts["min"], np.where(c(consts["min"]) < x,
                                           c(consts["min"]), x))
    add("max:%d" % consts["max"], np.where(c(consts["max"]) > x,
                                           c(consts["max"]), x))
    add("neg", np.negative(x))
    add("abs", np.abs(x) if signed else x)
    add("relu", np.where(x < 0, t(0), x))
    add("clamp:%d:%d" % (lo, hi), np.where(x < c(lo), c(lo),
                                           np.where(x > c(hi), c(hi), x)))
    add("floor", x)
    add("ceil", x)
    add("round", x)
    add("add:@y", x + y)
    add("sub:@y", x - y)
    add("mul:@y", x * y)
    add("div:@y", np.floor_divide(x, y))
    add("mod:@y", np.remainder(x, y))
    add("min:@y", np.where(y < x, y, x))
    add("max:@y", np.where(y > x, y, x))
    add("pow:@p", np.power(x, p))
    # Chains: each step in the dtype, one after the other.
    add("mul:3,add:7,mod:5", np.remainder(x * c(3) + c(7), c(5)))
    s = np.abs(x - c(1)) if signed else x - c(1)
    add("sub:1,abs,clamp:0:9", np.where(s < c(0), c(0),
                                        np.where(s > c(9), c(9), s)))
    return rows


# ---- float steps: computed in float32 for the halves, rounded per step --

def f64_ref(fn, xs):
    with np.errstate(all="ignore"):
        return fn(np.asarray(xs, dtype=np.float64))


def sigmoid64(v):
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1.0, e) / (1.0 + e)


def float_rows(d, xs, ys):
    """xs, ys: stored items.  Returns rows of stored items."""
    rows = []
    x = widen(xs, d)
    y = widen(ys, d)
    ct = np.float64 if d == "float64" else np.float32

    def add(line, val):
        rows.append((line, narrow(np.asarray(val, dtype=ct), d)))

    def approx(line, fn):
        # exact reference in float64, rounded once to d (via float32 for
        # bfloat16; the test's 2-ulp tolerance covers the double rounding)
        r = f64_ref(fn, x)
        if d == "bfloat16":
            rows.append(("~" + line, bf16_round_bits(r.astype(np.float32))))
        else:
            rows.append(("~" + line, r.astype(d)))

    def approx2(line, fn, other):
        r = fn(np.asarray(x, dtype=np.float64), np.asarray(other, np.float64))
        if d == "bfloat16":
            rows.append(("~" + line, bf16_round_bits(r.astype(np.float32))))
        else:
            rows.append(("~" + line, r.astype(d)))

    def S(v):
        return scalar(v, d)

    def mn(a, c):
        return np.where((c < a) | np.isnan(c), c, a)

    def mx(a, c):
        return np.where((c > a) | np.isnan(c), c, a)

    def cl(a, lo, hi):
        return np.where(a < lo, lo, np.where(a > hi, hi, a))

    with np.errstate(all="ignore"):
        add("add:0.1", x + S(0.1))
        add("sub:127.5", x - S(127.5))
        add("mul:-3", x * S(-3))
        add("div:127.5", x / S(127.5))
        add("div:0", x / S(0))
        add("mod:-2.5", np.remainder(x, S(-2.5)))
        add("mod:0.75", np.remainder(x, S(0.75)))
        add("mod:0", np.remainder(x, S(0)))
        approx2("pow:2", np.power, S(2))
        approx2("pow:0.5", np.power, S(0.5))
        approx2("pow:-1.5", np.power, S(-1.5))
        add("min:0.5", mn(x, S(0.5)))
        add("max:0.5", mx(x, S(0.5)))
        add("min:nan", mn(x, S(np.nan)))
        add("max:-inf", mx(x, S(-np.inf)))
        add("neg", -x)
        add("abs", np.abs(x))
        add("sqrt", np.sqrt(x))
        approx("exp", np.exp)
        approx("log", np.log)
        approx("tanh", np.tanh)
        approx("sigmoid", sigmoid64)
        add("relu", np.where(x < 0, ct(0), x))
        add("floor", np.floor(x))
        add("ceil", np.ceil(x))
        add("round", np.rint(x))
        add("clamp:-1.5:2", cl(x, S(-1.5), S(2)))
        add("clamp:0:0", cl(x, S(0), S(0)))
        add("add:@y", x + y)
        add("sub:@y", x - y)
        add("mul:@y", x * y)
        add("div:@y", x / y)
        add("mod:@y", np.remainder(x, y))
        add("min:@y", mn(x, y))
        add("max:@y", mx(x, y))
        approx2("pow:@y", np.power, y)

        # Chains, rounding to d after every step.
        def r(v):
            return widen(narrow(np.asarray(v, dtype=ct), d), d)

        a = r(x - S(127.5))
        a = r(a / S(127.5))
        add("sub:127.5,div:127.5,relu", np.where(a < 0, ct(0), a))
        a = r(x * S(3))
        a = r(a + S(0.1))
        add("mul:3,add:0.1,round", np.rint(a))
        a = r(x + y)
        a = r(a * y)
        add("add:@y,mul:@y,clamp:-10:10", cl(a, S(-10), S(10)))
        # Each step rounds: 1 + 0.0004 + 0.0004 stays 1 in float16.
        a = r(x + S(0.0004))
        add("add:0.0004,add:0.0004", a + S(0.0004))
    return rows


def write_dtype(d):
    if d in INTS:
        v = int_values(d)
        x = np.repeat(v, len(v))
        y = np.tile(v, len(v))
        p = np.resize(np.array([0, 1, 2, 3, 5, 7, 8, 13, 31, 62, 63, 64,
                                4, 6, 9, 0, 1, 2], dtype=d), x.shape)
        rows = int_rows(d, x, y, p)
        save("ewise_p_%s.npy" % d, p)
        save("ewise_y_%s.npy" % d, y)
    else:
        v = float_values(d)
        x = np.repeat(v, len(v))
        y = np.tile(v, len(v))
        rows = float_rows(d, x, y)
        save("ewise_y_%s.npy" % d,
             bf16_widen(y) if d == "bfloat16" else y)
    save("ewise_x_%s.npy" % d, x)
    out = np.stack([r[1] for r in rows])
    assert out.dtype == x.dtype, (d, out.dtype)
    save("ewise_out_%s.npy" % d, out)
    with open(os.path.join(OUT, "ewise_steps_%s.txt" % d), "w") as f:
        for line, _ in rows:
            f.write(line + "\n")


def main():
    for d in INTS + FLOATS:
        write_dtype(d)

    u = np.arange(256, dtype=np.uint8)
    save("ewise_norm_in_uint8.npy", u)
    save("ewise_norm_out_float32.npy",
         (u.astype(np.float32) - np.float32(127.5)) / np.float32(127.5))

    bx = (np.arange(24, dtype=np.float32) - 11.5).reshape(2, 3, 4)
    save("ewise_bx.npy", bx)
    ops = [np.array([0.5, -2.0, 3.0, 0.25], dtype=np.float32),
           np.array([[2.0], [-1.0], [0.5]], dtype=np.float32),
           np.array([[[1.0, 2.0, 3.0, 4.0]], [[-1.0, -2.0, -3.0, -4.0]]],
                    dtype=np.float32),
           np.array([-3.0], dtype=np.float32),
           np.array(1.5, dtype=np.float64),
           np.array([[[2]], [[3]], [[4]]], dtype=np.int16).reshape(1, 3, 1)]
    for k, o in enumerate(ops):
        save("ewise_bop_%d.npy" % k, o)
        save("ewise_bout_%d.npy" % k, (bx * o.astype(np.float32))
             .astype(np.float32))

    save("ewise_w3.npy", np.array([0.5, -2.0, 100.0], dtype=np.float32))
    save("ewise_w480.npy",
         (np.arange(480, dtype=np.float32) * 0.25).reshape(480, 1, 1))
    save("ewise_bad_frac.npy", np.array([1.0, 2.0, 2.5], dtype=np.float32))
    save("ewise_bad_big.npy", np.array([1, 300, 2], dtype=np.int16))
    save("ewise_bad_negexp.npy", np.array([2, 0, -1], dtype=np.int32))
    save("ewise_bad_dims.npy", np.zeros(4, dtype=np.float32))


if __name__ == "__main__":
    main()

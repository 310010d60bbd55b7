#!/usr/bin/python3
"""Golden data for tests/core/test_gemm.c and tests/elements/tensormatmul.c.

Every case stores its operands as float32 .npy files whose values are small
integers (exact in float16, bfloat16, int8 and float32), so one set of
inputs serves every dtype, and the expected product is exact: NumPy computes
it in float64 (integers, exact) and stores it as float32 (exact below 2^24).
float16 and bfloat16 results are that exact value rounded once to the type
(to nearest even), which is what a product computed in float32 gives back:
  matmul_<case>_a.npy, _b.npy, [_bias.npy], _out.npy (float32),
  _out_f16.npy (float16), _out_bf16.npy (bfloat16 widened to float32).
The transposes (ta, tb) and shapes of each case are listed in CASES and
repeated in the tests.

Two more sets: random real values (matmul_rand_*, float32 and float64
inputs, products in float64 to compare with a tolerance) and int8 over its
whole range (matmul_i8full_*, int32 products).

Deterministic (fixed seed): run with /usr/bin/python3 from anywhere.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/gemm, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "gemm")
rng = np.random.default_rng(20260530)

# name: (a dims as stored, b dims as stored, ta, tb, bias dims or None)
CASES = {
    "square": ((16, 16), (16, 16), False, False, None),
    "tall": ((67, 5), (5, 9), False, False, None),
    "wide": ((3, 40), (40, 131), False, False, None),
    "k1": ((7, 1), (1, 19), False, False, None),
    "odd": ((23, 600), (600, 37), False, False, None),  # k > every kc
    "mbig": ((150, 20), (20, 40), False, False, None),  # m > mc
    "nbig": ((2, 20), (20, 2100), False, False, None),  # n > nc
    "vecmat": ((37,), (37, 21), False, False, None),
    "matvec": ((5, 37), (37,), False, False, None),
    "vecvec": ((37,), (37,), False, False, None),
    "batch": ((2, 1, 5, 7), (3, 7, 6), False, False, None),
    "trans": ((9, 4), (11, 9), True, True, None),
    "transbatch": ((3, 9, 4), (9, 11), True, False, (11,)),
    "bias": ((10, 20), (20, 30), False, False, (30,)),
    "biascol": ((10, 20), (20, 30), False, False, (10, 1)),
    "biasvec": ((5, 37), (37,), False, False, (5,)),
    "k0": ((3, 0), (0, 4), False, False, (3, 4)),
}


def save(name, arr):
    np.save(os.path.join(OUT, "matmul_" + name + ".npy"), arr)


def to_bf16(x):
    """float32 -> bfloat16 (round to nearest even), widened back."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1)))
    u = (u >> np.uint64(16)) << np.uint64(16)
    return u.astype(np.uint32).view(np.float32)


for name, (ad, bd, ta, tb, biasd) in CASES.items():
    a = rng.integers(-4, 5, size=ad).astype(np.float32)
    b = rng.integers(-4, 5, size=bd).astype(np.float32)
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    if ta:
        a64 = np.swapaxes(a64, -1, -2)
    if tb:
        b64 = np.swapaxes(b64, -1, -2)
    out = np.matmul(a64, b64)
    if biasd is not None:
        bias = rng.integers(-50, 51, size=biasd).astype(np.float32)
        save(name + "_bias", bias)
        out = out + bias
    assert np.all(np.abs(out) < 2**24)
    save(name + "_a", a)
    save(name + "_b", b)
    save(name + "_out", np.asarray(out, dtype=np.float32))
    save(name + "_out_f16", np.asarray(out, dtype=np.float16))
    save(name + "_out_bf16", to_bf16(np.asarray(out, dtype=np.float32)))

# Real values: float32 and float64 inputs; the reference product in float64
# from the float64 inputs (the float32 test allows a tolerance).
a = rng.standard_normal((33, 300))
b = rng.standard_normal((300, 45))
save("rand_a", a)
save("rand_b", b)
save("rand_out", a @ b)

# int8 over its whole range, including -128 * -128: int32 products.
a = rng.integers(-128, 128, size=(19, 70), dtype=np.int8)
b = rng.integers(-128, 128, size=(70, 23), dtype=np.int8)
a[0, :] = -128
b[:, 0] = -128
save("i8full_a", a)
save("i8full_b", b)
save("i8full_out", a.astype(np.int32) @ b.astype(np.int32))

# The element's linear layer (weights= and bias= files): [4] rows of 6 by
# [6,5] weights, per dtype the element loads; the product is exact in every
# output type (|y| < 256).
w = rng.integers(-4, 5, size=(6, 5))
bias = rng.integers(-9, 10, size=(5,))
x = rng.integers(-4, 5, size=(4, 6))
save("lin_a", x.astype(np.float32))
save("lin_out", (x @ w + bias).astype(np.float32))
assert np.all(np.abs(x @ w + bias) < 256)
for t in ("float32", "float64", "float16", "int8"):
    save("lin_w_" + t, w.astype(t))
save("lin_bias_float32", bias.astype(np.float32))
save("lin_bias_float64", bias.astype(np.float64))
save("lin_bias_float16", bias.astype(np.float16))
save("lin_bias_int32", bias.astype(np.int32))

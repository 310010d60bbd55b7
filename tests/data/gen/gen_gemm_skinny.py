#!/usr/bin/python3
"""Golden data for the skinny GEMM path (m <= MR rows) of tests/core/test_gemm.c.

Each case stores A as 7 x k and B as k x n (n x k when read transposed),
int8 with small values, so that one set of inputs serves every dtype and the
product is exact in float32 whatever order the sums take; the test takes the
first m rows of A for m = 1..7 (7 is past MR = 6 and runs the blocked GEMM)
and checks the first m rows of the product:
  gemm_skinny_<case>_a.npy, _b.npy (int8), [_bias.npy] (float32, n items),
  _out.npy (float32, 7 x n), _out_f16.npy (float16),
  _out_bf16.npy (bfloat16 widened to float32), each rounded once from the
  exact product.
n and k are chosen around the register tile (NR = 16 columns) and the k
block (kc = 256 for float32, 512 for int8 pairs): 1, 7, 15, 17, 600, 4097.

Deterministic (fixed seed): run with /usr/bin/python3 from anywhere.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/gemm, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "gemm")
rng = np.random.default_rng(20261201)
M = 7

# name: (k, n, tb, bias)
CASES = {
    "k1_n4097": (1, 4097, False, False),
    "k7_n15_t": (7, 15, True, False),
    "k15_n7_bias": (15, 7, False, True),
    "k17_n17_t": (17, 17, True, True),
    "k4097_n1": (4097, 1, False, False),
    "k4097_n17_bias": (4097, 17, False, True),
    "k17_n4097_t_bias": (17, 4097, True, True),
    "k600_n33": (600, 33, False, False),
}


def save(name, arr):
    np.save(os.path.join(OUT, "gemm_skinny_" + name + ".npy"), arr)


def to_bf16(x):
    """float32 -> bfloat16 (round to nearest even), widened back."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))
    u = (u >> np.uint64(16)) << np.uint64(16)
    return u.astype(np.uint32).view(np.float32)


for name, (k, n, tb, has_bias) in CASES.items():
    lim = 2 if k > 1000 else 4
    a = rng.integers(-lim, lim + 1, size=(M, k), dtype=np.int8)
    b = rng.integers(-lim, lim + 1, size=(n, k) if tb else (k, n), dtype=np.int8)
    bm = b.T if tb else b
    out = a.astype(np.int64) @ bm.astype(np.int64)
    save(name + "_a", a)
    save(name + "_b", b)
    if has_bias:
        bias = rng.integers(-50, 51, size=(n,)).astype(np.float32)
        save(name + "_bias", bias)
        out = out + bias.astype(np.int64)
    # exact in float32, and finite in float16
    assert np.all(np.abs(out) < 60000)
    save(name + "_out", out.astype(np.float32))
    save(name + "_out_f16", out.astype(np.float16))
    save(name + "_out_bf16", to_bf16(out.astype(np.float32)))

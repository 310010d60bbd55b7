#!/usr/bin/python3
"""Golden data for tests/core/test_reduce_short.c: float32 sums and means
along a short innermost axis (k = 2, 3, 4, 5, 8, 16 items: the channels of
a pixel), the case of the short-row kernels (core/reduce-kern.h, short32).
Deterministic: run with /usr/bin/python3 (needs NumPy) from anywhere;
writes into tests/data/core/reduce_short.

  reduce_short_in_k<K>.npy     float32 (5, 23, K): 115 rows, an odd count
                               (tails after the kernels' groups of 8 and
                               16 rows); items with random exponents
                               2^-12 .. 2^12 (every addition rounds), and
                               about one in 25 NaN, +inf or -inf
  reduce_short_sum_k<K>.npy    float32 (5, 23): the sum along axis 2
  reduce_short_mean_k<K>.npy   float32 (5, 23): the mean along axis 2

The association is reduce.h's for up to 32 items: item l is lane l's only
item, so the sum is x_0 + x_1 + ... + x_{K-1} in float64, left to right,
rounded once to float32; the mean divides that float64 sum by K (a true
division) and rounds once.  NumPy's own a.sum(axis=2) adds float32 items
in float32 (pairwise), so the goldens are built from NumPy's float64
additions in that order instead."""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "core", "reduce_short")
KS = [2, 3, 4, 5, 8, 16]


def main():
    np.seterr(invalid="ignore")  # inf + -inf: NaN, on purpose
    rng = np.random.default_rng(2026_12_02)
    for k in KS:
        shape = (5, 23, k)
        mant = rng.uniform(1.0, 2.0, size=shape)
        expo = rng.integers(-12, 13, size=shape)
        sign = rng.choice([-1.0, 1.0], size=shape)
        a = (sign * mant * np.exp2(expo)).astype(np.float32)
        special = rng.random(size=shape) < 0.04
        a[special] = rng.choice([np.nan, np.inf, -np.inf],
                                size=int(special.sum()))
        s = a[..., 0].astype(np.float64)
        for l in range(1, k):
            s = s + a[..., l].astype(np.float64)
        np.save(os.path.join(OUT, "reduce_short_in_k%d.npy" % k), a)
        np.save(os.path.join(OUT, "reduce_short_sum_k%d.npy" % k),
                s.astype(np.float32))
        np.save(os.path.join(OUT, "reduce_short_mean_k%d.npy" % k),
                (s / k).astype(np.float32))
        # Where no item is special, NumPy's float64 sum agrees (its
        # pairwise order is ours up to 8 items; beyond, a check on size).
        m = ~special.any(axis=2)
        ref = a.astype(np.float64).sum(axis=2)
        if k <= 8:
            assert np.array_equal(ref[m], s[m])
        assert np.isnan(s).sum() >= 1


if __name__ == "__main__":
    main()

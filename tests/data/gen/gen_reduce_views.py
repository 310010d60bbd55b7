#!/usr/bin/python3
"""Golden data for the strided-view cases of tests/core/test_reduce.c:
reductions of permuted, sliced (stepped) and broadcast views,
read in place, against NumPy on the same views.  Deterministic: run with
/usr/bin/python3 (needs NumPy) from anywhere; writes into
tests/data/core/reduce.

  reduce_views_in_<dtype>.npy        shape (37, 41, 3): an HWC frame
  reduce_views_<op>_<dtype>.npy      1-D: for each view of VIEWS and each
                                     axis set of AXES (in those orders),
                                     the result flattened in row-major
                                     order, all concatenated

Floats are k/8 with k in 4..15 and a random sign, so every partial sum is
exact in float32 and float64: sum and mean are the exact sum (divided by n
in float64) rounded once, whatever the association, and the C test
compares bit for bit.  Integer sums are exact.  argmin/argmax over several
axes index the row-major order of the reduced axes (NumPy's argmax takes
one axis, so the reduced axes are moved last and flattened first); ties
go to the first, as NumPy's."""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "core", "reduce")

SHAPE = (37, 41, 3)
DTYPES = ["uint8", "int32", "float16", "float32", "float64"]
OPS = ["sum", "mean", "min", "max", "argmin", "argmax"]
AXES = [(), (0,), (1,), (2,), (0, 1), (1, 2), (0, 2)]


def views(a):
    """The views, in the order of the file; the C test builds the same ones
    from strides (test_views in test_reduce.c)."""
    s = a[2:35:3, 1:40:2, 1:]
    b = np.broadcast_to(a[:, :1, :], SHAPE)
    return [a.transpose(2, 0, 1), s, s.transpose(2, 0, 1), b,
            b.transpose(2, 0, 1)]


def result_dtype(op, dt):
    if op == "sum":
        if dt in ("float16", "float32"):
            return np.float32
        if dt == "float64":
            return np.float64
        return np.uint64 if dt.startswith("uint") else np.int64
    if op == "mean":
        return np.float64 if dt in ("uint8", "int32") else np.dtype(dt)
    if op in ("argmin", "argmax"):
        return np.int64
    return np.dtype(dt)


def reduce(v, op, axes, dt):
    axes = axes if axes else tuple(range(v.ndim))
    kept = [i for i in range(v.ndim) if i not in axes]
    m = np.moveaxis(v, axes, range(v.ndim - len(axes), v.ndim))
    m = m.reshape([v.shape[i] for i in kept] + [-1])
    if op in ("sum", "mean"):
        s = m.astype(np.float64).sum(axis=-1)
        if dt in ("uint8", "int32"):
            s = m.astype(np.int64).sum(axis=-1)
        if op == "mean":
            s = s.astype(np.float64) / m.shape[-1]
        return s.astype(result_dtype(op, dt))
    f = {"min": np.min, "max": np.max, "argmin": np.argmin,
         "argmax": np.argmax}[op]
    return f(m, axis=-1).astype(result_dtype(op, dt))


def check_numpy(a, op, dt, parts):
    """The expectations are NumPy's own results on the views wherever
    NumPy's reduction is exact too (not float16 sums, which NumPy rounds
    to float16, and not argmin/argmax over several axes, which it lacks)."""
    i = 0
    for v in views(a):
        for ax in AXES:
            want = parts[i]
            i += 1
            if op.startswith("arg"):
                if len(ax) != 1:
                    continue
                got = getattr(v, op)(axis=ax[0])
            elif dt == "float16" and op in ("sum", "mean"):
                continue
            else:
                got = getattr(v, op)(axis=ax if ax else None)
            got = np.asarray(got).astype(want.dtype).ravel()
            assert np.array_equal(got, want), (op, dt, ax)


def main():
    rng = np.random.default_rng(2026_12_01)
    k = rng.integers(4, 16, size=SHAPE)
    sign = rng.choice([-1.0, 1.0], size=SHAPE)
    data = {
        "uint8": rng.integers(0, 256, size=SHAPE).astype(np.uint8),
        "int32": rng.integers(-1000, 1001, size=SHAPE).astype(np.int32),
    }
    for dt in ("float16", "float32", "float64"):
        data[dt] = (sign * k / 8).astype(dt)
    for dt in DTYPES:
        a = data[dt]
        np.save(os.path.join(OUT, "reduce_views_in_%s.npy" % dt), a)
        for op in OPS:
            parts = [reduce(v, op, ax, dt).ravel() for v in views(a)
                     for ax in AXES]
            check_numpy(a, op, dt, parts)
            np.save(os.path.join(OUT, "reduce_views_%s_%s.npy" % (op, dt)),
                    np.concatenate(parts))


if __name__ == "__main__":
    main()

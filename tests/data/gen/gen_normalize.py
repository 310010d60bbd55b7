#!/usr/bin/python3
"""Golden data for tests/core/test_normalize.c and
tests/elements/tensornormalize.c. Deterministic: run with /usr/bin/python3
(needs NumPy; SciPy, if installed, for the cross-check) from anywhere; writes norm_*.npy
into tests/data/core/normalize.

  norm_in_<dt>.npy              shape (3, 4, 5, 6): float32 (normal * 3),
                                float64 (normal * 3, full mantissa),
                                float16, bfloat16 (uint16 bits)
  norm_<dt>_<op>_<axes>.npy     float64 references over the items of
                                norm_in_<dt>, for every op and the axis sets
                                of AXES (float16/bfloat16: AXES_HALF);
                                <axes>: "all" for "", "-" as "m", "," as "_"
  norm_special_in.npy           (9, 8) float32 rows: ordinary, all -inf, a
                                NaN, all equal, a +inf, all zero, a 100-wide
                                range (exp underflows to subnormals), some
                                -inf, ties at the maximum
  norm_special_<op>.npy         float64 references over axis -1
  norm_wide_in.npy              (4, 1000) float32 uniform in [-110, 10]
  norm_wide_<op>.npy            softmax and log-softmax over axis -1

The references are the definitions of core/normalize.h evaluated in
float64 with Python's math (exp, log, sqrt, fsum: exactly rounded sums), not
NumPy's own float64 kernels, whose last bit depends on the SIMD path it
dispatches to; they are checked against NumPy's formulas and SciPy's
softmax/log_softmax to 1e-12 here:
  softmax      e = exp(x - max), e / fsum(e)
  log-softmax  (x - max) - log(fsum(exp(x - max)))
  standardize  (x - mean) / sqrt(var + 1e-5), population var
  l2           x / max(sqrt(fsum(x^2)), 1e-12)
  minmax       (x - min) / (max - min), 0 where max == min
NaN anywhere in a group makes the group NaN (max is NaN); a group of -inf
under softmax is NaN (-inf - -inf)."""

import math
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "core", "normalize")
sys.path.insert(0, HERE)
from gen_half import ref_narrow  # noqa: E402

OPS = ["softmax", "log-softmax", "standardize", "l2", "minmax"]
AXES = ["-1", "0", "1,2", "", "0,2", "-1,-2"]
AXES_HALF = ["-1", "1,2"]
EPS = {"standardize": 1e-5, "l2": 1e-12}


def axes_name(axes):
    return "all" if axes == "" else axes.replace("-", "m").replace(",", "_")


def op_name(op):
    return op.replace("-", "_")


def group_ref(op, x):
    """op over the list of Python floats x (one group), as a list."""
    if any(math.isnan(v) for v in x):
        return [math.nan] * len(x)
    if op in ("softmax", "log-softmax"):
        m = max(x)
        d = [v - m if not (math.isinf(v) and v == m) else math.nan
             for v in x]
        if any(math.isnan(v) for v in d):
            return [math.nan] * len(x)
        e = [math.exp(v) for v in d]
        s = math.fsum(e)
        if op == "softmax":
            return [v / s for v in e]
        ls = math.log(s)
        return [v - ls for v in d]
    if op == "standardize":
        if any(math.isinf(v) for v in x):
            return [math.nan] * len(x)
        n = len(x)
        mean = math.fsum(x) / n
        var = math.fsum((v - mean) ** 2 for v in x) / n
        d = math.sqrt(var + EPS[op])
        return [(v - mean) / d for v in x]
    if op == "l2":
        nrm = math.sqrt(math.fsum(v * v for v in x))
        d = max(nrm, EPS[op])
        return [v / d for v in x]
    lo, hi = min(x), max(x)
    r = hi - lo
    if r == 0:
        return [0.0] * len(x)
    return [(v - lo) / r for v in x]


def reference(op, a, axes):
    """float64 array of a's shape: op over the axes (NumPy's meaning)."""
    nd = a.ndim
    red = list(range(nd)) if axes == "" else sorted(
        {(int(s) + nd) % nd for s in axes.split(",")})
    kept = [i for i in range(nd) if i not in red]
    t = np.transpose(a.astype(np.float64), kept + red)
    kshape = t.shape[:len(kept)]
    flat = t.reshape(int(np.prod(kshape, dtype=np.int64)), -1)
    out = np.array([group_ref(op, [float(v) for v in row]) for row in flat],
                   dtype=np.float64).reshape(t.shape)
    inv = np.argsort(kept + red)
    return np.ascontiguousarray(np.transpose(out, inv))


def numpy_formula(op, x, axes):
    """The same with NumPy and SciPy, for the cross-check (SciPy's part is
    left out where SciPy is not installed: it checks, it makes no file)."""
    try:
        from scipy import special
    except ImportError:
        special = None
    nd = x.ndim
    ax = tuple(range(nd)) if axes == "" else tuple(
        sorted({(int(s) + nd) % nd for s in axes.split(",")}))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op == "softmax":
            e = np.exp(x - x.max(ax, keepdims=True))
            a = e / e.sum(ax, keepdims=True)
            b = special.softmax(x, axis=ax) if special else a
            return a, b
        if op == "log-softmax":
            m = x.max(ax, keepdims=True)
            a = (x - m) - np.log(np.exp(x - m).sum(ax, keepdims=True))
            return a, special.log_softmax(x, axis=ax) if special else a
        if op == "standardize":
            a = (x - x.mean(ax, keepdims=True)) / np.sqrt(
                x.var(ax, keepdims=True) + EPS[op])
            return a, a
        if op == "l2":
            n = np.sqrt((x * x).sum(ax, keepdims=True))
            a = x / np.maximum(n, EPS[op])
            return a, a
        lo, hi = x.min(ax, keepdims=True), x.max(ax, keepdims=True)
        r = hi - lo
        a = np.where(r == 0, 0.0, (x - lo) / np.where(r == 0, 1.0, r))
        return a, a


def check(op, x, axes, ref):
    for other in numpy_formula(op, x, axes):
        np.testing.assert_allclose(ref, other, rtol=1e-12, atol=1e-300,
                                   equal_nan=True, err_msg=f"{op} {axes}")


def save(name, arr):
    np.save(os.path.join(OUT, name), arr)


def bf16_bits(v32):
    return np.array([ref_narrow(float(v), 8, 7) for v in v32.ravel()],
                    dtype=np.uint16).reshape(v32.shape)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(15)
    shape = (3, 4, 5, 6)
    ins = {}
    ins["float32"] = (rng.standard_normal(shape) * 3).astype(np.float32)
    ins["float64"] = rng.standard_normal(shape) * 3
    ins["float16"] = (rng.standard_normal(shape) * 3).astype(np.float16)
    bits = bf16_bits((rng.standard_normal(shape) * 3).astype(np.float32))
    for dt, a in ins.items():
        save(f"norm_in_{dt}.npy", a)
    save("norm_in_bfloat16.npy", bits)
    vals = dict(ins)
    vals["bfloat16"] = (bits.astype(np.uint32) << 16).view(np.float32)
    for dt, x in vals.items():
        axes_list = AXES_HALF if dt in ("float16", "bfloat16") else AXES
        x64 = x.astype(np.float64)
        for op in OPS:
            for axes in axes_list:
                ref = reference(op, x64, axes)
                check(op, x64, axes, ref)
                save(f"norm_{dt}_{op_name(op)}_{axes_name(axes)}.npy", ref)

    inf, nan = np.inf, np.nan
    special = np.array([
        [0.5, -1.25, 3.0, 2.0, -0.75, 1.5, 0.0, -2.0],
        [-inf] * 8,
        [1.0, 2.0, nan, 0.5, -1.0, 3.0, 2.5, 0.25],
        [1.75] * 8,
        [1.0, inf, 0.0, -1.0, 2.0, 3.0, -2.0, 0.5],
        [0.0] * 8,
        [0.0, -20.0, -50.0, -87.5, -100.0, -103.0, -30.0, -70.0],
        [-inf, 1.0, -inf, 2.0, 0.5, -inf, -1.0, 3.0],
        [3.0, 1.0, 3.0, -2.0, 3.0, 0.0, -1.0, 2.0],
    ], dtype=np.float32)
    save("norm_special_in.npy", special)
    for op in OPS:
        ref = reference(op, special.astype(np.float64), "-1")
        save(f"norm_special_{op_name(op)}.npy", ref)

    wide = rng.uniform(-110, 10, size=(4, 1000)).astype(np.float32)
    save("norm_wide_in.npy", wide)
    for op in ("softmax", "log-softmax"):
        ref = reference(op, wide.astype(np.float64), "-1")
        check(op, wide.astype(np.float64), "-1", ref)
        save(f"norm_wide_{op_name(op)}.npy", ref)


if __name__ == "__main__":
    main()

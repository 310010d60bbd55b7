#!/usr/bin/python3
"""Golden files for the tensorcompare element test (and docs/testing.md).

Run with /usr/bin/python3 from any directory; writes into
tests/data/elements/compare.  Deterministic: values follow formulas.

cases.ini holds one group per case: the actual and the reference file,
the properties, and what NumPy says of the pair (numpy.isclose with the
same tolerances, as numpy.testing.assert_allclose runs it, or for
max-ulp the distance of the sign-magnitude bits): passed, mismatches,
the first mismatch's index and values, the largest abs, rel and ulp
errors, and the sentence tensorcompare writes.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "elements", "compare")

F32 = np.float32


def nxt(x, n=1, dt=F32):
    x = dt(x)
    for _ in range(n):
        x = np.nextafter(x, dt(np.inf))
    return x


def ordered(a):
    """Sign-magnitude bits of a float array as signed integers."""
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    u = a.view(bits).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(8 * a.dtype.itemsize - 1)
    mag = (u & (sign - np.uint64(1))).astype(object)
    return np.where((u & sign) != 0, -mag, mag)


def shortest(x, dt):
    """The fewest %g digits that read back as x in dtype dt (the C side's
    rule), Python's names for nan and inf."""
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if dt.kind != "f":
        return "%.0f" % x
    for p in range(1, 18):
        s = "%.*g" % (p, x)
        y = float(s)
        if (y == x) if dt == np.float64 else (F32(y) == F32(x)):
            return s
    return s


def item(x, dt):
    """An item of dtype dt as tensorcompare writes it: integers in full
    (int64 and uint64 beyond 2^53 too), floats as shortest()."""
    if dt.kind != "f":
        return str(int(x))
    return shortest(x, dt)


def fmt_index(i, shape):
    return "[" + ", ".join(str(int(k)) for k in np.unravel_index(i, shape)) + "]"


def judge(a, e, rtol=1e-7, atol=0.0, max_ulp=-1, equal_nan=True, exact=None):
    """What NumPy says of actual a against expected e."""
    kind = a.dtype.kind
    if exact is None:
        exact = kind != "f"
    if kind == "f":
        ct = F32 if a.dtype.itemsize <= 4 else np.float64
        x, y = a.astype(ct), e.astype(ct)
        same = x == y
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            d = np.where(same, ct(0), np.abs(x - y)).astype(ct)
            rel = np.where(same, ct(0), d / np.abs(y)).astype(ct)
        anynan = np.isnan(x) | np.isnan(y)
        ulp = np.where(anynan | same, 0, np.abs(ordered(a) - ordered(e)))
        if max_ulp >= 0:
            ok = same | (~anynan & (ulp <= max_ulp))
        else:
            ok = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=False) | same
        if equal_nan:
            ok |= np.isnan(x) & np.isnan(y)
    else:
        x, y = a.astype(object), e.astype(object)
        du = np.abs(x - y)
        d = du.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(du == 0, 0.0, d / np.abs(y.astype(np.float64)))
        ulp = du
        if exact:
            ok = du == 0
        else:
            ok = (du == 0) | (d <= atol + rtol * np.abs(y.astype(np.float64)))
    ok = np.asarray(ok, bool)
    r = {"items": a.size, "mismatches": int((~ok).sum()), "passed": bool(ok.all())}
    fin = ~np.isnan(np.asarray(d, np.float64))
    r["max-abs"] = float(np.max(d[fin])) if fin.any() else 0.0
    relf = np.asarray(rel, np.float64)
    r["max-rel"] = float(np.max(relf[~np.isnan(relf)])) if (~np.isnan(relf)).any() else 0.0
    r["max-ulp"] = int(max(ulp.ravel())) if ulp.size else 0
    if not r["passed"]:
        flat = ok.ravel()
        i = int(np.argmin(flat))
        av, ev = a.ravel()[i], e.ravel()[i]
        r["first"] = ",".join(str(int(k)) for k in np.unravel_index(i, a.shape))
        r["actual"] = float(av)
        r["expected"] = float(ev)
        df = np.asarray(d, np.float64).ravel()
        w = int(np.argmax(np.where(np.isnan(df), -1, df))) if r["max-abs"] > 0 else 0
        dt = a.dtype
        if kind == "f" and max_ulp >= 0:
            bound = "beyond max-ulp=%d" % max_ulp
        elif kind != "f" and exact:
            bound = "(compared exactly)"
        else:
            bound = "beyond rtol=%g, atol=%g" % (rtol, atol)
        head = "%d of %d items differ %s; first at %s: %s against %s (abs %s, rel %.3g" % (
            r["mismatches"], a.size, bound, fmt_index(i, a.shape), item(av, dt),
            item(ev, dt), shortest(df[i], dt), float(relf.ravel()[i]))
        if kind == "f" and max_ulp >= 0:
            head += ", ulp %d); worst ulp %d, worst abs %s at %s" % (
                int(ulp.ravel()[i]), r["max-ulp"], shortest(r["max-abs"], dt),
                fmt_index(w, a.shape))
        else:
            head += "); worst abs %s at %s" % (shortest(r["max-abs"], dt), fmt_index(w, a.shape))
        r["text"] = head
    return r


CASES = []


def case(name, a, e, props="", **tol):
    np.save(os.path.join(OUT, "cmp_%s_a.npy" % name), a)
    np.save(os.path.join(OUT, "cmp_%s_e.npy" % name), e)
    r = judge(a, e, **tol) if a.dtype == e.dtype and a.shape == e.shape else None
    CASES.append((name, props, r))


def main():
    os.makedirs(OUT, exist_ok=True)
    base = (np.arange(20, dtype=F32) / F32(7)).reshape(4, 5)
    e = base.copy()
    e[1, 4] *= F32(1 + 3e-4)
    e[2, 3] += F32(5e-4)
    e[3, 0] *= F32(1 + 5e-5)
    case("tol", base, e, "rtol=1e-4 atol=1e-6", rtol=1e-4, atol=1e-6)
    case("equal", base, base.copy())
    one = np.array([1.0, 2.0], F32)
    case("ulp0", np.array([nxt(1.0), 2.0], F32), one, "rtol=0", rtol=0.0)
    case("ulp1", np.array([nxt(1.0), 2.0], F32), one, "max-ulp=1", max_ulp=1)
    case("ulp2", np.array([nxt(1.0, 2), 2.0], F32), one, "max-ulp=1", max_ulp=1)
    # the bound is exact in float32: 0.5 = 0.5 + 0 * 1 and 1 = 0 + 0.5 * 2
    case("atol", np.array([1.5, 1.25, nxt(1.5)], F32), np.ones(3, F32),
         "rtol=0 atol=0.5", rtol=0.0, atol=0.5)
    case("rtol", np.array([3.0, 2.5, nxt(3.0)], F32), np.full(3, 2.0, F32),
         "rtol=0.5", rtol=0.5)
    nan = np.array([np.nan, 1.0, 2.0], F32)
    case("nan", nan, nan.copy())
    case("nanstrict", nan, nan.copy(), "equal-nan=false", equal_nan=False)
    case("nannum", np.array([np.nan, 1.0], F32), np.array([1.0, 1.0], F32))
    infs = np.array([np.inf, -np.inf, 1.0], F32)
    case("inf", infs, infs.copy())
    case("infsign", np.array([np.inf, 1.0], F32), np.array([-np.inf, 1.0], F32))
    case("dtype", np.zeros((2, 3), F32), np.zeros((2, 3), np.float64))
    case("dims", np.zeros((2, 3), F32), np.zeros((3, 2), F32))
    ia = np.array([1, 2, 3], np.int32)
    case("intexact", ia, np.array([1, 2, 4], np.int32))
    case("intatol", ia, np.array([1, 2, 4], np.int32), "atol=1", atol=1.0, exact=False)
    case("uint8", np.array([[0, 255], [7, 9]], np.uint8),
         np.array([[0, 250], [7, 9]], np.uint8))
    # beyond 2^53 a double cannot tell these apart: the sentence must
    big64 = np.array([5, 2 ** 53 + 1, -2 ** 62 - 1], np.int64)
    case("int64big", big64, np.array([5, 2 ** 53, -2 ** 62 - 1], np.int64))
    ubig = np.array([2 ** 64 - 1, 7], np.uint64)
    case("uint64big", ubig, np.array([2 ** 64 - 2, 7], np.uint64))
    d = (np.arange(12, dtype=np.float64) / 3).reshape(3, 4)
    de = d.copy()
    de[2, 1] += 1e-9
    case("f64", d, de, "rtol=1e-12", rtol=1e-12)
    h = np.array([0.5, 1.0, 65504.0], np.float16)
    case("f16", h, np.array([0.5, np.float16(1.0) + np.float16(2 ** -10), 65504.0], np.float16),
         "max-ulp=0", max_ulp=0)
    # crosses runs of 4096 items: the first mismatch in the second run,
    # the worst in the third
    big = (np.arange(3 * 5000, dtype=F32) / F32(3)).reshape(3, 5000)
    be = big.copy()
    be[0, 4500] *= F32(1 + 1e-4)
    be[2, 4000] *= F32(1 + 1e-3)
    case("big", big, be, "rtol=1e-5", rtol=1e-5)

    with open(os.path.join(OUT, "cases.ini"), "w") as f:
        f.write("# written by tests/data/gen/gen_compare.py\n")
        for name, props, r in CASES:
            f.write("\n[%s]\nprops=%s\n" % (name, props))
            if r is None:
                continue
            for k in ("passed", "items", "mismatches", "max-abs", "max-rel", "max-ulp",
                      "first", "actual", "expected", "text"):
                if k in r:
                    v = r[k]
                    if isinstance(v, bool):
                        v = "true" if v else "false"
                    elif isinstance(v, float):
                        v = repr(v)
                    f.write("%s=%s\n" % (k, v))

    # the reference forms: buffer k of a stream of float32 <2, 3> holds
    # 10 k + arange(6); one file per buffer, and the three stacked
    seq = [(F32(10 * k) + np.arange(6, dtype=F32)).reshape(2, 3) for k in range(3)]
    for k, s in enumerate(seq):
        np.save(os.path.join(OUT, "seq_%05d.npy" % k), s)
    np.save(os.path.join(OUT, "seq_stack.npy"), np.stack(seq))
    # docs/testing.md's C example: tensorop ops=mul:2 of arange(6)
    np.save(os.path.join(OUT, "doc_double.npy"), seq[0] * F32(2))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Golden data for tests/core/test_half.c.  Deterministic: run with
/usr/bin/python3 (needs NumPy) from anywhere; writes half_*.npy into
tests/data/core/half.

float16 expectations come from NumPy.  NumPy has no bfloat16, so those come
from integer arithmetic on the float bits, and from exact rational rounding
(round_fraction), which also cross-checks NumPy's float16 results."""

import math
import os
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/core/half, whatever the cwd.
OUT = os.path.join(HERE, "..", "core", "half")


def round_fraction(x, ebits, mbits):
    """Bits (sign excluded) of the binary float with ebits/mbits nearest to
    the finite non-negative rational x, ties to even; infinity on overflow."""
    bias = 2 ** (ebits - 1) - 1
    emin = 1 - bias
    inf = (2 ** ebits - 1) << mbits
    if x == 0:
        return 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    assert Fraction(2) ** e <= x < Fraction(2) ** (e + 1)
    if e < emin:
        e = emin
    r = round(x / Fraction(2) ** (e - mbits))  # Fraction rounds half to even
    if r == 2 ** (mbits + 1):
        r //= 2
        e += 1
    if e > bias:
        return inf
    field = e + bias if r >= 2 ** mbits else 0
    return (field << mbits) | (r & (2 ** mbits - 1))


def ref_narrow(v, ebits, mbits):
    """Python float v -> bits of the ebits/mbits format (NaN: canonical)."""
    sign = (1 << (ebits + mbits)) if math.copysign(1.0, v) < 0 else 0
    if math.isnan(v):
        return sign | ((2 ** ebits - 1) << mbits) | (1 << (mbits - 1))
    if math.isinf(v):
        return sign | ((2 ** ebits - 1) << mbits)
    return sign | round_fraction(abs(Fraction(v)), ebits, mbits)


def bf16_from_f32_bits(u):
    """The integer form of round-to-nearest-even on float32 bits."""
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):
        return (u >> 16) | 0x40
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def save(name, arr):
    np.save(os.path.join(OUT, name), arr)


def f32_from_bits(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def f64_from_bits(bits):
    return np.array(bits, dtype=np.uint64).view(np.float64)


def f16_inputs():
    # Every positive finite float16, the midpoint after each (the last one,
    # 65520, is the overflow threshold) and one float32 ulp either side.
    h = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)
    lo = h.astype(np.float64)
    hi = np.append(lo[1:], 65536.0)
    mid = (lo + hi) / 2  # exact: a float16 midpoint needs 12 bits
    mid32 = mid.astype(np.float32)
    assert np.all(mid32.astype(np.float64) == mid)
    inf32 = np.float32(np.inf)
    specials_bits = [
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  # zeros, infinities
        0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,  # NaN payloads
        0x7FA00000, 0x7F802000, 0x7F801FFF, 0x7FFFFFFF,
        0x00000001, 0x007FFFFF, 0x00800000, 0x807FFFFF,  # float32 subnormals
        0x7F7FFFFF, 0xFF7FFFFF,                          # float32 max
    ]
    extra = [65519.0, 65519.99609375, 65520.0, 65536.0, 1e5, 1e10, 3e38,
             2.0 ** -25, 2.0 ** -26, 3 * 2.0 ** -26, 2.0 ** -14,
             2.0 ** -14 - 2.0 ** -25, 2.0 ** -14 - 2.0 ** -26, 1 / 3, 0.1]
    extra = np.array(extra + [-v for v in extra], dtype=np.float32)
    return np.concatenate([
        h.astype(np.float32), mid32,
        np.nextafter(mid32, -inf32), np.nextafter(mid32, inf32),
        f32_from_bits(specials_bits), extra])


def f64_f16_inputs():
    h = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)
    lo = h.astype(np.float64)
    hi = np.append(lo[1:], 65536.0)
    mid = (lo + hi) / 2
    specials_bits = [
        0x0000000000000000, 0x8000000000000000,
        0x7FF0000000000000, 0xFFF0000000000000,
        0x7FF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
        0x7FF0000000000400, 0x7FFFFFFFFFFFFFFF,
        0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF,
    ]
    extra = [65519.999999, 65520.0, 65536.0, 1e300, 3e38, 2.0 ** -25,
             2.0 ** -25 + 2.0 ** -60, 2.0 ** -26, 1e-300, 1 / 3, 0.1]
    extra = np.array(extra + [-v for v in extra])
    return np.concatenate([
        mid, np.nextafter(mid, -np.inf), np.nextafter(mid, np.inf),
        f64_from_bits(specials_bits), extra])


def bf16_crafted():
    # Positive bfloat16 patterns: every exponent with a few significands.
    out = []
    for e in range(0, 255):
        for m in (0, 1, 2, 3, 0x3F, 0x40, 0x41, 0x7E, 0x7F):
            out.append((e << 7) | m)
    return out


def main():
    with np.errstate(all="ignore"):
        # float16 -> float32, all 65536 patterns.
        allh = np.arange(65536, dtype=np.uint32).astype(np.uint16)
        save("half_f16_to_f32.npy", allh.view(np.float16).astype(np.float32))

        x32 = f16_inputs()
        y = x32.astype(np.float16).view(np.uint16)
        for v, got in zip(x32.tolist(), y.tolist()):
            want = ref_narrow(v, 5, 10)
            assert got == want or (math.isnan(v) and (got & 0x7FFF) > 0x7C00), \
                (v, hex(got), hex(want))
        save("half_f32_in.npy", x32)
        save("half_f32_to_f16.npy", y)

        x64 = f64_f16_inputs()
        y = x64.astype(np.float16).view(np.uint16)
        for v, got in zip(x64.tolist(), y.tolist()):
            want = ref_narrow(v, 5, 10)
            assert got == want or (math.isnan(v) and (got & 0x7FFF) > 0x7C00), \
                (v, hex(got), hex(want))
        save("half_f64_in.npy", x64)
        save("half_f64_to_f16.npy", y)

        # bfloat16 -> float32: the 16 bits become the top half.
        save("half_bf16_to_f32.npy",
             np.array([b << 16 for b in range(65536)], dtype=np.uint32))

        # float32 -> bfloat16 on crafted cases around every midpoint.
        bits = []
        for i, b in enumerate(bf16_crafted()):
            s = 0x80000000 if i % 2 else 0
            u = b << 16
            mid = u + 0x8000
            bits += [s | u, s | (u + 1), s | mid, s | (mid - 1), s | (mid + 1)]
            if u + 0xFFFF < 0x7F800000:
                bits.append(s | (u + 0xFFFF))
        bits += [0x7F800000, 0xFF800000, 0x7F800001, 0xFF800001, 0x7FFFFFFF,
                 0x7FC00000, 0x7F80FFFF, 0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF,
                 0x7F7E8000, 0x00000001, 0x00008000, 0x00018000, 0x80000000]
        y = [bf16_from_f32_bits(u) for u in bits]
        x = f32_from_bits(bits)
        for v, u, want in zip(x.tolist(), bits, y):
            if not math.isnan(v):
                assert want == ref_narrow(v, 8, 7), (hex(u), hex(want))
        save("half_bf16_f32_in.npy", x)
        save("half_f32_to_bf16.npy", np.array(y, dtype=np.uint16))

        # float64 -> bfloat16: the same midpoints one float64 ulp either
        # side (rounding through float32 first would land on the tie), and
        # values beyond float32's range.
        vals = []
        for i, b in enumerate(bf16_crafted()):
            u = (b << 16) + 0x8000
            mid = float(f32_from_bits([u])[0])
            if math.isinf(mid) or math.isnan(mid):
                continue
            sgn = -1.0 if i % 2 else 1.0
            vals += [sgn * mid, sgn * np.nextafter(mid, -np.inf),
                     sgn * np.nextafter(mid, np.inf)]
        vals += [3.3961775292304957e38, 3.3961775292304958e38, 3.4e38,
                 3.5e38, 1e39, 1e300, -1e300, 2.0 ** -133, 2.0 ** -134,
                 2.0 ** -134 + 2.0 ** -180, 2.0 ** -135, 1e-300, 5e-324,
                 0.0, -0.0, math.inf, -math.inf, 1 / 3, 0.1]
        x = np.array(vals, dtype=np.float64)
        x = np.concatenate([x, f64_from_bits(
            [0x7FF0000000000001, 0xFFF8000000000000, 0x7FF00000FFFFFFFF])])
        y = [ref_narrow(v, 8, 7) for v in x.tolist()]
        save("half_bf16_f64_in.npy", x)
        save("half_f64_to_bf16.npy", np.array(y, dtype=np.uint16))


if __name__ == "__main__":
    main()

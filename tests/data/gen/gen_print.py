#!/usr/bin/python3
"""Golden data for tests/core/test_print.c, computed by NumPy.

Each case is a flat storage array, a strided view of it (dims, strides and
offset in items, as core/view.h has them) and print options. NumPy builds
the same view with as_strided and prints it with numpy.array2string; the
test prints the view with tn_print_array and must produce the same text.
The statistics NumPy computes over the view (nanmin, nanmax, nanmean, the
NaN count) check tn_stats_compute.

Writes tests/core/print_golden.h (a C header, so the core tests need no .npy
reader). Deterministic (fixed seeds): run with /usr/bin/python3 from
anywhere.
"""

import os
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "core", "print_golden.h")

ENUM = {
    "bool": "TN_BOOL", "int8": "TN_INT8", "uint8": "TN_UINT8",
    "int16": "TN_INT16", "uint16": "TN_UINT16", "int32": "TN_INT32",
    "uint32": "TN_UINT32", "int64": "TN_INT64", "uint64": "TN_UINT64",
    "float16": "TN_FLOAT16", "float32": "TN_FLOAT32", "float64": "TN_FLOAT64",
}
CTYPE = {
    "bool": "uint8_t", "int8": "int8_t", "uint8": "uint8_t",
    "int16": "int16_t", "uint16": "uint16_t", "int32": "int32_t",
    "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t",
    "float16": "uint16_t", "float32": "float", "float64": "double",
}

CASES = []  # (name, storage, dims, strides, offset, threshold, edge, width)


def dense(name, a, threshold=1000, edge=3, width=75):
    a = np.array(a, order="C")  # ascontiguousarray would make rank 0 rank 1
    strides = [s // a.itemsize for s in a.strides]
    CASES.append((name, a.reshape(-1), a.shape, strides, 0, threshold, edge,
                  width))


def view(name, storage, dims, strides, offset=0, threshold=1000, edge=3,
         width=75):
    CASES.append((name, np.ascontiguousarray(storage).reshape(-1),
                  tuple(dims), list(strides), offset, threshold, edge, width))


nan, inf = np.nan, np.inf

# integers
dense("int32_arange_2x3", np.arange(6, dtype=np.int32).reshape(2, 3))
dense("int8_arange_2x3", np.arange(6, dtype=np.int8).reshape(2, 3))
dense("int8_extremes", np.array([-128, 0, 127, -1], dtype=np.int8))
dense("uint8_extremes", np.array([0, 255, 7], dtype=np.uint8))
dense("int16_3d", (np.arange(24, dtype=np.int16) - 12).reshape(2, 3, 4))
dense("uint16_col", np.array([[1], [65535]], dtype=np.uint16))
dense("int32_mixed_width", np.array([[-5, 100], [3, -20000]], dtype=np.int32))
dense("uint32_max", np.array([4294967295, 0], dtype=np.uint32))
dense("int64_extremes", np.array([-2**63, 2**63 - 1, 0], dtype=np.int64))
dense("uint64_extremes", np.array([2**64 - 1, 0, 1], dtype=np.uint64))
dense("int64_wrap", np.arange(30, dtype=np.int64) * 1000003)
dense("int32_rank4", np.arange(16, dtype=np.int32).reshape(2, 2, 2, 2))

# bools
dense("bool_row", np.array([True, False, True]))
dense("bool_2x2", np.array([[False, False], [True, False]]))
dense("bool_rank0_true", np.array(True))
dense("bool_rank0_false", np.array(False))

# floats: integers as floats, fractions, non-finite
dense("float32_arange_2x3", np.arange(6, dtype=np.float32).reshape(2, 3))
dense("float64_arange_2x3", np.arange(6, dtype=np.float64).reshape(2, 3))
dense("float64_halves", np.array([0.5, 1.25]))
dense("float64_halves_reversed", np.array([1.25, 0.5]))
dense("float64_thirds", np.array([1 / 3, 2 / 3, -1 / 7]))
dense("float64_negative_zero", np.array([-0.0, 1.0, 0.0]))
dense("float64_nonfinite", np.array([nan, 1.5, -inf, inf]))
dense("float64_nan_only", np.array([nan, nan]))
dense("float64_nan_neginf", np.array([nan, -inf]))
dense("float64_inf_only", np.array([inf, inf]))
dense("float64_nan_wide", np.array([nan, 12345.678, -1.0]))
dense("float64_round_8_digits", np.array([0.001953125, 0.005859375, 1.0]))
dense("float64_long_fraction", np.array([12345678.123456789, 20000000.5]))
dense("float64_sci_large", np.array([1e8, 1.5]))
dense("float64_sci_small", np.array([1e-5, 1.0]))
dense("float64_sci_ratio", np.array([0.001, 1.5]))
dense("float64_sci_wide_exponent", np.array([1e-300, 1e300, -2.5]))
dense("float64_sci_denormal", np.array([5e-324, 1.0]))
dense("float64_sci_nonfinite", np.array([1e10, nan, -inf, 3.25]))
dense("float64_sci_carry", np.array([9.9999999999e5, 1e-3]))
dense("float64_sci_zero", np.array([0.0, 1e-7, -0.0]))
dense("float64_zeros", np.zeros((2, 2)))
dense("float32_tenths", np.array([0.1, 0.2, 0.3], dtype=np.float32))
dense("float32_third", np.array([1 / 3, -2 / 3], dtype=np.float32))
dense("float32_sci_extra_digits",
      np.array([0.1, 1.2345678e-5], dtype=np.float32))
dense("float32_limit", np.array([1e-4, 1.0], dtype=np.float32))
dense("float32_big", np.array([16777216.0, 3.0e38, -1.0], dtype=np.float32))
dense("float16_values", np.array([0.1, 0.2, 1000.0, 65504.0],
                                  dtype=np.float16))
dense("float16_small", np.array([0.3, 2.5, -7.0], dtype=np.float16))
dense("float16_subnormal", np.array([6e-8, 1.0], dtype=np.float16))
dense("float16_nonfinite", np.array([nan, -inf, 0.5], dtype=np.float16))
dense("float64_wrap_40", np.arange(40.0))
dense("float64_wrap_2d", np.arange(60.0).reshape(2, 30) / 7)

# a power of two has half the gap below that it has above: its shortest
# digits may lie above it ("0.01563"); integers print every digit even
# where fewer would read back ("4112.", not "4110.")
dense("float16_power_of_two", np.array(0.015625, dtype=np.float16))
dense("float32_power_of_two", np.array(2.0 ** -96, dtype=np.float32))
dense("float16_integers", np.array([4112.0, 4128.0, -2050.0],
                                    dtype=np.float16))
dense("float32_integer", np.array(64311768.0, dtype=np.float32))

# NumPy divides max by min in the array's dtype: pairs whose ratio is above
# 1000 in float64 but not once rounded to the dtype (or the reverse)
def ratio_edge(dt, seed):
    r = np.random.default_rng(seed)
    while True:
        m = dt(r.uniform(0.5, 2))
        mx = dt(float(m) * 1000)
        for c in (mx, np.nextafter(mx, dt(np.inf)), np.nextafter(mx, dt(0))):
            if (float(c) / float(m) > 1000) != (c / m > 1000):
                return np.array([m, c])


dense("float32_ratio_rounded", ratio_edge(np.float32, 1))
dense("float16_ratio_rounded", ratio_edge(np.float16, 2))

# rank 0 and zero extents
dense("float64_rank0", np.array(3.5))
dense("float32_rank0_int", np.array(2.0, dtype=np.float32))
dense("float64_rank0_nan", np.array(nan))
dense("int32_rank0", np.array(-7, dtype=np.int32))
dense("float32_empty", np.zeros(0, dtype=np.float32))
dense("int32_empty_3d", np.zeros((2, 0, 3), dtype=np.int32))

# summarised (one case at NumPy's default threshold; the others lower it
# to keep this header small)
dense("int32_summary_1d", np.arange(2000, dtype=np.int32))
dense("float64_summary_2d", np.arange(144.0).reshape(12, 12) / 3,
      threshold=100)
dense("int16_summary_3d", np.arange(343, dtype=np.int16).reshape(7, 7, 7),
      threshold=300)
dense("uint8_summary_short_axis",
      (np.arange(120) * 3 % 256).astype(np.uint8).reshape(3, 40),
      threshold=100)
dense("float32_summary_nan",
      np.where(np.arange(150) % 7 == 0, nan,
               np.arange(150) * 0.25).astype(np.float32), threshold=100)
dense("float64_summary_scientific", (np.arange(150.0) * 1e6).reshape(3, 50),
      threshold=100)
dense("float64_summary_corner_format",
      np.concatenate([[0.5, 0.25, 0.125], np.full(100, 1e9), [2, 3, 4]]),
      threshold=100)
dense("int32_threshold5_edge1", np.arange(12, dtype=np.int32).reshape(3, 4),
      threshold=5, edge=1)
dense("int32_threshold0_edge2", np.arange(10, dtype=np.int32), threshold=0,
      edge=2)
dense("float64_linewidth20", np.arange(10.0) / 4, width=20)

# strided views of a storage
s12 = np.arange(12, dtype=np.float32)
view("float32_transposed", s12, (4, 3), (1, 4))
view("int32_transposed", np.arange(12, dtype=np.int32), (4, 3), (1, 4))
view("float64_step_slice", np.arange(10.0) * 1.5, (3,), (3,), offset=1)
view("int16_offset_rows", np.arange(20, dtype=np.int16), (2, 3), (5, 2),
     offset=4)
view("float32_broadcast", np.array([1.5, -2.0, 3.0], dtype=np.float32),
     (2, 3), (0, 1))
view("uint8_rank3_permuted", np.arange(24, dtype=np.uint8), (4, 2, 3),
     (1, 12, 4))
view("float64_summary_transposed", np.arange(100.0) * 25, (10, 10), (1, 10),
     threshold=50)
view("bool_stride", np.array([True, False, False, True, True, False]), (3,),
     (2,))

# random floats of several scales, to catch digit generation slips
rng = np.random.default_rng(20240607)
for i in range(24):
    dt = [np.float64, np.float32, np.float16][i % 3]
    lo, hi = (-4, 4) if dt is np.float16 else (-6, 7)
    scale = 10.0 ** rng.integers(lo, hi)
    a = (rng.standard_normal(rng.integers(3, 9)) * scale).astype(dt)
    dense("random_%s_%d" % (np.dtype(dt).name, i), a)
for i in range(6):
    a = rng.integers(-10**6, 10**6, size=(3, 4)).astype(np.int32)
    dense("random_int32_%d" % i, a)


def c_string(s):
    out = '"'
    for ch in s:
        if ch == "\n":
            out += '\\n"\n    "'
        elif ch in '\\"':
            out += "\\" + ch
        else:
            out += ch
    return out + '"'


def c_items(a):
    name = a.dtype.name
    if name == "bool":
        return ["%d" % int(x) for x in a]
    if name == "float16":
        return ["0x%04x" % int(x) for x in a.view(np.uint16)]
    if name in ("float32", "float64"):
        suf = "f" if name == "float32" else ""
        out = []
        for x in a:
            x = float(x)
            if np.isnan(x):
                out.append("NAN")
            elif np.isinf(x):
                out.append("INFINITY" if x > 0 else "-INFINITY")
            else:
                out.append(x.hex() + suf)
        return out
    if name == "int64":
        return ["INT64_MIN" if int(x) == -2**63 else "INT64_C(%d)" % int(x)
                for x in a]
    if name == "uint64":
        return ["UINT64_C(%d)" % int(x) for x in a]
    return ["%d" % int(x) for x in a]


def c_double(x):
    if np.isnan(x):
        return "NAN"
    if np.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return float(x).hex()


def main():
    lines = [
        "/* Generated by tests/data/gen/gen_print.py with NumPy %s; do not edit."
        " */" % np.__version__,
        "#ifndef PRINT_GOLDEN_H",
        "#define PRINT_GOLDEN_H",
        "",
        "#include <math.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        '#include "core/dtype.h"',
        "",
        "/* A view (dims, strides, offset in items) of the flat storage data,",
        " * numpy.array2string of it with the given options, and NumPy's",
        " * nanmin/nanmax/nanmean and NaN count over it (count 0: no stats). */",
        "typedef struct {",
        "  const char *name;",
        "  tn_dtype dtype;",
        "  int rank;",
        "  int64_t dims[8], strides[8], offset;",
        "  int64_t threshold, edgeitems, linewidth;",
        "  const void *data;",
        "  size_t nitems;",
        "  const char *expected;",
        "  int64_t count, nan_count;",
        "  double min, max, mean;",
        "} PrintGolden;",
        "",
    ]
    entries = []
    for i, (name, storage, dims, strides, offset, thr, edge, width) in \
            enumerate(CASES):
        item = storage.itemsize
        v = as_strided(storage[offset:] if storage.size else storage,
                       shape=dims, strides=[s * item for s in strides],
                       writeable=False)
        text = np.array2string(v, threshold=thr, edgeitems=edge,
                               max_line_width=width)
        items = c_items(storage)
        lines.append("static const %s print_data_%d[] = {"
                     % (CTYPE[storage.dtype.name], i))
        for j in range(0, len(items), 6):
            lines.append("  " + ", ".join(items[j:j + 6]) + ",")
        if not items:
            lines.append("  0,")
        lines.append("};")
        count = v.size
        if count:
            f = v.astype(np.float64)
            nans = int(np.isnan(f).sum())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                mn, mx, mean = np.nanmin(f), np.nanmax(f), np.nanmean(f)
        else:
            nans, mn, mx, mean = 0, 0.0, 0.0, 0.0
        pad = list(dims) + [0] * (8 - len(dims))
        spad = list(strides) + [0] * (8 - len(strides))
        entries.append(
            "  { \"%s\", %s, %d,\n    { %s },\n    { %s }, %d,\n"
            "    %d, %d, %d, print_data_%d, %d,\n    %s,\n"
            "    %d, %d, %s, %s, %s },"
            % (name, ENUM[storage.dtype.name], len(dims),
               ", ".join(str(d) for d in pad),
               ", ".join(str(s) for s in spad), offset, thr, edge, width, i,
               storage.size, c_string(text), count, nans, c_double(mn),
               c_double(mx), c_double(mean)))
    lines.append("")
    lines.append("static const PrintGolden print_goldens[] = {")
    lines.extend(entries)
    lines.append("};")
    lines.append("")
    lines.append("#endif")
    with open(OUT, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

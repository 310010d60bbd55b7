#!/usr/bin/python3
"""Golden data for tests/core/test_view.c, computed by NumPy.

Each case starts from arange(count).reshape(dims) and applies a chain of
view operations written as text ("permute 3 1 0 2; slice 1 -1 0 2"). NumPy
runs the same chain; the values of the result, read row-major, are the
storage indices the C view must reach, in order. A chain NumPy rejects
records the index of the failing operation instead.

Writes tests/core/view_golden.h (a C header, so the core tests need no .npy
reader). Deterministic: run with /usr/bin/python3 from anywhere.
"""

import os

import numpy as np

AXIS_ERROR = getattr(getattr(np, "exceptions", np), "AxisError")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "core", "view_golden.h")

A = (2, 3, 4, 5)
R8 = (2, 1, 3, 1, 2, 2, 1, 2)

# (name, source dims, chain)
CASES = [
    ("identity", A, ""),
    ("transpose", A, "transpose"),
    ("permute", A, "permute 3 1 0 2"),
    ("permute_negative_axes", A, "permute -1 0 -2 1"),
    ("slice_negative_start_clamped_stop", A, "slice 2 -3 10 1"),
    ("slice_negative_stop", A, "slice -1 0 -2 1"),
    ("slice_step2", A, "slice 3 0 5 2"),
    ("slice_step3", A, "slice 3 1 5 3"),
    ("slice_step3_axis1", A, "slice 1 -100 100 3"),
    ("slice_empty", A, "slice 0 1 1 1"),
    ("slice_start_past_end", A, "slice 2 5 9 1"),
    ("slice_reversed_bounds", A, "slice 1 2 1 1"),
    ("select_last", A, "select 1 -1"),
    ("select_twice", A, "select 0 1; select -1 2"),
    ("reshape_infer", A, "reshape 6 -1"),
    ("reshape_flat", A, "reshape -1"),
    ("reshape_after_leading_slice", A, "slice 0 1 2 1; reshape 3 -1 5"),
    ("reshape_of_transpose_fails", A, "transpose; reshape 120"),
    ("reshape_of_step_slice_fails", A, "slice 3 0 5 2; reshape -1"),
    ("reshape_empty_ambiguous_fails", A, "slice 0 0 0 1; reshape 0 -1"),
    ("slice_transpose_permute", A,
     "slice 1 0 3 2; transpose; permute 2 0 3 1"),
    ("expand_three", A, "expand 0; expand -1; expand 2"),
    ("select_expand_broadcast", A, "select 2 0; expand 1; broadcast 2 6 3 5"),
    ("broadcast_new_axes", A, "slice 3 0 1 1; broadcast 3 2 3 4 7"),
    ("broadcast_lower_rank_fails", A, "broadcast 4 5"),
    ("broadcast_mismatch_fails", A, "broadcast 2 3 4 6"),
    ("squeeze_fails", A, "squeeze 0"),
    ("squeeze_then_transpose", A, "slice 0 1 2 1; squeeze 0; transpose"),
    ("permute_repeat_fails", A, "permute 0 0 1 2"),
    ("select_out_of_range_fails", A, "select 1 3"),
    ("long_chain", A,
     "permute 2 3 0 1; slice 0 -3 100 2; slice 3 0 1 1; squeeze 3; "
     "expand 0; broadcast 2 2 5 2; transpose"),
    ("chain_select_broadcast", A,
     "transpose; slice 2 1 4 2; select 0 -1; permute 2 0 1; "
     "expand 0; broadcast 2 4 3 2"),
    ("dense_after_select_reshape", A, "select 0 1; reshape 4 3 5; transpose"),
    ("rank0_identity", (), ""),
    ("rank0_expand_broadcast", (), "expand 0; expand 0; broadcast 3 2"),
    ("rank0_reshape", (), "reshape 1 1 1"),
    ("rank0_reshape_infer", (), "reshape -1"),
    ("rank0_broadcast", (), "broadcast 4"),
    ("rank0_transpose_fails", (), "transpose"),
    ("rank0_select_fails", (), "select 0 0"),
    ("zero_identity", (3, 0, 4), ""),
    ("zero_transpose_reshape", (3, 0, 4), "permute 1 2 0; reshape 4 0 3"),
    ("zero_reshape_ambiguous_fails", (3, 0, 4), "transpose; reshape 0 -1"),
    ("zero_slice_broadcast", (3, 0, 4), "slice 2 1 3 1; broadcast 2 3 0 2"),
    ("zero_select", (3, 0, 4), "select 0 1"),
    ("zero_select_fails", (3, 0, 4), "select 1 0"),
    ("rank8_identity", R8, ""),
    ("rank8_reverse", R8, "permute 7 6 5 4 3 2 1 0"),
    ("rank8_squeeze_slice", R8,
     "squeeze 1; squeeze 2; squeeze -2; transpose; slice 0 1 2 1"),
    ("rank8_slice_permute", R8,
     "slice 2 0 3 2; permute 2 0 1 3 4 5 7 6; select 5 1"),
    ("rank8_reshape_fails", R8, "slice 2 0 3 2; reshape -1"),
    ("rank8_broadcast", R8, "broadcast 2 2 3 3 2 2 2 2"),
    ("vector_step3", (10,), "slice 0 -100 100 3"),
    ("vector_broadcast", (10,), "broadcast 3 10; transpose"),
    ("vector_expand_transpose", (10,), "expand 0; transpose"),
    ("vector_transpose_fails", (10,), "transpose"),
    ("vector_step_broadcast", (10,), "slice 0 1 10 4; expand 1; broadcast 3 5"),
    # Large enough to cross the 32-item cache tiles at every item size.
    ("tile_transpose", (40, 70), "transpose"),
    ("tile_step_transpose", (40, 70), "slice 0 1 40 3; transpose"),
    ("tile_permute_201", (3, 20, 33), "permute 2 0 1"),
    ("tile_permute_021", (3, 20, 33), "permute 0 2 1"),
    ("tile_permute_210", (3, 20, 33), "permute 2 1 0"),
    ("tile_transpose_slice", (5, 130), "transpose; slice 1 0 5 2"),
    ("tile_broadcast_column", (70,), "expand 1; broadcast 70 33"),
]


def apply(a, op, args):
    if op == "permute":
        return np.transpose(a, args)
    if op == "transpose":
        return np.swapaxes(a, -1, -2)
    if op == "slice":
        axis, start, stop, step = args
        idx = [slice(None)] * a.ndim
        idx[axis] = slice(start, stop, step)
        if not -a.ndim <= axis < a.ndim:
            raise IndexError("axis")
        return a[tuple(idx)]
    if op == "select":
        axis, index = args
        if not -a.ndim <= axis < a.ndim:
            raise IndexError("axis")
        idx = [slice(None)] * a.ndim
        idx[axis] = index
        return a[tuple(idx)]
    if op == "reshape":
        # Our reshape relabels dense storage and never copies.
        if not a.flags.c_contiguous:
            raise ValueError("not contiguous")
        r = a.reshape(args)
        assert np.shares_memory(r, a) or a.size == 0
        return r
    if op == "expand":
        return np.expand_dims(a, args[0])
    if op == "squeeze":
        return np.squeeze(a, args[0])
    if op == "broadcast":
        return np.broadcast_to(a, args)
    raise SystemExit("unknown op " + op)


def run(dims, chain):
    a = np.arange(int(np.prod(dims, dtype=np.int64)), dtype=np.int64)
    a = a.reshape(dims)
    ops = [s.split() for s in chain.split(";") if s.strip()]
    for i, (op, *args) in enumerate(ops):
        try:
            a = apply(a, op, [int(x) for x in args])
        except (ValueError, IndexError, AXIS_ERROR):
            return i, None
    return -1, a


def carray(vals, wrap=False):
    if not len(vals):
        return "{ 0 }"
    items = [str(int(x)) for x in vals]
    if not wrap:
        return "{ " + ", ".join(items) + " }"
    lines = [", ".join(items[i:i + 12]) for i in range(0, len(items), 12)]
    return "{\n  " + ",\n  ".join(lines) + "\n}"


def main():
    out = []
    rows = []
    for n, (name, dims, chain) in enumerate(CASES):
        fail_at, a = run(dims, chain)
        if a is None:
            rows.append('  { "%s", %d, %s, "%s", %d, 0, { 0 }, false, 0, '
                        "-1, NULL },"
                        % (name, len(dims), carray(dims), chain, fail_at))
            continue
        vals = a.ravel(order="C")
        reach = int(vals.max()) if vals.size else -1
        out.append("static const int64_t view_golden_%d[] = %s;"
                   % (n, carray(vals, True)))
        rows.append('  { "%s", %d, %s, "%s", -1, %d, %s, %s, %d, %d, '
                    "view_golden_%d },"
                    % (name, len(dims), carray(dims), chain, a.ndim,
                       carray(a.shape), "true" if a.flags.c_contiguous
                       else "false", vals.size, reach, n))
    with open(OUT, "w") as f:
        f.write("/* Generated by tests/data/gen/gen_views.py (NumPy); "
                "do not edit. */\n")
        f.write("""#ifndef VIEW_GOLDEN_H
#define VIEW_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Source: arange(count) reshaped to src_dims. fail_at: index of the op
 * that must fail, or -1. values: the storage indices the result reads,
 * row-major; reach: the largest of them (-1 when empty). */
typedef struct {
  const char *name;
  int src_rank;
  int64_t src_dims[8];
  const char *ops;
  int fail_at;
  int rank;
  int64_t dims[8];
  bool dense;
  int64_t count;
  int64_t reach;
  const int64_t *values;
} ViewGolden;

""")
        for line in out:
            f.write(line + "\n")
        f.write("\nstatic const ViewGolden view_golden[] = {\n")
        for r in rows:
            f.write(r + "\n")
        f.write("};\n\n#endif\n")


if __name__ == "__main__":
    main()

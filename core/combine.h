/* Elementwise ops between tensors: two operands (three for where), each
 * of its own dims, broadcast by NumPy's rule, read through views (any
 * strides, 0 where a view broadcasts), into one dense output.
 *
 * Ops and types.  Every operand has the same dtype (where: the condition
 * is bool, then and else share theirs); nothing promotes.
 *   add sub mul div pow mod min max   any dtype but bool; the arithmetic
 *                                     of the steps of core/ewise.h, from
 *                                     the same kernels: integers wrap,
 *                                     div is floor division and mod takes
 *                                     the divisor's sign, x/0 and x%0 are
 *                                     0 for integers, float16/bfloat16
 *                                     computed in float32 and rounded
 *                                     once; an integer raised to a
 *                                     negative power is 1/x^-k truncated
 *                                     toward 0 (1 for 1, +-1 for -1, else
 *                                     0), where NumPy raises an error
 *   eq ne lt le gt ge                 any dtype; bool output; NaN compares
 *                                     false but for ne, as NumPy
 *   and or xor                        bool and integer dtypes; bitwise
 *   where                             np.where (cond, then, else)
 * The output has the operands' dtype, bool for the comparisons, then's
 * for where.  Folds over more operands, (a op b) op c, are the caller's:
 * one plan per step, the later ones in place (tn_combine_in_place_ok).
 *
 * Running.  Output items are independent and the work is split across
 * the pool at borders that depend on the item count alone (core/
 * parallel.h), so every thread count gives the same bits.  Operands of
 * the output's dims and dense, and scalars (every axis broadcast), run as
 * one straight kernel per chunk; an operand that repeats along the last
 * axis only (<3> against <1080, 1920, 3>) is read from a tile in cache;
 * any other operand is gathered into blocks. */
#ifndef TN_COMBINE_H
#define TN_COMBINE_H

#include <stdbool.h>
#include <stdint.h>

#include "view.h"

#define TN_COMBINE_FOREACH(X)                                                  \
  X (ADD, add)                                                                 \
  X (SUB, sub)                                                                 \
  X (MUL, mul)                                                                 \
  X (DIV, div)                                                                 \
  X (POW, pow)                                                                 \
  X (MOD, mod)                                                                 \
  X (MIN, min)                                                                 \
  X (MAX, max)                                                                 \
  X (EQ, eq)                                                                   \
  X (NE, ne)                                                                   \
  X (LT, lt)                                                                   \
  X (LE, le)                                                                   \
  X (GT, gt)                                                                   \
  X (GE, ge)                                                                   \
  X (AND, and)                                                                 \
  X (OR, or)                                                                   \
  X (XOR, xor)                                                                 \
  X (WHERE, where)

#define TN_COMBINE_ENUM(E, name) TN_COMBINE_##E,
typedef enum {
  TN_COMBINE_FOREACH (TN_COMBINE_ENUM) TN_COMBINE_NOPS
} tn_combine_op;
#undef TN_COMBINE_ENUM

typedef struct tn_combine tn_combine;

/* Most operands tn_combine_check takes for a fold. */
#define TN_COMBINE_MAX_INPUTS 64

/* "add", ... */
const char *tn_combine_op_name (tn_combine_op op);
/* Operands of one plan: 3 for where, else 2. */
int tn_combine_arity (tn_combine_op op);
/* Whether the op folds over more than two operands (arithmetic, and, or,
 * xor): the same result dtype as its operands. */
bool tn_combine_folds (tn_combine_op op);

/* Checks n operands (2 or more for a fold, else tn_combine_arity) of
 * dtypes dt[k] and dims dims[k] (rank ranks[k]); names[k] names each in
 * messages ("operand 0" when names is NULL).  Fills the broadcast dims
 * (folded left to right) and the output dtype; -1 with a message, *bad
 * (if not NULL) the operand at fault: dims that do not broadcast give
 * tn_shape_broadcast's message (both shapes and the axis). */
int tn_combine_check (tn_combine_op op, int n, const tn_dtype *dt,
    const int64_t *const *dims, const int *ranks, const char *const *names,
    int64_t *out_dims, int *out_rank, tn_dtype *out_dtype, int *bad, tn_err *e);

/* A plan for tn_combine_arity (op) operands laid out as the views say
 * (dtype, dims, strides and offset in items, as tn_view_check accepts
 * them); the output is dense, of the broadcast dims.  Allocates only the
 * plan; runs the kernels of the CPU features allowed now. */
int tn_combine_compile (
    tn_combine_op op, const tn_view *ops, tn_combine **out, tn_err *e);
void tn_combine_free (tn_combine *p);

tn_dtype tn_combine_out_dtype (const tn_combine *p);
int64_t tn_combine_count (const tn_combine *p);
/* The output dims. */
int tn_combine_rank (const tn_combine *p);
const int64_t *tn_combine_dims (const tn_combine *p);
/* dst may be operand 0's storage: that operand is dense at offset 0 with
 * the output's dims and dtype, and the op is no where; or the output is
 * empty. */
bool tn_combine_in_place_ok (const tn_combine *p);

/* Runs from the storage bases[k] of the views into the dense dst, on up
 * to nthreads threads (0: every core).  dst overlaps no operand, or is
 * bases[0] when tn_combine_in_place_ok.  A plan is only read: several
 * threads may run it at once. */
void tn_combine_run (
    const tn_combine *p, void *dst, const void *const *bases, int nthreads);

#endif

/* Reductions along axes: sum, mean, prod, min, max, argmin, argmax, l2,
 * var and std, deterministic to the bit.  Strided views (permuted,
 * sliced, broadcast) are read where they are; a dense copy is made first
 * only when no output's reduced items are one contiguous run and the last
 * kept axis is not contiguous, or is narrower than 16 items while the
 * reduced rows are not dense (core/reduce.c, the plan).
 *
 * Result dtypes (tn_reduce_dtype): sum and prod of bool and signed ints
 * give int64, of unsigned ints uint64 (both wrap modulo 2^64, as NumPy),
 * of float16/bfloat16 float32, of float32/float64 their own type.  mean,
 * l2, var and std of bool and ints give float64 and keep a float dtype.
 * min and max keep the dtype; argmin and argmax give int64.
 *
 * The association (what is added to what, in which order) depends on the
 * number of reduced items alone: never on the thread count, the memory
 * layout of the input (strides), or the CPU's vector unit.  The reduced
 * items of one output, taken in row-major order of the reduced axes, are
 * cut into blocks of 1024.  In a block, item t goes to lane t % 32; each
 * lane is folded left to right; the 32 lane results are added left to
 * right; the block results are added left to right.  All of it in float64
 * (products: multiplied), starting from -0.0 (1.0), and the total is
 * rounded once to the result dtype.  One refinement for the sum and mean
 * of float16, bfloat16 and float32: a lane's 32 items of a block are two
 * halves of 16 (block items 0..511 and 512..1023), each summed left to
 * right in float32 and then added to the lane in float64.  Integer sums
 * and products, min, max, argmin and argmax are exact, so any order gives
 * the same bits.
 *
 * Accuracy, to first order, for n reduced items x_i with exact sum S
 * (eps32 = 2^-24, eps64 = 2^-53, nb = ceil(n / 1024) blocks):
 * - sum/mean of float16/bfloat16/float32: |result - S| <= eps32 |S|
 *   + (15 eps32 + (33 + nb) eps64) sum |x_i|: under 9.6e-7 relative for
 *   items of one sign (the 16M-item uniform sum is ~1e-8 off).
 * - sum/mean/l2 of float64, and float64 sums of ints: |error| <= (62 +
 *   nb) eps64 sum |x_i| (of x_i^2 for l2), plus the final rounding.
 * - var/std: two passes (the mean, then the sum of squared deviations
 *   from it), both in float64 as above: relative error about (62 + nb)
 *   eps64 plus the rounding to the result dtype; no cancellation.
 * - mean of ints: the sum is exact (int64 for up to 32-bit items, fewer
 *   than 2^32 of them; int128 for int64/uint64), rounded once to float64
 *   and divided once.
 *
 * NaN: propagates through sum, mean, prod, l2, var and std by IEEE
 * arithmetic, and min and max give NaN when an item is NaN; every NaN
 * result is written as the one quiet NaN (C's NAN: +, payload 0), since
 * which NaN an addition keeps follows its operand order, which the
 * kernels of each layout choose (inf + -inf gives x86's negative default
 * NaN, an input NaN its own bits).  Otherwise min and max follow IEEE
 * 754-2019 minimum/maximum (-0.0 < +0.0).
 * argmin/argmax return the first index of the extreme in row-major order
 * of the reduced axes (-0.0 and +0.0 tie), or the first NaN's, as NumPy.
 *
 * Empty reductions (a reduced axis of extent 0): sum gives 0, prod 1 and
 * l2 0; mean, min, max, argmin, argmax, var and std have no value and
 * fail (tn_reduce_shape names the axis). */
#ifndef TN_REDUCE_H
#define TN_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "view.h"

typedef enum {
  TN_REDUCE_SUM,
  TN_REDUCE_MEAN,
  TN_REDUCE_PROD,
  TN_REDUCE_MIN,
  TN_REDUCE_MAX,
  TN_REDUCE_ARGMIN,
  TN_REDUCE_ARGMAX,
  TN_REDUCE_L2,
  TN_REDUCE_VAR,
  TN_REDUCE_STD,
  TN_REDUCE_NOPS
} tn_reduce_op;

/* "sum", "mean", ...; NULL for an invalid op. */
const char *tn_reduce_op_name (tn_reduce_op op);
/* 0 and *op set for one of the names above, else -1 with a message that
 * lists them. */
int tn_reduce_op_from_name (const char *name, tn_reduce_op *op, tn_err *e);
/* The dtype of op's result over items of dtype t. */
tn_dtype tn_reduce_dtype (tn_reduce_op op, tn_dtype t);
/* sum, prod and l2 have a value over no items; the others do not. */
bool tn_reduce_has_identity (tn_reduce_op op);

/* A list of axes as the user wrote it; a negative axis counts from the
 * end.  n == 0 means every axis. */
typedef struct {
  int n;
  int axes[TN_MAX_RANK];
} tn_axes;

/* Parses "0,2", "-1", " 1 , -2 " or "" (every axis).  -1 with a message
 * naming the entry that is not an integer, an axis outside -8..7, or more
 * than 8 entries. */
int tn_axes_parse (tn_axes *a, const char *s, tn_err *e);
/* "0,2" (the empty string for every axis); returns snprintf's length. */
int tn_axes_format (char *buf, size_t cap, const tn_axes *a);
/* The axes as a bit mask over 0..rank-1 (bit i: axis i is reduced).  -1
 * with a message naming the axis and the rank when an axis is out of
 * range, or when two entries name the same axis. */
int tn_axes_mask (const tn_axes *a, int rank, uint32_t *mask, tn_err *e);

/* The result's dims: dims without the reduced axes, or with extent 1 in
 * their place when keepdims.  -1 with a message naming the axis when op
 * has no identity and a reduced axis has extent 0, or when mask names an
 * axis beyond rank. */
int tn_reduce_shape (tn_reduce_op op, const int64_t *dims, int rank,
    uint32_t mask, bool keepdims, int64_t *out, int *out_rank, tn_err *e);

/* Reduces the items of v (over storage base, already checked with
 * tn_view_check; any strides) along the axes in mask into dst: a dense
 * row-major tensor of tn_reduce_dtype (op, v->dtype) with the dims
 * tn_reduce_shape gives (keepdims changes no bytes).  var and std divide
 * the sum of squared deviations by max(n - ddof, 0), as NumPy (so n <=
 * ddof gives inf, or NaN when every deviation is 0); ddof >= 0.  Runs on
 * up to nthreads threads (0: all cores) with the same bits on any count.
 * -1 with a message for an invalid op, mask or ddof, an empty reduction
 * without identity, or when scratch memory runs out. */
int tn_reduce (void *dst, const void *base, const tn_view *v, tn_reduce_op op,
    uint32_t mask, int64_t ddof, int nthreads, tn_err *e);

#endif

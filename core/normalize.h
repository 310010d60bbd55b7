/* Normalisations along axes that keep the shape: softmax, log-softmax,
 * standardize, l2 and minmax, over float16, bfloat16, float32 and float64.
 *
 * Each output item is f (x, statistics of the items that share its kept
 * indices), the statistics taken over the axes in mask:
 *   softmax      exp (x - m) / s, m the maximum, s = sum exp (x - m)
 *   log-softmax  (x - m) - log (s)
 *   standardize  (x - mean) / sqrt (var + eps), var the population one
 *   l2           x / max (sqrt (sum x^2), eps); a NaN norm stays NaN
 *   minmax       (x - min) / (max - min); 0 where max == min is finite
 *                (a group of -inf or of +inf is NaN: inf - inf)
 * float16 and bfloat16 are widened to float32, computed as float32 and
 * rounded once.  The statistics are tensorreduce's folds (core/reduce.h,
 * tn_reduce_fold): the maximum, and float64 lanes for the sums, with that
 * fixed association, so every thread count, CPU mask and stride gives the
 * same bits.  The sum of exponentials is folded in float64 lanes (not in
 * float32 halves as a float32 tn_reduce sum is) for the bound below.
 * float32 takes fused paths with fixed associations of their own (the
 * same bits on every thread count and mask too; docs/design-notes.md):
 * softmax and log-softmax row by row in cache when each innermost row is
 * its own group, and standardize's mean and variance in one read (runs
 * folded about their first items, merged by Chan's formulas).
 *
 * Accuracy (float32, tested in tests/core/test_normalize.c): softmax is
 * within 4 ulp of the float64 result rounded to float32 (x - m is carried
 * as a float pair, exp is a polynomial within 1.5 ulp, the sum and the
 * scaling are float64, and the result is rounded once); log-softmax is
 * (x - m) - log (s) in float64, rounded once, within 4 ulp or 1e-6
 * absolute near 0; standardize, l2 and minmax are computed in float64 from
 * float64 statistics and rounded once (standardize: 2 ulp + 2^-24 |mean| /
 * sqrt (var + eps) absolute, the float32 mean being rounded).  float64 input
 * is computed in float64 (libm's exp and log) to within 1e-13 relative of
 * NumPy's float64 formulas.
 *
 * NaN propagates along its axis (the maximum is NaN), and so do rows of
 * -inf under softmax (-inf - -inf is NaN, as NumPy's formula gives). */
#ifndef TN_NORMALIZE_H
#define TN_NORMALIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "view.h"

typedef enum {
  TN_NORM_SOFTMAX,
  TN_NORM_LOG_SOFTMAX,
  TN_NORM_STANDARDIZE,
  TN_NORM_L2,
  TN_NORM_MINMAX,
  TN_NORM_NOPS
} tn_norm_op;

/* "softmax", "log-softmax", "standardize", "l2", "minmax"; NULL else. */
const char *tn_norm_op_name (tn_norm_op op);
/* Whether op reads eps (standardize and l2), and its default there (1e-5
 * for standardize, as the batch-norm layers of the ML frameworks; 1e-12
 * for l2, as torch.nn.functional.normalize); 0 for the others. */
bool tn_norm_uses_eps (tn_norm_op op);
double tn_norm_default_eps (tn_norm_op op);

/* Normalises the items of v (over storage base; dense, any offset; a float
 * dtype) along the axes in mask (bit i: axis i; 0 on a rank-0 tensor) into
 * dst: a dense tensor of v's dtype and dims, which may be base itself when
 * v's offset is 0 (in place).  eps >= 0 for the ops that read it.  Runs on
 * up to nthreads threads (0: all cores) with the same bits on any count.
 * -1 with a message for a dtype that is not a float, strides that are not
 * dense, a mask beyond the rank, or when scratch memory runs out. */
int tn_normalize (void *dst, const void *base, const tn_view *v, tn_norm_op op,
    uint32_t mask, double eps, int nthreads, tn_err *e);

#endif

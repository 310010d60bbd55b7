/* Internal to core/: tensorreduce's folds for kernels built on them.
 * Apart from reduce-kern.h because it needs view.h, whose stdbool.h would
 * turn the dtype name bool into _Bool inside the kernel templates' macros. */
#ifndef TN_REDUCE_FOLD_H
#define TN_REDUCE_FOLD_H

#include "reduce-kern.h"
#include "view.h"

/* For kernels built on reductions (core/normalize.c): the reduction of
 * tn_reduce with kernel kind (TN_RK_DADD, _DSQ, _MIN, _MAX, or _DDEV with
 * m, the per-output means) over the items of v (a float dtype) along the
 * axes in mask, each output's float64 fold written to dst unrounded (NaN
 * for a min or max that saw one), in row-major order of the kept axes.
 * The same plans, kernels and association as tn_reduce, so the same bits
 * on any thread count.  An empty axis gives -0.0 (min and max too: the
 * caller has no items to use it on). */
int tn_reduce_fold (double *dst, const void *base, const tn_view *v,
    tn_rk_kind kind, uint32_t mask, const double *m, int nthreads, tn_err *e);

#endif

/* Internal to core/reduce*.c and its tests: the reduction kernels.
 *
 * A kernel folds the items of one block (or of consecutive blocks of one
 * row) into partial results; core/reduce.c cuts the work, runs it on the
 * worker pool and combines the partials of one output in block order.
 * Every kernel exists as portable C and, where it pays, as an AVX2 clone
 * with the very same association, so both give the same bits. */
#ifndef TN_REDUCE_KERN_H
#define TN_REDUCE_KERN_H

#include <stdint.h>

#include "dtype.h"

#define TN_RK_BLOCK 1024 /* items of a block */
#define TN_RK_LANES 32   /* lanes of a block */
#define TN_RK_HALF 512   /* float32 half-block of the float sums */
/* Columns a column kernel handles per call, and the scratch bytes it
 * needs for nc columns. */
#define TN_RK_TILE 4096
#define TN_RK_SCRATCH(nc) ((size_t) (nc) *32 + 256)

/* One block's partial result. */
typedef struct {
  union {
    double d;   /* float folds; min/max/argmin/argmax of float dtypes */
    uint64_t u; /* integer sums/products (wrapping); unsigned extremes */
    int64_t i;  /* signed and bool extremes */
    __int128 q; /* exact sums of int64/uint64 */
  } v;
  int64_t idx; /* argmin/argmax: index in the row of the best item */
  int64_t nan; /* extremes: a NaN was seen (argmin/argmax: idx is the
                * first NaN's) */
} tn_rpart;

typedef enum {
  TN_RK_FSUM, /* float16/bfloat16/float32 sum: float32 halves */
  TN_RK_DADD, /* float64 lanes: x */
  TN_RK_DMUL, /* float64 lanes: product */
  TN_RK_DSQ,  /* float64 lanes: x * x */
  TN_RK_DDEV, /* float64 lanes: (x - m) * (x - m) */
  TN_RK_UADD, /* uint64 wrapping sum (ints and bool) */
  TN_RK_UMUL, /* uint64 wrapping product */
  TN_RK_QADD, /* int128 exact sum (int64, uint64) */
  TN_RK_MIN,
  TN_RK_MAX,
  TN_RK_ARGMIN,
  TN_RK_ARGMAX,
  TN_RK_NKINDS
} tn_rk_kind;

/* Folds the n items at p (a contiguous run of one row that starts at a
 * block border, first = its index in the row) into ceil(n / 1024)
 * partials, one per block.  m: the mean for TN_RK_DDEV. */
typedef void (*tn_rk_inner_fn) (
    const void *p, int64_t n, int64_t first, double m, tn_rpart *out);

/* Folds one block of nrows (<= 1024) rows into nc partials, one per
 * column: row t starts roff[t] items after base and holds nc contiguous
 * items, the columns.  row0: the index of row 0 in the reduced sequence
 * (for argmin/argmax).  m: per-column means for TN_RK_DDEV.  scratch:
 * TN_RK_SCRATCH (nc) bytes, 64-byte aligned. */
typedef void (*tn_rk_cols_fn) (const char *base, const int64_t *roff,
    int64_t nrows, int64_t row0, int64_t nc, const double *m, tn_rpart *out,
    void *scratch);

/* Folds one block of nrows (<= 1024) rows of a dense <nrows, P> region at
 * p (rows of P items, one after the other) into P partials, one per
 * column: the narrow-column case (P < 32), read as nrows / 32 rows of 32 P
 * items, whose item l * P + c is lane l of column c.  The fold kinds only
 * (not min/max/argmin/argmax).  m: per-column means for TN_RK_DDEV.
 * scratch: TN_RK_SCRATCH (32 * P) bytes, 64-byte aligned. */
typedef void (*tn_rk_strip_fn) (const char *p, int64_t nrows, int64_t P,
    const double *m, tn_rpart *out, void *scratch);

typedef struct {
  tn_rk_inner_fn inner[TN_RK_NKINDS][TN_NDTYPES];
  tn_rk_cols_fn cols[TN_RK_NKINDS][TN_NDTYPES];
  tn_rk_strip_fn strip[TN_RK_NKINDS][TN_NDTYPES];
} tn_rk_table;

typedef enum {
  TN_RK_IMPL_AUTO, /* AVX2 where the CPU has it */
  TN_RK_IMPL_PORTABLE,
  TN_RK_IMPL_AVX2 /* ignored (portable) without AVX2 and F16C */
} tn_rk_impl;

/* Nonzero when the AVX2 clones can run here. */
int tn_rk_have_avx2 (void);
/* Selects the kernels used from now on, for all threads; tests and
 * benchmarks force each in turn.  Returns the choice in effect. */
tn_rk_impl tn_rk_set_impl (tn_rk_impl impl);
/* The table in effect (resolving AUTO on first use). */
const tn_rk_table *tn_rk_table_get (void);

#endif

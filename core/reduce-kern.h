/* Internal to core/reduce*.c, core/x86/reduce-*.c and their tests: the
 * reduction kernels, one table of them per CPU level.
 *
 * A kernel folds the items of one block (or of consecutive blocks of one
 * row) into partial results; core/reduce.c cuts the work, runs it on the
 * worker pool and combines the partials of one output in block order.
 * Every kernel exists as portable C (core/reduce-tmpl.c) and, where it
 * pays, as an ISA version with the very same association, so all give
 * the same bits. */
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
  /* argmin/argmax: the best item, counted from the kernel's first item
   * (rows) or from the block's first row (columns); the driver adds where
   * those start. */
  int64_t idx;
  int64_t nan; /* extremes: a NaN was seen (argmin/argmax: idx is the
                * first NaN's) */
} tn_rpart;

typedef enum {
  TN_RK_FSUM, /* float16/bfloat16/float32 sum: float32 halves */
  TN_RK_DADD, /* float64 lanes: x */
  TN_RK_DMUL, /* float64 lanes: product */
  TN_RK_DSQ,  /* float64 lanes: x * x */
  TN_RK_UADD, /* uint64 wrapping sum (ints and bool) */
  TN_RK_UMUL, /* uint64 wrapping product */
  TN_RK_QADD, /* int128 exact sum (int64, uint64) */
  TN_RK_MIN,
  TN_RK_MAX,
  TN_RK_ARGMIN,
  TN_RK_ARGMAX,
  TN_RK_NPLAIN, /* the kinds above: entries rows, cols, strip */
  /* float64 lanes: (x - m) * (x - m), the one kind with an argument (the
   * mean m of each output): entries dev_rows, dev_cols, dev_strip. */
  TN_RK_DDEV = TN_RK_NPLAIN,
  TN_RK_NKINDS
} tn_rk_kind;

/* Folds the n items at p (a contiguous run of one row that starts at a
 * block border) into ceil(n / 1024) partials, one per block. */
typedef void (*tn_rk_rows_fn) (const void *p, int64_t n, tn_rpart *out);
typedef void (*tn_rk_dev_rows_fn) (
    const void *p, int64_t n, double m, tn_rpart *out);

/* Folds one block of nrows (<= 1024) rows into nc partials, one per
 * column: row t starts roff[t] items after base and holds nc contiguous
 * items, the columns.  m: per-column means.  scratch: TN_RK_SCRATCH (nc)
 * bytes, 64-byte aligned. */
typedef void (*tn_rk_cols_fn) (const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, tn_rpart *out, void *scratch);
typedef void (*tn_rk_dev_cols_fn) (const char *base, const int64_t *roff,
    int64_t nrows, int64_t nc, const double *m, tn_rpart *out, void *scratch);

/* Folds one block of nrows (<= 1024) rows of a dense <nrows, P> region at
 * p (rows of P items, one after the other) into P partials, one per
 * column: the narrow-column case (P < 32), read as nrows / 32 rows of 32 P
 * items, whose item l * P + c is lane l of column c.  The fold kinds only
 * (not min/max/argmin/argmax).  m: per-column means.  scratch:
 * TN_RK_SCRATCH (32 * P) bytes, 64-byte aligned. */
typedef void (*tn_rk_strip_fn) (
    const char *p, int64_t nrows, int64_t P, tn_rpart *out, void *scratch);
typedef void (*tn_rk_dev_strip_fn) (const char *p, int64_t nrows, int64_t P,
    const double *m, tn_rpart *out, void *scratch);

/* Folds n short rows of k items each (1 <= k <= TN_RK_LANES: one block,
 * one item per lane) into out[0..n-1], each row's float64 fold with the
 * bits a rows kernel gives that row: row i is k contiguous items at p + i
 * * rs items (rs may be anything, negative too).  The float folds only
 * (TN_RK_FSUM, _DADD, _DMUL, _DSQ): the per-pixel channel sums of an
 * image, many rows per call. */
typedef void (*tn_rk_short_fn) (
    const char *p, int64_t k, int64_t rs, int64_t n, double *out);

/* The same rows of the float sums (TN_RK_FSUM: float16, bfloat16,
 * float32) written as the driver writes a float32 sum or mean: out[i] =
 * (float) (fold_i / den), a true division in float64 (den 1 for a sum,
 * k for a mean), rounded once to float32.  Fold, divide and round in one
 * pass: the image's channel means without a float64 array between.
 * stream: the kernel may write (some of) out by non-temporal stores, as
 * for an output that does not stay in cache; the caller then runs
 * tn_stream_fence () before it hands out on (the same bits either way). */
typedef void (*tn_rk_short32_fn) (const char *p, int64_t k, int64_t rs,
    int64_t n, double den, float *out, int stream);

/* The kernels of one CPU level; NULL where a (kind, dtype) has none. */
typedef struct {
  tn_rk_rows_fn rows[TN_RK_NPLAIN][TN_NDTYPES];
  tn_rk_cols_fn cols[TN_RK_NPLAIN][TN_NDTYPES];
  tn_rk_strip_fn strip[TN_RK_NPLAIN][TN_NDTYPES];
  tn_rk_short_fn shortr[TN_RK_NPLAIN][TN_NDTYPES];
  tn_rk_short32_fn short32[TN_NDTYPES]; /* TN_RK_FSUM's */
  tn_rk_dev_rows_fn dev_rows[TN_NDTYPES];
  tn_rk_dev_cols_fn dev_cols[TN_NDTYPES];
  tn_rk_dev_strip_fn dev_strip[TN_NDTYPES];
} tn_reduce_dsp;

/* Fills dsp with the kernels the CPU features in flags (TN_CPU_*) allow:
 * the portable ones, then those of each ISA in flags. */
void tn_reduce_dsp_init (tn_reduce_dsp *dsp, unsigned flags);

/* The table for tn_cpu_flags (), rebuilt when the mask changes. */
const tn_reduce_dsp *tn_reduce_dsp_get (void);

/* The fillers behind tn_reduce_dsp_init: every entry from the template
 * (core/reduce-tmpl.c) as built for one ISA (c: portable), then the
 * hand-written kernels of core/x86/ over some of them. */
void tn_rk_fill_c (tn_reduce_dsp *dsp);
void tn_rk_fill_avx2 (tn_reduce_dsp *dsp);
void tn_rk_init_avx2_sum (tn_reduce_dsp *dsp);
void tn_rk_init_avx2_ext (tn_reduce_dsp *dsp);
void tn_rk_init_avx2_short (tn_reduce_dsp *dsp);
void tn_rk_init_avx512_short (tn_reduce_dsp *dsp);

/* The AVX-512 float32 short32 entry in its two versions, the same bits:
 * quot 0 divides by vdivpd, quot 1 multiplies by the reciprocal and
 * corrects (core/x86/reduce-avx512-short.c says why both); the init
 * picks one per CPU vendor, checkasm checks both.  AVX-512 CPUs only. */
tn_rk_short32_fn tn_rk_avx512_short32 (int quot);

#endif

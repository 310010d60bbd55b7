/* Internal to core/normalize*.c and their tests: the elementwise passes of
 * the normalisations, one table of them per CPU level.
 *
 * A pass maps n contiguous items x to y (y may be x) with two float64
 * parameters per item, pa[i * step] and pb[i * step] (step 0: one pair for
 * the whole run; 1: a pair per item).  Every entry gives the bits of the
 * portable one: the template (normalize-tmpl.c) writes each multiply-add it
 * wants fused as fmaf (), which is correctly rounded in every build, and
 * no other product meets an addition. */
#ifndef TN_NORMALIZE_KERN_H
#define TN_NORMALIZE_KERN_H

#include <math.h>
#include <stdint.h>

typedef enum {
  /* y = exp (x - a); float32: x - a carried as a float pair, exp within
   * 1.5 ulp; float64: libm's exp (x - a) */
  TN_NK_EXP,
  /* float32: y = ((double) x - a) * b, rounded once (b: a reciprocal);
   * float64: y = (x - a) / b */
  TN_NK_AFFINE,
  /* y = ((double) x - a) - b, rounded once */
  TN_NK_SHIFT,
  TN_NK_NKINDS
} tn_nk_kind;

/* [kind][0: float32, 1: float64] */
typedef void (*tn_nk_fn) (const void *x, void *y, int64_t n, const double *pa,
    const double *pb, int step);

/* The reductions of the fused float32 paths (normalize.c), over n >= 1
 * contiguous items, each with one fixed association, so that every entry
 * gives the portable one's bits:
 * - rmax: the largest item; NaN if any item is NaN, +0 for a largest of
 *   zeros (so the order items meet in does not show in the bits);
 * - rsum: the sum in float64: lane l of 16 sums the items i = l (mod 16)
 *   in order, then lanes l and l + w are added for w = 8, 4, 2, 1;
 * - moments: for p slots (p divides 12; n a multiple of p; item i is in
 *   slot i mod p), with c the slot's first item, s[j] = sum of d and
 *   q[j] = sum of d * d (fused) over the slot's items, d = (double) x - c:
 *   lane l of 24 sums the items i = l (mod 24) in order, and slot j adds
 *   lanes j, j + p, ... to 0 in that order. */
typedef float (*tn_nk_max_fn) (const float *x, int64_t n);
typedef double (*tn_nk_sum_fn) (const float *x, int64_t n);
typedef void (*tn_nk_mom_fn) (
    const float *x, int64_t n, int p, double *s, double *q);

/* affine_rep[stream]: the float32 AFFINE pass with parameters that
 * repeat every TN_NK_REP items (a period that divides 48, written out to
 * 48): y[i] = ((double) x[i] - a[i % 48]) * b[i % 48], rounded once,
 * the bits of fn[TN_NK_AFFINE][0] with step 1 over the repeated rows,
 * for any n and alignment, y may be x.  The ISA entries keep the 48
 * pairs in registers and align their stores to y's vectors.  stream 1:
 * the whole vectors go past the caches (non-temporal stores, as the
 * ewise table's cast_stream entries do; the portable entry is entry 0),
 * for outputs far larger than the caches: an ordinary store reads each
 * output line first.  Then y overlaps no x; the entry ends with an
 * sfence, and the caller issues a seq_cst fence after its last call,
 * before another thread reads y. */
#define TN_NK_REP 48
typedef void (*tn_nk_rep_fn) (
    const float *x, float *y, int64_t n, const double *a, const double *b);

/* affine_rep's item i, and its items [i, e): the portable entry, and
 * every entry's items outside its vectors. */
static inline float
tn_nk_rep_item (const float *x, int64_t i, const double *a, const double *b)
{
  return (float) (((double) x[i] - a[i % TN_NK_REP]) * b[i % TN_NK_REP]);
}

static inline void
tn_nk_rep_items (const float *x, float *y, int64_t i, int64_t e,
    const double *a, const double *b)
{
  for (; i < e; i++)
    y[i] = tn_nk_rep_item (x, i, a, b);
}

/* The two affine_rep entries NAME and NAME_stream of an ISA file, from
 * its IMPL (x, y, n, a, b, stream). */
#define TN_NK_REP_ENTRIES(NAME, IMPL)                                          \
  static void NAME (                                                           \
      const float *x, float *y, int64_t n, const double *a, const double *b)   \
  {                                                                            \
    IMPL (x, y, n, a, b, 0);                                                   \
  }                                                                            \
  static void NAME##_stream (                                                  \
      const float *x, float *y, int64_t n, const double *a, const double *b)   \
  {                                                                            \
    IMPL (x, y, n, a, b, 1);                                                   \
  }

typedef struct {
  tn_nk_fn fn[TN_NK_NKINDS][2];
  tn_nk_max_fn rmax;
  tn_nk_sum_fn rsum;
  tn_nk_mom_fn moments;
  tn_nk_rep_fn affine_rep[2];
  /* the table's entries prefetch (tn_norm_dsp_fill's pf); the row-wise
   * softmax requests its next row then too (normalize.c) */
  int prefetch;
} tn_norm_dsp;

void tn_norm_dsp_init (tn_norm_dsp *dsp, unsigned flags);
/* The table for flags with the prefetching entries (pf 1) or without
 * (0), whichever tn_norm_dsp_init chose for this CPU: for checkasm,
 * which checks both. */
void tn_norm_dsp_fill (tn_norm_dsp *dsp, unsigned flags, int pf);
const tn_norm_dsp *tn_norm_dsp_get (void);

/* The shifts of moments' 24 lanes: lane l subtracts c[l], the first item
 * of its slot l % p. */
static inline void
tn_nk_moments_shifts (const float *x, int p, double *c)
{
  for (int l = 0; l < 24; l++)
    c[l] = (double) x[l % p];
}

/* Items i .. n-1 of moments one by one into lanes i % 24 (i a multiple of
 * 24 where a vector loop stopped, or 0: the portable entry), as the
 * vector loops fold them: d = x - c, s += d, q = fma (d, d, q). */
static inline void
tn_nk_moments_items (const float *x, int64_t i, int64_t n, const double *c,
    double *ls, double *lq)
{
  for (; i < n; i++) {
    const int l = (int) (i % 24);
    const double d = (double) x[i] - c[l];

    ls[l] += d;
    lq[l] = fma (d, d, lq[l]);
  }
}

/* The end of moments: slot j of p adds lanes j, j + p, ... of the 24
 * lane sums ls and lq, to 0, in that order. */
static inline void
tn_nk_moments_fold (
    const double *ls, const double *lq, int p, double *s, double *q)
{
  for (int j = 0; j < p; j++) {
    double a = 0.0, b = 0.0;

    for (int l = j; l < 24; l += p) {
      a += ls[l];
      b += lq[l];
    }
    s[j] = a;
    q[j] = b;
  }
}

/* Every entry from the template as built for one ISA (c: portable). */
void tn_nk_fill_c (tn_norm_dsp *dsp);
void tn_nk_fill_avx2 (tn_norm_dsp *dsp);
void tn_nk_fill_avx512 (tn_norm_dsp *dsp);
/* x86/normalize-avx2.c: the reductions and affine_rep; x86/normalize-
 * avx512.c: moments and affine_rep in zmm registers.  prefetch: the
 * entries of moments and affine_rep that request x's lines ahead (the
 * same bits). */
void tn_nk_fill_avx2_red (tn_norm_dsp *dsp, int prefetch);
void tn_nk_fill_avx512_red (tn_norm_dsp *dsp, int prefetch);

/* The float32 exp of the EXP pass on one item, for tests: exp (hi + lo)
 * for hi <= 88, lo tiny beside hi. */
float tn_nk_expf2 (float hi, float lo);

#endif

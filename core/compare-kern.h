/* Internal to core/compare*.c and core/x86/compare-*.c: the comparison
 * kernels, one table of them per CPU level (core/dsp.h).
 *
 * A run kernel compares n items of the actual tensor (stride sa, in
 * items) with n items of the expected one (stride se) and folds them into
 * one tn_cmp_part; core/compare.c cuts the tensors into runs and merges
 * the parts.  An item kernel gives the same verdict for one item, for
 * locating the first mismatch and the worst error inside a run.  Every
 * version of a kernel gives the portable one's bits (floats are compared
 * in the dtype's own precision, float16 and bfloat16 in float32, as NumPy
 * does; no multiply is fused with the add of the bound). */
#ifndef TN_COMPARE_KERN_H
#define TN_COMPARE_KERN_H

#include <stdint.h>

#include "compare.h"
#include "dtype.h"
#include "parallel.h"

/* What one run gives. */
typedef struct {
  int64_t bad;      /* items that fail */
  double max_abs;   /* largest |a - e| (NaN items left out) */
  double max_rel;   /* largest |a - e| / |e| (inf for e == 0, a != e) */
  uint64_t max_ulp; /* largest distance in units in the last place (floats;
                     * |a - e| for integers), NaN items left out */
} tn_cmp_part;

/* One item's verdict and errors. */
typedef struct {
  int bad;
  double actual, expected, abs, rel;
  uint64_t ulp;
} tn_cmp_item;

typedef void (*tn_cmp_run_fn) (const void *a, int64_t sa, const void *e,
    int64_t se, int64_t n, const tn_cmp_tol *t, tn_cmp_part *out);
typedef void (*tn_cmp_item_fn) (
    const void *a, const void *e, const tn_cmp_tol *t, tn_cmp_item *out);

typedef struct {
  tn_cmp_run_fn run[TN_NDTYPES];
  tn_cmp_item_fn item[TN_NDTYPES];
} tn_compare_dsp;

void tn_compare_dsp_init (tn_compare_dsp *dsp, unsigned flags);
const tn_compare_dsp *tn_compare_dsp_get (void);
/* x86/compare-avx2.c: float32 runs. */
void tn_cmp_init_avx2 (tn_compare_dsp *dsp);
/* x86/compare-avx512.c: float32 runs, after tn_cmp_init_avx2. */
void tn_cmp_init_avx512 (tn_compare_dsp *dsp);

/* The distance in ulps of two finite-or-infinite floats given as their
 * bits (sign-magnitude read as a signed integer: -0 and +0 are 0 apart). */
static inline uint64_t
tn_cmp_ulp_bits (uint64_t x, uint64_t y, unsigned bits)
{
  const uint64_t sign = (uint64_t) 1 << (bits - 1);
  int64_t ox = (int64_t) (x & (sign - 1)), oy = (int64_t) (y & (sign - 1));

  if (x & sign)
    ox = -ox;
  if (y & sign)
    oy = -oy;
  if (bits == 64) {
    /* the difference of two 63-bit magnitudes fits in uint64 */
    return ox >= oy ? (uint64_t) ox - (uint64_t) oy
                    : (uint64_t) oy - (uint64_t) ox;
  }
  return (uint64_t) (ox >= oy ? ox - oy : oy - ox);
}

/* The vector runs' cheap pass (x86/compare-*.c).  Most items of a
 * comparison that runs at all differ a little or not at all, so a run
 * takes CMP_FAST_BLOCK items at a time with a test that is exact for
 * finite items of equal signs and nothing else: d = |x - y| against the
 * bound (a verdict that can only say "pass" where the whole test says
 * pass), the maxima of the bits of d (all finite while below inf's; for
 * non-negative floats the bits order as the values do) and of |bits x -
 * bits y| (the ulps for equal signs), the or of x ^ y (a sign differs),
 * and, per vector, whether d may reach the run's max rel so far, R
 * (d >= R * |y|: d / |y| rounding above R means d > R * |y| exactly, so
 * the rounded product is <= d; R is the max over all lanes, as only the
 * run's max counts, so only ties with it flag, not every lane's own).
 * A block with an item that fails, a sign that differs or a d that is
 * not finite is done again with the whole test while it is in L1; else
 * its maxima are folded in, and the quotients of the flagged vectors
 * taken (again in L1).  No division, no blend, no NaN test per item.
 * Under DAZ (MXCSR bit 6) two distinct subnormals compare equal, which
 * the cheap test would not see: whole test only.  FTZ alone changes
 * nothing here (a d flushed to 0 is what the whole test computes too). */
#define CMP_FAST_BLOCK 256

/* |y| below which the cheap pass takes rtol * |y| and rel * |y| as 0
 * (2^-100).  On Intel a multiply with a subnormal operand or result
 * takes a microcode assist of 130-240 cycles (measured on a Xeon of
 * 2026: a vector of 16 items costs about 8 otherwise; Zen 4 has no such
 * penalty): a reference with subnormals (the bench's 1-ulp-off copy of 0
 * is the smallest one) paid three per vector holding one, 0.1 ns per
 * item at one in 1000.  A masked-off AVX-512 lane takes no assist (the
 * AVX2 entry ands |y| with a compare instead).  Taking 0
 * keeps the pass exact: the bound atol + 0 is at most atol + rtol * |y|,
 * so a lane it passes passes the whole test, and the flag d >= rel * 0
 * (the least subnormal: d != 0) holds wherever d >= rel * |y| does.  The
 * run's rel is 0 or at least 2^-24 (x != y are at least half an ulp of
 * |y| apart), so with rtol >= 2^-26 no product of a lane above this
 * underflows either. */
#define CMP_FAST_TINY 0x0d800000

/* Items ahead of the cheap pass that it asks the caches for (4 KiB of
 * each array, four blocks).  On the Xeon a 16M-item comparison ran at
 * the sum of its pass time and its memory time (0.65-0.71 of a STREAM
 * read of both arrays): the hardware prefetchers alone did not keep
 * enough lines in flight while the pass computed; with these, 0.88-0.93
 * with AVX-512 (512 to 2048 items ahead measured the same, T1 and T2
 * hints too).
 * Prefetches past the end of an array are harmless: they never fault. */
#define CMP_FAST_AHEAD 1024

#if defined(__SSE__)
#define CMP_FAST_OK() (!(tn_mxcsr_get () & 0x40u))
#else
#define CMP_FAST_OK() 1
#endif

/* The end of a float32 vector run: folds the nl lanes' maxima (fa, fr,
 * u) into o, then items [i, n) through the item kernel.  o->bad holds
 * the vector part's count already. */
static inline void
tn_cmp_finish_f32 (tn_cmp_part *o, int nl, const float *fa, const float *fr,
    const uint32_t *u, const float *pa, const float *pe, int64_t i, int64_t n,
    const tn_cmp_tol *t, tn_cmp_item_fn item)
{
  for (int l = 0; l < nl; l++) {
    if (fa[l] > o->max_abs)
      o->max_abs = fa[l];
    if (fr[l] > o->max_rel)
      o->max_rel = fr[l];
    if (u[l] > o->max_ulp)
      o->max_ulp = u[l];
  }
  for (; i < n; i++) {
    tn_cmp_item it;

    item (pa + i, pe + i, t, &it);
    o->bad += it.bad;
    if (it.abs > o->max_abs)
      o->max_abs = it.abs;
    if (it.rel > o->max_rel)
      o->max_rel = it.rel;
    if (it.ulp > o->max_ulp)
      o->max_ulp = it.ulp;
  }
}

#endif
